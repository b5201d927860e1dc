package skills

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/cairnmemory/cairn"
)

// Index holds the skills of one corpus and their vectors, in memory. It is
// built on first use and again after Invalidate; safe for concurrent use.
//
// A build runs on a goroutine of the Index, not under the caller's
// context: a caller whose deadline ends first (a whisper turn's 3 s)
// gets its context's error, and the build goes on and serves the next
// caller, so a large corpus on a slow embedder is not rebuilt, and given
// up, at every turn. Close cancels a build and waits for it.
type Index struct {
	paths    []string
	embedder cairn.Embedder

	base   context.Context // builds run under it; Close cancels it
	cancel context.CancelFunc
	wg     sync.WaitGroup // the build goroutine

	mu      sync.Mutex // guards gen, built and pending
	gen     uint64     // bumped by Invalidate
	built   *snapshot  // nil: not built, or invalidated
	pending *build     // the build under way, nil when none
}

// build is one build under way; done closes when s or err is set.
type build struct {
	done chan struct{}
	s    *snapshot
	err  error
}

// snapshot is one build of the index.
type snapshot struct {
	gen    uint64
	skills []Skill
	vecs   [][]float32
	report Report
}

// Match is a skill and its cosine similarity to a query.
type Match struct {
	Skill
	Score float64
}

// NewIndex returns the index of the skills under paths (absolute). A nil
// embedder gives skills but no matches (Search fails with
// cairn.ErrUnavailable).
func NewIndex(paths []string, embedder cairn.Embedder) *Index {
	base, cancel := context.WithCancel(context.Background())
	return &Index{paths: append([]string(nil), paths...), embedder: embedder, base: base, cancel: cancel}
}

// Close cancels a build under way and waits for it; later uses fail.
func (x *Index) Close() {
	x.cancel()
	x.wg.Wait()
}

// Warm starts a build when none is built or under way, without waiting
// for it (a server's first turn then finds it ready).
func (x *Index) Warm() { x.start() }

// Paths are the configured paths.
func (x *Index) Paths() []string { return append([]string(nil), x.paths...) }

// Invalidate drops the built index; the next use builds it again. A build
// under way when it is called is used by its own caller only.
func (x *Index) Invalidate() {
	x.mu.Lock()
	x.gen++
	x.built = nil
	x.mu.Unlock()
}

// Skills returns the skills and what their discovery left out. It builds
// the index (embedding every skill) when needed.
func (x *Index) Skills(ctx context.Context) ([]Skill, Report, error) {
	s, err := x.snapshot(ctx)
	if err != nil {
		return nil, Report{}, err
	}
	return append([]Skill(nil), s.skills...), s.report, nil
}

// snapshot returns the built index, waiting (at most until ctx ends) for
// a build when there is none.
func (x *Index) snapshot(ctx context.Context) (*snapshot, error) {
	s, b := x.start()
	if s != nil {
		return s, nil
	}
	select {
	case <-b.done:
		return b.s, b.err // a build invalidated meanwhile still answers its waiters
	case <-ctx.Done():
		return nil, fmt.Errorf("build skills index: %w", ctx.Err())
	}
}

// start returns the valid snapshot, or the build under way (started now
// when there is none).
func (x *Index) start() (*snapshot, *build) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.built != nil && x.built.gen == x.gen {
		return x.built, nil
	}
	if x.pending != nil {
		return nil, x.pending
	}
	b := &build{done: make(chan struct{})}
	x.pending = b
	gen := x.gen
	x.wg.Add(1)
	go func() {
		defer x.wg.Done()
		b.s, b.err = x.load(x.base, gen)
		x.mu.Lock()
		if b.err == nil && x.gen == gen {
			x.built = b.s
		}
		x.pending = nil
		x.mu.Unlock()
		close(b.done)
	}()
	return nil, b
}

// load discovers and embeds the skills.
func (x *Index) load(ctx context.Context, gen uint64) (*snapshot, error) {
	found, rep, err := Discover(ctx, x.paths)
	if err != nil {
		return nil, fmt.Errorf("discover skills: %w", err)
	}
	s := &snapshot{gen: gen, skills: found, report: rep}
	if x.embedder != nil && len(found) > 0 {
		texts := make([]string, len(found))
		for i, k := range found {
			texts[i] = DocumentText(k)
		}
		if s.vecs, err = x.embedder.Embed(ctx, cairn.EmbedDocument, texts); err != nil {
			return nil, fmt.Errorf("embed skills: %w", err)
		}
		if len(s.vecs) != len(found) {
			return nil, fmt.Errorf("embed skills: %w: %d vectors for %d skills", cairn.ErrInvalid, len(s.vecs), len(found))
		}
	}
	return s, nil
}

// DocumentText is what a skill is embedded as: its name as the title, its
// description as the text.
func DocumentText(s Skill) string {
	if s.Description == "" {
		return s.Name
	}
	return s.Name + "\n\n" + s.Description
}

// Search embeds query as a query and returns up to limit skills by cosine
// similarity, best first (ties in discovery order).
func (x *Index) Search(ctx context.Context, query string, limit int) ([]Match, error) {
	if x.embedder == nil {
		return nil, fmt.Errorf("search skills: %w: no embedder configured", cairn.ErrUnavailable)
	}
	s, err := x.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if len(s.skills) == 0 || limit <= 0 {
		return nil, nil
	}
	qv, err := x.embedder.Embed(ctx, cairn.EmbedQuery, []string{query})
	if err != nil {
		return nil, fmt.Errorf("embed skill query: %w", err)
	}
	if len(qv) != 1 {
		return nil, fmt.Errorf("embed skill query: %w: %d vectors for 1 query", cairn.ErrInvalid, len(qv))
	}
	out := make([]Match, len(s.skills))
	for i, k := range s.skills {
		out[i] = Match{Skill: k, Score: cosine(qv[0], s.vecs[i])}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	return out[:min(limit, len(out))], nil
}

// cosine is the cosine similarity of a and b; 0 when either is zero or
// their lengths differ.
func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
