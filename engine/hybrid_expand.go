package engine

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/search"
)

// vectorFeedback is the vector lane's feedback pass (fusionWeights.VecPRF):
// the query's vector (vl.qv) plus VecPRFBeta times the mean of the vectors
// of the first VecPRFDocs fused hits that the vector lane holds (hits, best
// first; their vectors read from the index by chunk id), normalized, asked
// of the index for n candidates over the same corpora and scope. Nothing
// when no fused hit is among the lane's candidates.
func (e *Engine) vectorFeedback(ctx context.Context, query string, hits []cairn.Hit, vl vecLane, corpora []string, scope search.Scope, n int, fw fusionWeights) ([]cairn.Candidate, error) {
	if len(vl.qv) == 0 {
		return nil, nil
	}
	byKey := make(map[chunkKey]int64, len(vl.cands))
	for _, c := range vl.cands {
		h := candidateHit(c)
		if k := (chunkKey{h.Path, h.StartLine, h.EndLine}); !hasKey(byKey, k) {
			byKey[k] = c.ChunkID
		}
	}
	var ids []int64
	for _, h := range hits {
		if len(ids) == fw.VecPRFDocs {
			break
		}
		if id, ok := byKey[chunkKey{h.Path, h.StartLine, h.EndLine}]; ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	e.vec.mu.RLock()
	ix := e.vec.index
	e.vec.mu.RUnlock()
	if ix == nil {
		return nil, nil
	}
	q := movedQuery(vl.qv, ids, ix.Vector, fw.VecPRFBeta)
	if q == nil {
		return nil, nil
	}
	return memoLane(laneKey{"vprf", fmt.Sprint(query, ids, fw.VecPRFBeta), fmt.Sprint(corpora, scope), n}, func() ([]cairn.Candidate, error) {
		return e.vectorAt(ctx, q, corpora, scope, n)
	})
}

// movedQuery is qv/|qv| plus beta times the mean of the unit vectors
// vectorOf gives for ids, normalized (Rocchio); nil when none of ids has a
// vector or the sum is zero.
func movedQuery(qv []float32, ids []int64, vectorOf func(int64) ([]float32, bool), beta float64) []float32 {
	mean := make([]float64, len(qv))
	got := 0
	for _, id := range ids {
		v, ok := vectorOf(id)
		if !ok || len(v) != len(qv) {
			continue
		}
		norm := l2(v)
		if norm == 0 {
			continue
		}
		for i, x := range v {
			mean[i] += float64(x) / norm
		}
		got++
	}
	if got == 0 {
		return nil
	}
	qn := l2(qv)
	if qn == 0 {
		return nil
	}
	out := make([]float64, len(qv))
	for i := range out {
		out[i] = float64(qv[i])/qn + beta*mean[i]/float64(got)
	}
	var sum float64
	for _, x := range out {
		sum += x * x
	}
	if sum == 0 {
		return nil
	}
	s := math.Sqrt(sum)
	q := make([]float32, len(out))
	for i, x := range out {
		q[i] = float32(x / s)
	}
	return q
}

func l2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// liftSessions adds to each unit lift times its document's score over the
// best document's (fusionWeights.Session): a document's score is the sum
// of its top best units' scores (1 when top is 0 or less). Only units that
// are part of a document move (docKey not the document's path: a session's
// turns); a file, one unit, is neither lifted nor counted. Scores are read
// before any is changed.
func liftSessions(units []fused, lift float64, top int, docKey func(cairn.Hit) string) {
	top = max(top, 1)
	per := map[string][]float64{}
	for _, u := range units {
		if docKey(u.hit) != u.hit.Path {
			per[u.hit.Path] = append(per[u.hit.Path], u.score)
		}
	}
	doc := make(map[string]float64, len(per))
	best := 0.0
	for p, s := range per {
		sort.Sort(sort.Reverse(sort.Float64Slice(s)))
		sum := 0.0
		for _, x := range s[:min(top, len(s))] {
			sum += x
		}
		doc[p] = sum
		best = max(best, sum)
	}
	if best <= 0 {
		return
	}
	for i := range units {
		f := &units[i]
		if _, ok := doc[f.hit.Path]; !ok || docKey(f.hit) == f.hit.Path {
			continue
		}
		c := lift * doc[f.hit.Path] / best
		f.score += c
		if f.nparts < len(f.parts) {
			f.parts[f.nparts] = lanePart{"session", doc[f.hit.Path], c, 0, f.hit.StartLine, f.hit.EndLine, f.hit.Path, cairn.HitSignals{}}
			f.nparts++
		}
	}
}

// What a query asks for, by its first word (queryAsk).
const (
	askThing = iota // a thing, a reason, a manner, a place or a person; or a query of words
	askWhen         // a time: "When did Caroline go to the support group?"
	askYesNo        // yes or no: "Would Melanie go on another roadtrip soon?"
)

// queryAsk is the kind of question a query is, read from its first word
// alone: "when" asks when; an auxiliary verb first ("is", "would", "did",
// "has", ...) asks yes or no; anything else, a query of plain words
// included, asks for a thing.
func queryAsk(query string) int {
	w := queryWords(query)
	if len(w) == 0 {
		return askThing
	}
	switch w[0] {
	case "when":
		return askWhen
	case "is", "are", "was", "were", "am", "do", "does", "did", "would", "will", "can", "could",
		"should", "shall", "may", "might", "must", "has", "have", "had":
		return askYesNo
	}
	return askThing
}
