package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/redact"
	"github.com/cairnmemory/cairn/search"
)

// sessionScope applies a session filter to the selected corpora. The
// filter constrains session hits only (spec C11): the sessions corpora are
// narrowed to the sessions that match, and the other selected corpora
// (notes, memories) stay eligible as they are. Sessions corpora with no
// matching session leave the selection; when nothing is left the search
// has no results ("only sessions selected and none match").
func (e *Engine) sessionScope(ctx context.Context, sel []cairn.Corpus, f *cairn.SessionFilter) (search.Scope, []cairn.Corpus, error) {
	if err := validFilter(f); err != nil {
		return search.Scope{}, nil, err
	}
	var names []string
	for _, c := range sel {
		if c.Kind == cairn.KindSessions {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return search.Scope{}, sel, nil
	}
	paths, err := e.store.FilterSessions(ctx, names, storedForm(*f))
	if err != nil {
		return search.Scope{}, nil, err
	}
	if len(paths) == 0 {
		return search.Scope{}, slices.DeleteFunc(sel, func(c cairn.Corpus) bool { return c.Kind == cairn.KindSessions }), nil
	}
	return search.Scope{Paths: paths, PathCorpora: names}, sel, nil
}

// storedForm redacts the filter values that sync stored redacted
// (redactSession), so a filter that names a working folder as it is on disk
// matches the stored form when the folder held a secret.
func storedForm(f cairn.SessionFilter) cairn.SessionFilter {
	for _, p := range []*string{&f.Cwd, &f.AccountID, &f.ConversationID} {
		*p, _ = redact.Redact(*p)
	}
	return f
}

// lexicalSearch answers lexical mode with one best chunk per unit
// (docKey: the document for files, the chunk for sessions), as hybrid and
// vector mode answer: a long note whose chunks all match took several of
// the places, and only the first of them named its best lines. The lexical
// lane asks for laneSize candidates, as it does in hybrid mode, and for
// four times as many (up to laneCap) while the units it found
// are fewer than the limit and more candidates remain.
//
// A limit under the default's pool is searched at the pool (poolOptions,
// as hybrid is) and Search cuts after calibrating: the lane's depth
// decides whether the any-words plan runs (search.Searcher.SearchPaths
// adds it when the all-words plan finds fewer chunks than asked), and the
// calibrated score weighs each hit against the best hits returned, so a
// search cut to its limit first scored and cut its first hits otherwise
// than one with a larger limit: "go-toml strict mode reject unknown keys"
// over a docs corpus gave one hit at --limit 3 and three at --limit 10
// (its term share over the best, termsratio, 1.0 against 0.5).
func (e *Engine) lexicalSearch(ctx context.Context, query string, o *cairn.SearchOptions, scope search.Scope) ([]cairn.Hit, error) {
	o = e.poolOptions(o)
	lo := *o
	top := laneTop(o) // recall.go: more for the memories corpus alone
	for n := laneWant(o); ; n *= 4 {
		lo.Limit = min(n, top)
		hits, err := e.searcher.SearchPaths(ctx, query, &lo, scope)
		if err != nil {
			return nil, err
		}
		kept := bestPerUnit(hits, e.docKey)
		if len(kept) >= o.Limit || len(hits) < lo.Limit || lo.Limit == top {
			return kept[:min(len(kept), o.Limit)], nil
		}
	}
}

// bestPerUnit keeps the first of each unit of xs (hits, or fusion's
// units); they come best first. It reuses xs's array.
func bestPerUnit[T any](xs []T, unit func(T) string) []T {
	seen := make(map[string]bool, len(xs))
	out := xs[:0]
	for _, h := range xs {
		if k := unit(h); !seen[k] {
			seen[k] = true
			out = append(out, h)
		}
	}
	return out
}

// laneCap is the most candidates a lane is asked for: cairn.MaxSearchLimit,
// or cairn.MaxRecallLimit for a search of the memories corpus alone that
// wants more (engine.Search allows that limit only then).
func laneCap(limit int) int {
	if limit > cairn.MaxSearchLimit {
		return cairn.MaxRecallLimit
	}
	return cairn.MaxSearchLimit
}

// unbornMemories drops the memories corpus from the names a search asks
// for while it is not live (no sessions corpus and no memory stored yet:
// memories.go): asked for by name, it then answers with no hits, not with
// "unknown corpus: memories", a usage error about a corpus every engine
// has (ux F18). A caller whose scope does not read the memories keeps the
// name, so its refusal stays. left is false when memories was the only
// name: the search has nothing to do.
func unbornMemories(ctx context.Context, live []cairn.Corpus, names []string) (rest []string, left bool) {
	if slices.ContainsFunc(live, func(c cairn.Corpus) bool { return c.Kind == cairn.KindMemories }) ||
		CanRead(ctx, cairn.MemoriesCorpus) != nil {
		return names, true
	}
	rest = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return strings.EqualFold(n, cairn.MemoriesCorpus) })
	return rest, len(rest) > 0 || len(names) == 0
}
