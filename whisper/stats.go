package whisper

import (
	"slices"
	"sync"

	"github.com/cairnmemory/cairn/internal/telemetry"
)

// Limits of the diagnostics counters (C16).
const (
	MaxAgents    = 100                // agents counted; the oldest inserted is evicted past it
	RecentWindow = telemetry.Window   // calls p50 and p95 cover
	MaxCount     = telemetry.MaxCount // counters saturate (exact in a JSON number)
)

// Outcomes are C16's whisperer outcomes, each counted from zero.
var Outcomes = []string{"missing_key", "judge_disabled", "no_candidates", "rejected", "cooldown", "emitted", "failed",
	"timed_out", "cancelled", "unavailable", "payload_limit", "redundancy_unavailable", "recall_not_needed",
	"queries_generated", "judge_candidate_failed", "input_too_large"}

// OpOutcomes are the per-operation telemetry outcomes (C16).
var OpOutcomes = []string{"ok", "partial", "empty", "failed", "cancelled", "timed_out", "skipped"}

// Stats counts whisperer outcomes and operation telemetry per agent for
// the life of the process: never text, paths or keys. Safe for
// concurrent use.
type Stats struct {
	mu     sync.Mutex
	agents map[string]*agentStats
	order  []string // insertion order, for eviction
}

type agentStats struct {
	outcomes map[string]map[string]int64 // whisperer kind -> outcome -> count
	ops      map[string]*opStats
}

type opStats struct {
	calls    int64
	outcomes map[string]int64
	measures map[string]*telemetry.Series
}

// Measurement summarizes one measured quantity over an operation's calls.
type Measurement = telemetry.Summary

// OpTelemetry is one operation's calls, outcomes and measurements.
type OpTelemetry struct {
	Calls        int64                  `json:"calls"`
	Outcomes     map[string]int64       `json:"outcomes"`
	Measurements map[string]Measurement `json:"measurements"`
}

// agent returns the stats of one agent, inserting it (and evicting the
// oldest inserted past MaxAgents). Called with mu held.
func (s *Stats) agent(id string) *agentStats {
	if s.agents == nil {
		s.agents = map[string]*agentStats{}
	}
	a := s.agents[id]
	if a != nil {
		return a
	}
	if len(s.order) >= MaxAgents {
		delete(s.agents, s.order[0])
		s.order = s.order[1:]
	}
	a = &agentStats{outcomes: map[string]map[string]int64{}, ops: map[string]*opStats{}}
	s.agents[id] = a
	s.order = append(s.order, id)
	return a
}

// Count adds one to each outcome of a whisperer kind for an agent.
func (s *Stats) Count(agent, kind string, outcomes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.agent(agent)
	m := a.outcomes[kind]
	if m == nil {
		m = map[string]int64{}
		a.outcomes[kind] = m
	}
	for _, o := range outcomes {
		m[o] = min(m[o]+1, MaxCount)
	}
}

// Record counts one call of an operation with its outcome and
// measurements.
func (s *Stats) Record(agent, op, outcome string, measures map[string]float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.agent(agent)
	o := a.ops[op]
	if o == nil {
		o = &opStats{outcomes: map[string]int64{}, measures: map[string]*telemetry.Series{}}
		a.ops[op] = o
	}
	o.calls = min(o.calls+1, MaxCount)
	o.outcomes[outcome] = min(o.outcomes[outcome]+1, MaxCount)
	for k, v := range measures {
		m := o.measures[k]
		if m == nil {
			m = &telemetry.Series{}
			o.measures[k] = m
		}
		m.Add(v)
	}
}

// Outcomes returns an agent's counts for a whisperer kind, every outcome
// of Outcomes present.
func (s *Stats) OutcomesOf(agent, kind string) map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int64, len(Outcomes))
	for _, o := range Outcomes {
		out[o] = 0
	}
	if a := s.agents[agent]; a != nil {
		for k, v := range a.outcomes[kind] {
			out[k] = v
		}
	}
	return out
}

// Telemetry returns an agent's telemetry of op, zero when never called.
func (s *Stats) Telemetry(agent, op string) OpTelemetry {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := OpTelemetry{Outcomes: map[string]int64{}, Measurements: map[string]Measurement{}}
	for _, o := range OpOutcomes {
		t.Outcomes[o] = 0
	}
	a := s.agents[agent]
	if a == nil || a.ops[op] == nil {
		return t
	}
	o := a.ops[op]
	t.Calls = o.calls
	for k, v := range o.outcomes {
		t.Outcomes[k] = v
	}
	for k, m := range o.measures {
		t.Measurements[k] = m.Summary()
	}
	return t
}

// Agents returns the agents counted, oldest first.
func (s *Stats) Agents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.order)
}
