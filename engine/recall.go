package engine

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/search"
)

// SearchCorpora returns the corpora a search can select by name: the
// configured ones and the memories corpus once it is live (memories.go:
// a sessions corpus is configured or a memory was stored). It reads no
// storage: a memory another process stored counts once a search or sync
// of this engine has seen it.
func (e *Engine) SearchCorpora() []cairn.Corpus {
	if e.recall.live.Load() {
		return slices.Clone(e.opts.Corpora)
	}
	return slices.DeleteFunc(slices.Clone(e.opts.Corpora), func(c cairn.Corpus) bool { return c.Kind == cairn.KindMemories })
}

// recallState is the engine's memory recall state: whether the memories
// corpus is live (liveCorpora), explore's cached graph
// (recall_explore.go) and neighbour computations (recall_near.go).
type recallState struct {
	live  atomic.Bool
	graph graphCache
	near  nearState
}

// memoriesOnly reports whether every selected corpus is the memories
// corpus: such a search may return up to cairn.MaxRecallLimit hits.
func memoriesOnly(sel []cairn.Corpus) bool {
	return len(sel) > 0 && !slices.ContainsFunc(sel, func(c cairn.Corpus) bool { return c.Kind != cairn.KindMemories })
}

// memoryChunksPerHit is how many chunk candidates a lane brings per hit
// wanted when only the memories corpus is searched: a memory is several
// chunks (its keys, recall_keys.go), each a candidate of its own, and a
// lane keeps one per memory. With 1.5 chunks per hit (laneSize), capped
// at 100 for hybrid's lexical lane, a 200-result search found 150
// memories (TestRecallFillsTwoHundred).
const memoryChunksPerHit = 4

// laneWant is how many candidates each lane of a search brings: laneSize,
// times memoryChunksPerHit for a search of the memories corpus alone.
func laneWant(o *cairn.SearchOptions) int {
	if memoryNames(o.Corpora) {
		return laneSize(o.Limit) * memoryChunksPerHit
	}
	return laneSize(o.Limit)
}

// laneTop is the most candidates the lexical lane is asked for: laneCap,
// or search.MaxLaneLimit (memoryChunksPerHit times MaxRecallLimit) for a
// search of the memories corpus alone.
func laneTop(o *cairn.SearchOptions) int {
	if memoryNames(o.Corpora) {
		return search.MaxLaneLimit
	}
	return laneCap(o.Limit)
}

// memoryNames reports whether the corpora named are the memories corpus
// alone.
func memoryNames(names []string) bool {
	return len(names) > 0 && !slices.ContainsFunc(names, func(n string) bool { return n != cairn.MemoriesCorpus })
}

// checkLimit holds a search that takes in other corpora than memories to
// cairn.MaxSearchLimit.
func checkLimit(sel []cairn.Corpus, limit int) error {
	if limit > cairn.MaxSearchLimit && !memoriesOnly(sel) {
		return cairn.Invalidf("limit %d out of range: allowed 1 to %d (up to %d when only the memories corpus is searched)",
			limit, cairn.MaxSearchLimit, cairn.MaxRecallLimit)
	}
	return nil
}

// allKinds lists every memory kind, in the order errors name them.
func allKinds() []string {
	return append(append([]string{cairn.MemoryEpisode, cairn.MemoryObservation}, cairn.ItemKinds...), cairn.MemoryProfile)
}

// Memory scopes an item can have.
var memoryScopes = []string{"project", "global", "person"}

// CheckMemorySearch refuses a filter value no memory can match, naming the
// field (as the MCP memoryFilter and the CLI flags spell it) and what is
// allowed.
func CheckMemorySearch(f *cairn.MemorySearch) error {
	for i, k := range f.Kinds {
		if !slices.Contains(allKinds(), k) {
			return cairn.Invalidf("memoryFilter.kinds[%d] %q: allowed %s", i, k, strings.Join(allKinds(), ", "))
		}
	}
	if f.Scope != "" && !slices.Contains(memoryScopes, f.Scope) {
		return cairn.Invalidf("memoryFilter.scope %q: allowed %s", f.Scope, strings.Join(memoryScopes, ", "))
	}
	if f.Status != "" && f.Status != cairn.StatusActive {
		return cairn.Invalidf("memoryFilter.status %q: allowed %s (superseded memories are not searched: list them with cairn memories list --status superseded)",
			f.Status, cairn.StatusActive)
	}
	if !f.ToldFrom.IsZero() && !f.ToldTo.IsZero() && f.ToldFrom.After(f.ToldTo) {
		return cairn.Invalidf("memoryFilter.toldFrom %s is after memoryFilter.toldTo %s: give a range that starts before it ends",
			f.ToldFrom.Format(time.RFC3339), f.ToldTo.Format(time.RFC3339))
	}
	var lo, hi string
	var ok bool
	if f.From != "" {
		if lo, _, ok = cairn.DateBounds(f.From); !ok {
			return cairn.Invalidf("memoryFilter.from %q: allowed a date as YYYY, YYYY-MM or YYYY-MM-DD", f.From)
		}
	}
	if f.To != "" {
		if _, hi, ok = cairn.DateBounds(f.To); !ok {
			return cairn.Invalidf("memoryFilter.to %q: allowed a date as YYYY, YYYY-MM or YYYY-MM-DD", f.To)
		}
	}
	if lo != "" && hi != "" && lo > hi {
		return cairn.Invalidf("memoryFilter.from %s is after memoryFilter.to %s: give a range that starts before it ends", f.From, f.To)
	}
	return nil
}

