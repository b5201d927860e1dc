package engine

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/explore"
	"github.com/cairnmemory/cairn/gather"
)

// GatherOptions tune a gather. A nil pointer means defaults: no fast
// model (the ranked list comes back unjudged), every active memory, the
// time taken from the question's own words.
type GatherOptions struct {
	// Model is the fast model ([llm.fast]) that reads the candidates; nil:
	// the result is the ranked list, marked unjudged.
	Model cairn.LLM
	// From and To name the question's time when the caller knows it
	// (YYYY, YYYY-MM or YYYY-MM-DD).
	From, To string
	// Now resolves relative times in the question ("last week"); zero:
	// absolute dates only.
	Now time.Time
	// Filter holds the caller's memory filters (scope, project, told-at
	// range, kinds); each of the gather's searches applies them, its own
	// kinds and event range on top.
	Filter *cairn.MemorySearch
	// Mode is the search mode (default: hybrid with an embedder, else
	// lexical).
	Mode string
	// Tune, when set, adjusts the gatherer (part size, parallel calls,
	// timeout) before it runs.
	Tune func(g *gather.Gatherer)
}

// Gather collects every memory a question needs (spec §7, package
// gather): a wide search of the memories, the fast model reading the
// candidates in parts and proposing further searches, the kept set first.
// Every search is the engine's memory search (Search over the memories
// corpus with opts.Filter). A fast model that is unavailable, or none,
// gives the ranked list marked unjudged, not an error.
func (e *Engine) Gather(ctx context.Context, question string, opts *GatherOptions) (*gather.Result, error) {
	if err := CanRead(ctx, cairn.MemoriesCorpus); err != nil { // scope.go: it searches the memories
		return nil, err
	}
	var o GatherOptions
	if opts != nil {
		o = *opts
	}
	none, err := e.noMemories(ctx)
	if err != nil {
		return nil, err
	}
	g := gather.New(&memorySearcher{e: e, filter: o.Filter, mode: o.Mode, none: none}, o.Model)
	if o.Tune != nil {
		o.Tune(g)
	}
	res, err := g.Gather(ctx, &gather.Request{Question: question, From: o.From, To: o.To, Now: o.Now})
	if err == nil && none {
		res.Hint = NoMemories
	}
	return res, err
}

// NoMemories is the hint gather and explore give, beside their empty
// result, while no memory is stored (recall says the same as its error).
const NoMemories = "no memories yet: configure a sessions corpus and run cairn consolidate"

// noMemories reports whether the store holds no memory yet. Then the
// memories corpus may not be live (memories.go: no sessions corpus and
// nothing remembered), and a search of it would fail with "unknown
// corpus: memories", a usage error about a corpus the user never named
// (ux F18): gather and explore answer with nothing found and NoMemories.
func (e *Engine) noMemories(ctx context.Context) (bool, error) {
	has, err := e.store.HasMemories(ctx)
	return !has, err
}

// memorySearcher is the engine's memory search as gather.Searcher and
// explore.Searcher: one search of the memories corpus with the caller's
// filter, each hit's stored memory read for what the model is shown.
type memorySearcher struct {
	e      *Engine
	filter *cairn.MemorySearch
	mode   string
	none   bool // no memory is stored (noMemories): every search finds nothing
}

var (
	_ gather.Searcher  = (*memorySearcher)(nil)
	_ explore.Searcher = (*memorySearcher)(nil)
)

// SearchMemories runs one of a gather's searches.
func (s *memorySearcher) SearchMemories(ctx context.Context, q gather.Search) ([]gather.Candidate, error) {
	f := cairn.MemorySearch{}
	if s.filter != nil {
		f = *s.filter
	}
	kinds, ok := searchKinds(f.Kinds, q.Kinds)
	if !ok {
		return []gather.Candidate{}, nil // the caller's kinds leave none of this search's
	}
	f.Kinds = kinds
	if q.From != "" || q.To != "" {
		f.From, f.To = q.From, q.To
	}
	var out []gather.Candidate
	err := s.search(ctx, q.Text, q.Limit, &f, func(m *cairn.Memory, h *cairn.Hit) {
		out = append(out, gather.CandidateOf(m, h.Snippet, h.Score))
	})
	return out, err
}

// SearchTopic finds an exploration's seeds.
func (s *memorySearcher) SearchTopic(ctx context.Context, topic string, limit int) ([]explore.Hit, error) {
	var out []explore.Hit
	err := s.search(ctx, topic, limit, s.filter, func(m *cairn.Memory, h *cairn.Hit) {
		out = append(out, explore.Hit{ID: m.ID, Score: h.Score})
	})
	return out, err
}

// search runs the memory search and calls fn with each hit's memory, best
// first, each memory once. No minimum score: gather and explore read wide.
func (s *memorySearcher) search(ctx context.Context, text string, limit int, f *cairn.MemorySearch, fn func(*cairn.Memory, *cairn.Hit)) error {
	if s.none {
		return nil
	}
	limit = min(max(limit, 1), cairn.MaxRecallLimit)
	hits, err := s.e.Search(ctx, text, &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}, Limit: limit, Memories: f, Mode: s.mode})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for i := range hits {
		h := &hits[i]
		if h.Memory == nil || seen[h.Memory.ID] {
			continue
		}
		seen[h.Memory.ID] = true
		m, err := s.e.store.Memory(ctx, h.Memory.ID)
		if errors.Is(err, cairn.ErrNotFound) {
			continue // removed since the search
		}
		if err != nil {
			return err
		}
		fn(&m, h)
	}
	return nil
}

// searchKinds combines the caller's kinds with a gather search's
// (observations only, all but observations, or all). ok is false when
// they leave no kind.
func searchKinds(caller []string, sel string) ([]string, bool) {
	var want []string
	switch sel {
	case gather.KindsObservations:
		want = []string{cairn.MemoryObservation}
	case gather.KindsOther:
		want = slices.DeleteFunc(allKinds(), func(k string) bool { return k == cairn.MemoryObservation })
	default:
		return caller, true
	}
	if len(caller) == 0 {
		return want, true
	}
	out := slices.DeleteFunc(slices.Clone(caller), func(k string) bool { return !slices.Contains(want, k) })
	return out, len(out) > 0
}
