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
type Index struct {
	paths    []string
	embedder cairn.Embedder

	build sync.Mutex // held by the one build under way

	mu    sync.Mutex // guards gen and built
	gen   uint64     // bumped by Invalidate
	built *snapshot  // nil: not built, or invalidated
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
	return &Index{paths: append([]string(nil), paths...), embedder: embedder}
}

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

// current returns the built snapshot if it is still valid, and the
// generation a new build would be for.
func (x *Index) current() (*snapshot, uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.built != nil && x.built.gen == x.gen {
		return x.built, x.gen
	}
	return nil, x.gen
}

func (x *Index) snapshot(ctx context.Context) (*snapshot, error) {
	if s, _ := x.current(); s != nil {
		return s, nil
	}
	x.build.Lock()
	defer x.build.Unlock()
	s, gen := x.current() // another caller may have built it meanwhile
	if s != nil {
		return s, nil
	}
	s, err := x.load(ctx, gen)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	if x.gen == gen {
		x.built = s
	}
	x.mu.Unlock()
	return s, nil
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