// memoryScope applies a memory filter to the selected corpora, as
// sessionScope applies a session filter: the memories corpus is narrowed
// to the documents of the memories that match, and the other selected
// corpora stay as they are. With no memory matching, the memories corpus
// leaves the selection. scope is what a session filter made of the search
// already; the two combine (each restricts its own corpus only).
func (e *Engine) memoryScope(ctx context.Context, sel []cairn.Corpus, scope search.Scope, f *cairn.MemorySearch) (search.Scope, []cairn.Corpus, error) {
	if f == nil {
		return scope, sel, nil
	}
	if err := CheckMemorySearch(f); err != nil {
		return scope, nil, err
	}
	if f.IsZero() || !slices.ContainsFunc(sel, func(c cairn.Corpus) bool { return c.Kind == cairn.KindMemories }) {
		return scope, sel, nil
	}
	refs, err := e.memoryRefs(ctx, f)
	if err != nil {
		return scope, nil, err
	}
	if len(refs) == 0 {
		return scope, slices.DeleteFunc(sel, func(c cairn.Corpus) bool { return c.Kind == cairn.KindMemories }), nil
	}
	out := search.Scope{Paths: slices.Clip(scope.Paths), PathCorpora: append(slices.Clip(scope.PathCorpora), cairn.MemoriesCorpus)}
	if out.Paths == nil {
		out.Paths = make([]string, 0, len(refs))
	}
	for _, r := range refs {
		out.Paths = append(out.Paths, consolidate.DocumentPath(&cairn.Memory{ID: r.ID, Kind: r.Kind}))
	}
	return out, sel, nil
}

// memoryRefs lists the active memories f keeps, ids and kinds only (the
// store decodes none of them: decoding every memory a filter kept was
// half of a filtered search's time at 10,000 memories).
func (e *Engine) memoryRefs(ctx context.Context, f *cairn.MemorySearch) ([]cairn.MemoryRef, error) {
	lf := cairn.MemoryFilter{Status: cairn.StatusActive, Kinds: f.Kinds, Scope: f.Scope,
		ToldFrom: f.ToldFrom, ToldTo: f.ToldTo, EventFrom: f.From, EventTo: f.To}
	if p := strings.TrimSpace(f.Project); p != "" {
		lf.Threads = []string{}
		if c, ok := e.sessionsCorpus(); ok {
			paths, err := e.store.FilterSessions(ctx, []string{c.Name}, storedForm(cairn.SessionFilter{Cwd: p}))
			if err != nil {
				return nil, err
			}
			for _, p := range paths {
				lf.Threads = append(lf.Threads, c.Name+"/"+p)
			}
		}
	}
	return e.store.MemoryRefs(ctx, lf)
}

// memoryHit is what a hit of memory m carries.
func memoryHit(m *cairn.Memory) *cairn.MemoryHit {
	h := &cairn.MemoryHit{ID: m.ID, Kind: m.Kind, Title: m.Title, Status: m.Status, EventDate: m.EventDate,
		StartDate: m.StartDate, EndDate: m.EndDate, Scope: m.Scope, Sources: m.Provenance}
	if !m.ToldAt.IsZero() {
		h.ToldAt = m.ToldAt.UTC().Format(time.RFC3339)
	}
	if h.Sources == nil {
		h.Sources = []cairn.Provenance{}
	}
	return h
}

// MemoryCounts counts the stored memories by kind and by status.
type MemoryCounts struct {
	Total    int            `json:"total"`
	ByKind   map[string]int `json:"byKind"`
	ByStatus map[string]int `json:"byStatus"`
}

// CountMemories counts the stored memories by kind and status (it reads
// them all: diagnostics, not a search path).
func (e *Engine) CountMemories(ctx context.Context) (MemoryCounts, error) {
	c := MemoryCounts{ByKind: map[string]int{}, ByStatus: map[string]int{}}
	if err := CanRead(ctx, cairn.MemoriesCorpus); err != nil { // scope.go
		return c, err
	}
	ms, err := e.store.Memories(ctx, cairn.MemoryFilter{})
	if err != nil {
		return c, err
	}
	for i := range ms {
		c.Total++
		c.ByKind[ms[i].Kind]++
		c.ByStatus[ms[i].Status]++
	}
	return c, nil
}
