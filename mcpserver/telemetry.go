package mcpserver

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
	stats "github.com/cairnmemory/cairn/internal/telemetry"
)

// Outcomes counted per operation (spec C16).
var outcomeNames = []string{"ok", "partial", "empty", "failed", "cancelled", "timed_out", "skipped"}

// telemetry counts calls per operation for the life of the process. It
// never keeps text, paths or keys.
type telemetry struct {
	mu  sync.Mutex
	ops map[string]*opStats
}

type opStats struct {
	calls    int64
	outcomes map[string]int64
	measures map[string]*stats.Series
}

// record counts one call of op with its outcome and measurements.
func (t *telemetry) record(op, outcome string, measures map[string]float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ops == nil {
		t.ops = map[string]*opStats{}
	}
	s := t.ops[op]
	if s == nil {
		s = &opStats{outcomes: map[string]int64{}, measures: map[string]*stats.Series{}}
		t.ops[op] = s
	}
	s.calls = stats.Inc(s.calls)
	s.outcomes[outcome] = stats.Inc(s.outcomes[outcome])
	for k, v := range measures {
		m := s.measures[k]
		if m == nil {
			m = &stats.Series{}
			s.measures[k] = m
		}
		m.Add(v)
	}
}

// recordSearch counts a memory_search call, and a vector-lane call when
// the vector lane took part.
func (t *telemetry) recordSearch(ctx context.Context, mode string, embedder bool, start time.Time, results int, err error) {
	ms := float64(time.Since(start).Microseconds()) / 1000
	outcome := outcomeOf(ctx, results, err)
	t.record("memorySearch", outcome, map[string]float64{"elapsedMs": ms, "retrievalMs": ms, "results": float64(results)})
	if embedder && mode != cairn.ModeLexical {
		t.record("vector", outcome, map[string]float64{"elapsedMs": ms})
	}
}

func outcomeOf(ctx context.Context, results int, err error) string {
	switch {
	case err == nil && results == 0:
		return "empty"
	case err == nil:
		return "ok"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "timed_out"
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return "cancelled"
	default:
		return "failed"
	}
}

// snapshot returns the telemetry of every operation in ops, zero for those
// never called.
func (t *telemetry) snapshot(ops ...string) map[string]OpTelemetry {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]OpTelemetry{}
	for _, op := range ops {
		o := OpTelemetry{Outcomes: map[string]int64{}, Measurements: map[string]Measurement{}}
		for _, n := range outcomeNames {
			o.Outcomes[n] = 0
		}
		if s := t.ops[op]; s != nil {
			o.Calls = s.calls
			for k, v := range s.outcomes {
				o.Outcomes[k] = v
			}
			for k, m := range s.measures {
				o.Measurements[k] = Measurement(m.Summary())
			}
		}
		out[op] = o
	}
	return out
}
