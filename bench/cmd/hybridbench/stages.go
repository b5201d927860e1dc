package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/cairnmemory/cairn/bench/procstat"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

// switchEmbedder is the engine's embedder in hybridbench: it embeds with
// models[use] under the identity of models[id] (the model that embedded
// the index, so the vector lane stays the index's whichever model embeds
// a query), and keeps the duration and vector of its last call, so that
// a hybrid search's query embedding can be told from the rest of it.
// One search at a time: the engine embeds a query on the goroutine that
// called Search.
type switchEmbedder struct {
	models []cairn.Embedder
	id     int
	use    atomic.Int32
	last   atomic.Int64 // nanoseconds of the last Embed
	vec    atomic.Pointer[[]float32]
	calls  atomic.Int64
}

func (s *switchEmbedder) Identity() cairn.EmbedderIdentity { return s.models[s.id].Identity() }

func (s *switchEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	t := time.Now()
	vs, err := s.models[s.use.Load()].Embed(ctx, kind, texts)
	s.last.Store(int64(time.Since(t)))
	s.calls.Add(1)
	if err == nil && len(vs) == 1 {
		s.vec.Store(&vs[0])
	}
	return vs, err
}

// Close closes every model (the engine's Close calls it).
func (s *switchEmbedder) Close() error {
	var errs []error
	for _, m := range s.models {
		if c, ok := m.(interface{ Close() error }); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// stageK is the vector lane's candidates at the default limit of 10
// (engine laneSize: 1.5 x the limit, at least 10).
const stageK = 15

// measureStages times hybrid searches split into their parts, every
// model of sw alternating query by query (the order flipped every query):
// the whole search (wall and process CPU), the query embedding inside it
// (sw's timer), the vector index search alone (the same query vector
// searched again in a copy of the index loaded from the file, k = 15 as
// the lane asks), the rest of the search (whole less embedding less index
// search: the chunk reads, waiting for the lexical lane when it is the
// slower, fusion, signals and snippets), and the lexical mode search of
// the same query right after. Each line's percentiles are of that part
// alone, so they do not add up.
func measureStages(ctx context.Context, eng *engine.Engine, sw *switchEmbedder, names []string, path string, qs []string) error {
	ix, err := loadIndex(path)
	if err != nil {
		return err
	}
	n := len(sw.models)
	total, cpu, embed, index, rest, lexical := make([][]time.Duration, n), make([][]time.Duration, n), make([][]time.Duration, n), make([][]time.Duration, n), make([][]time.Duration, n), make([][]time.Duration, n)
	defer sw.use.Store(int32(sw.id))
	odd := 0
	for i, q := range qs {
		for j := range n {
			side := j
			if i%2 == 1 {
				side = n - 1 - j
			}
			sw.use.Store(int32(side))
			calls := sw.calls.Load()
			c0, t0 := processCPU(), time.Now()
			if _, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeHybrid}); err != nil {
				return fmt.Errorf("hybrid search %q: %w", q, err)
			}
			d, c := time.Since(t0), processCPU()-c0
			if sw.calls.Load() != calls+1 {
				odd++ // not one query embedding: the split would not hold
				continue
			}
			e := time.Duration(sw.last.Load())
			qv := *sw.vec.Load()
			t1 := time.Now()
			ix.Search(qv, stageK, nil)
			s := time.Since(t1)
			total[side], cpu[side], embed[side] = append(total[side], d), append(cpu[side], c), append(embed[side], e)
			index[side], rest[side] = append(index[side], s), append(rest[side], max(0, d-e-s))
			t2 := time.Now()
			if _, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeLexical}); err == nil {
				lexical[side] = append(lexical[side], time.Since(t2))
			}
		}
	}
	fmt.Printf("hybrid split into parts, %d queries each, %s alternating, index embedded %s (the percentiles of each part alone do not add up); %d searches left out (not one query embedding); load %.2f\n",
		len(qs), names, names[sw.id], odd, procstat.Load1())
	for side, name := range names {
		printLatency("h-"+name, total[side], 0)
		printLatency("  cpu", cpu[side], 0)
		printLatency("  embed", embed[side], 0)
		printLatency("  index", index[side], 0)
		printLatency("  rest", rest[side], 0)
		printLatency("  lex", lexical[side], 0)
	}
	return nil
}

// processCPU is the process's user and system time so far (every thread:
// the lexical lane runs on its own goroutine).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
