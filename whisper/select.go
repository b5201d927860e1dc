package whisper

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/cairnmemory/cairn/judge"
)

// hint is one rendered passage (C29 step 7).
type hint struct {
	Source string `json:"source"`
	Lines  string `json:"lines"`
	Body   string `json:"body"`
}

// renderHints writes the passages as a JSON array with < and > escaped.
func renderHints(ps []Scored) string {
	hs := make([]hint, len(ps))
	for i, p := range ps {
		hs[i] = hint{Source: p.Path, Lines: fmt.Sprintf("%d-%d", p.StartLine, p.EndLine), Body: p.Text}
	}
	return string(marshalNoHTML(hs))
}

// pairState is the redundancy rubric's state for one pair.
type pairState struct {
	CurrentRequest string `json:"currentRequest"`
	Pairs          []pair `json:"pairs"`
}

type pair struct {
	Earlier string `json:"earlier"`
	Later   string `json:"later"`
}

// select_ takes the top maxHints passages. With complementaryHints it
// walks the ranked passages (at most WhisperResults) and drops a later one
// that an earlier selected one covers (redundancy p ≥ 0.9), asking every
// pair it needs at once (at most MaxRedundancyReqs); any failed pair
// request leaves the baseline, the top maxHints, standing.
func (w *MemoryWhisperer) select_(ctx context.Context, r *run, request string, ranked []Scored) []Scored {
	base := ranked[:min(len(ranked), w.cfg.MaxHints)]
	if !w.cfg.ComplementaryHints || len(ranked) < 2 || w.cfg.MaxHints < 2 {
		return base
	}
	ranked = ranked[:min(len(ranked), WhisperResults)]
	covered, ok := w.redundancy(ctx, r, request, ranked)
	if !ok {
		r.also = append(r.also, "redundancy_unavailable")
		w.event(r, "redundancy_unavailable", "")
		return base
	}
	var out []Scored
	for i, p := range ranked {
		if len(out) == w.cfg.MaxHints {
			break
		}
		dup := false
		for _, s := range out {
			if covered[[2]int{s.idx, i}] {
				dup = true
				break
			}
		}
		if !dup {
			p.idx = i
			out = append(out, p)
		}
	}
	return out
}

// redundancy asks, for every pair (i < j) of ranked passages, whether i
// covers j, all at once. ok is false when any request failed.
func (w *MemoryWhisperer) redundancy(ctx context.Context, r *run, request string, ranked []Scored) (map[[2]int]bool, bool) {
	for i := range ranked {
		ranked[i].idx = i
	}
	var pairs [][2]int
	for j := 1; j < len(ranked); j++ {
		for i := 0; i < j && len(pairs) < MaxRedundancyReqs; i++ {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	covered := make([]bool, len(pairs))
	failed := make([]bool, len(pairs))
	var wg sync.WaitGroup
	for k, pr := range pairs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := pairState{CurrentRequest: request, Pairs: []pair{{Earlier: ranked[pr[0]].Text, Later: ranked[pr[1]].Text}}}
			got, err := w.o.Judge.Ask(ctx, &judge.Request{Rubric: judge.Redundancy, State: st})
			if err != nil {
				failed[k] = true
				w.event(r, "candidate_failed", string(codeOf(err)), slog.String("stage", "redundancy"))
				return
			}
			covered[k] = got.Answers["pair_0"].P >= judge.MinRedundancy
		}()
	}
	wg.Wait()
	r.requests += len(pairs)
	out := map[[2]int]bool{}
	for k, pr := range pairs {
		if failed[k] {
			return nil, false
		}
		out[pr] = covered[k]
	}
	return out, true
}
