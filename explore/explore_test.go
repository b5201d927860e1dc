package explore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
)

func mem(id string, concepts ...string) cairn.Memory {
	return cairn.Memory{ID: id, Kind: "fact", Concepts: concepts}
}

func related(a, b string) cairn.MemoryLink {
	return cairn.MemoryLink{From: a, To: b, Kind: cairn.LinkRelated}
}

func exact(g *Graph) *Explorer {
	x := New(g, nil, nil)
	x.Epsilon = 1e-13
	return x
}

func explore(t *testing.T, x *Explorer, r *Request) *Result {
	t.Helper()
	res, err := x.Explore(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// near allows 1e-8: edge weights are stored as float32 (7 digits), the
// walk adds in float64.
func near(t *testing.T, got, want float64, what string) {
	t.Helper()
	if math.Abs(got-want) > 1e-8 {
		t.Errorf("%s = %.12f, want %.12f", what, got, want)
	}
}

// TestPPRByHand checks the walk against a graph solved on paper.
//
// Memories A and B name concept x; B and C are related; the seed is A.
// Nodes A, B, C, X with edges A–X and B–X of weight a = 1/ln(2+2) =
// 0.721347520444, and B–C of weight 1. Weighted degrees: d(A) = a,
// d(B) = a+1, d(C) = 1, d(X) = 2a. Transitions: A→X 1; X→A 1/2, X→B 1/2;
// B→X q = a/(a+1) = 0.419059784196, B→C t = 1/(a+1) = 0.580940215804;
// C→B 1. With restart 0.5, p(v) = 0.5·[v=A] + 0.5·Σu p(u)·P(u→v):
//
//	p(A) = 0.5 + 0.25·p(X)
//	p(X) = 0.5·p(A) + 0.5·q·p(B)
//	p(B) = 0.25·p(X) + 0.5·p(C)
//	p(C) = 0.5·t·p(B)
//
// From the last two, p(B) = k·p(X) with k = 0.25/(1 − 0.25·t) =
// 0.292478067983. Then p(X) = 0.25 + 0.125·p(X) + 0.5·q·k·p(X), so
// p(X) = 0.25/(1 − 0.125 − 0.5·q·k) = 0.307232082739, p(A) =
// 0.576808020685, p(B) = 0.089858645982, p(C) = 0.026101250594; they sum
// to 1.
func TestPPRByHand(t *testing.T) {
	g := Build([]cairn.Memory{mem("A", "x"), mem("B", "x"), mem("C")}, []cairn.MemoryLink{related("B", "C")})
	res := explore(t, exact(g), &Request{IDs: []string{"A"}})
	if len(res.Found) != 1 || res.Found[0].ID != "A" || res.Found[0].Origin != "id" {
		t.Fatalf("found = %+v", res.Found)
	}
	near(t, res.Found[0].Score, 0.576808020685, "p(A)")
	if len(res.Related) != 2 || res.Related[0].ID != "B" || res.Related[1].ID != "C" {
		t.Fatalf("related = %+v, want B then C", res.Related)
	}
	near(t, res.Related[0].Score, 0.089858645982, "p(B)")
	near(t, res.Related[1].Score, 0.026101250594, "p(C)")
	if len(res.Concepts) != 1 || res.Concepts[0].Name != "x" || res.Concepts[0].Memories != 2 {
		t.Fatalf("concepts = %+v", res.Concepts)
	}
	near(t, res.Concepts[0].Score, 0.307232082739, "p(X)")

	wantB := []Step{{Via: ViaConcept, Concept: "x", From: "A", To: "B"}}
	wantC := append(slices.Clone(wantB), Step{Via: ViaRelated, From: "B", To: "C"})
	if !reflect.DeepEqual(res.Related[0].Path, wantB) || !reflect.DeepEqual(res.Related[1].Path, wantC) {
		t.Fatalf("paths = %+v / %+v, want %+v / %+v", res.Related[0].Path, res.Related[1].Path, wantB, wantC)
	}
	if s := res.Related[1].Path[1].String(); s != "via related link from B" {
		t.Fatalf("step says %q", s)
	}
}

// randomGraph is a graph of n memories naming concepts from a pool of
// 3n/4 (Zipf-like: low numbers are frequent) with some related links.
func randomGraph(seed uint64, n int) ([]cairn.Memory, []cairn.MemoryLink) {
	rng := rand.New(rand.NewPCG(seed, 1))
	pool := max(3*n/4, 1)
	var ms []cairn.Memory
	for i := range n {
		m := mem(fmt.Sprintf("m%04d", i))
		for range 1 + rng.IntN(5) {
			c := int(float64(pool) * math.Pow(rng.Float64(), 2))
			m.Concepts = append(m.Concepts, fmt.Sprintf("c%d", c))
		}
		ms = append(ms, m)
	}
	var ls []cairn.MemoryLink
	for range n / 3 {
		ls = append(ls, related(ms[rng.IntN(n)].ID, ms[rng.IntN(n)].ID))
	}
	return ms, ls
}

// power computes PPR on the graph of ms and ls by power iteration on a
// dense matrix, independently of Build: the reference for the push.
func power(ms []cairn.Memory, ls []cairn.MemoryLink, seeds []string, keep func(string) bool, iters int) map[string]float64 {
	idx := map[string]int{}
	var names []string
	node := func(name string) int {
		if i, ok := idx[name]; ok {
			return i
		}
		idx[name] = len(names)
		names = append(names, name)
		return idx[name]
	}
	shared := map[string]int{}
	for _, m := range ms {
		seen := map[string]bool{}
		for _, c := range m.Concepts {
			if !seen[c] {
				seen[c] = true
				shared[c]++
			}
		}
	}
	type e struct{ u, v int }
	w := map[e]float64{}
	for _, m := range ms {
		if !keep(m.ID) {
			continue
		}
		u := node(m.ID)
		for _, c := range m.Concepts {
			w[e{u, node("concept:" + c)}] = 1 / math.Log(2+float64(shared[c]))
		}
	}
	for _, l := range ls {
		if l.From != l.To && keep(l.From) && keep(l.To) {
			w[e{node(l.From), node(l.To)}] = 1
		}
	}
	n := len(names)
	adj := make([][]float64, n)
	for i := range adj {
		adj[i] = make([]float64, n)
	}
	for k, x := range w {
		adj[k.u][k.v], adj[k.v][k.u] = x, x
	}
	s := make([]float64, n)
	for _, id := range seeds {
		s[node(id)] = 1 / float64(len(seeds))
	}
	p := slices.Clone(s)
	for range iters {
		next := make([]float64, n)
		for u := range n {
			d := 0.0
			for _, x := range adj[u] {
				d += x
			}
			next[u] += 0.5 * s[u]
			if d == 0 {
				next[u] += 0.5 * p[u]
				continue
			}
			for v, x := range adj[u] {
				next[v] += 0.5 * p[u] * x / d
			}
		}
		p = next
	}
	out := map[string]float64{}
	for i, name := range names {
		out[name] = p[i]
	}
	return out
}

func scores(res *Result) map[string]float64 {
	out := map[string]float64{}
	for _, f := range res.Found {
		out[f.ID] = f.Score
	}
	for _, r := range res.Related {
		out[r.ID] = r.Score
	}
	return out
}

// TestConvergence: the push agrees with power iteration to 1e-8 at a tiny
// epsilon, and the default epsilon's error is small and below its bound
// (the unpushed residual, at most Epsilon per unit of degree per node).
func TestConvergence(t *testing.T) {
	ms, ls := randomGraph(7, 300)
	g := Build(ms, ls)
	seeds := []string{"m0003", "m0100", "m0200"}
	all := func(string) bool { return true }
	ref := power(ms, ls, seeds, all, 80) // error 0.5^80
	res := explore(t, exact(g), &Request{IDs: seeds, Limit: MaxLimit, Neighbours: -1})
	got := scores(res)
	if len(res.Related) < 50 {
		t.Fatalf("only %d related memories reached", len(res.Related))
	}
	for id, p := range got {
		near(t, p, ref[id], "p("+id+")")
	}
	def := explore(t, New(g, nil, nil), &Request{IDs: seeds, Limit: MaxLimit})
	worst := 0.0
	for id, p := range scores(def) {
		if p > ref[id]+1e-12 {
			t.Errorf("p(%s) = %g over the exact %g: the estimate is a lower bound", id, p, ref[id])
		}
		worst = max(worst, ref[id]-p)
	}
	if worst > 1e-3 {
		t.Errorf("default epsilon: worst error %g", worst)
	}
	if def.Stats.Pushes >= res.Stats.Pushes {
		t.Errorf("default epsilon pushed %d times, the exact walk %d", def.Stats.Pushes, res.Stats.Pushes)
	}
}

// TestFilter: a memory the filter keeps out is neither returned nor
// walked through, and a seed it keeps out is reported.
func TestFilter(t *testing.T) {
	ms := []cairn.Memory{mem("A", "x"), mem("B", "x"), mem("C")}
	g := Build(ms, []cairn.MemoryLink{related("B", "C")})
	noB := func(id string) bool { return id != "B" }
	res := explore(t, exact(g), &Request{IDs: []string{"A", "B"}, Filter: noB})
	if !reflect.DeepEqual(res.Excluded, []string{"B"}) {
		t.Fatalf("excluded = %v, want [B]", res.Excluded)
	}
	// Without B the graph is A–X: p(A) = 0.5 + 0.5·p(X), p(X) = 0.5·p(A),
	// so p(A) = 2/3 and p(X) = 1/3; C is reached only through B.
	if len(res.Related) != 0 {
		t.Fatalf("related = %+v, want none", res.Related)
	}
	near(t, res.Found[0].Score, 2.0/3, "p(A)")
	if len(res.Concepts) != 0 { // p(X) = 1/3, but only the seed names x now
		t.Fatalf("concepts = %+v, want none: x leads nowhere past the seed", res.Concepts)
	}
	ref := power(ms, []cairn.MemoryLink{related("B", "C")}, []string{"A"}, noB, 80)
	near(t, res.Found[0].Score, ref["A"], "p(A) by power iteration")

	ms2, ls2 := randomGraph(3, 200)
	g2 := Build(ms2, ls2)
	even := func(id string) bool { return id[len(id)-1]%2 == 0 }
	got := explore(t, exact(g2), &Request{IDs: []string{"m0010"}, Filter: even, Limit: MaxLimit, Neighbours: -1})
	ref2 := power(ms2, ls2, []string{"m0010"}, even, 80)
	for id, p := range scores(got) {
		if !even(id) {
			t.Fatalf("%s returned through the filter", id)
		}
		near(t, p, ref2[id], "filtered p("+id+")")
	}
}

// fakeNear answers from a table and records what it was asked.
type fakeNear struct {
	mu    sync.Mutex
	table map[string][]Neighbour
	asked []string
	err   error
}

func (f *fakeNear) Nearest(_ context.Context, id string, k int) ([]Neighbour, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, id)
	if f.err != nil {
		return nil, f.err
	}
	l := f.table[id]
	return l[:min(k, len(l))], nil
}

// TestNeighboursTwoHops: the seed's nearest memories and theirs are
// reached, each with its path; a third hop is not asked.
func TestNeighboursTwoHops(t *testing.T) {
	ms := []cairn.Memory{mem("S"), mem("N1"), mem("N2"), mem("N3"), mem("R", "q"), mem("T", "q")}
	g := Build(ms, nil)
	fn := &fakeNear{table: map[string][]Neighbour{
		"S":  {{"N1", 0.9}, {"nope", 0.8}, {"S", 1}},
		"N1": {{"N2", 0.8}, {"S", 0.9}},
		"N2": {{"N3", 0.9}},
	}}
	x := exact(g)
	x.Near = fn
	res := explore(t, x, &Request{IDs: []string{"S"}})
	slices.Sort(fn.asked)
	if !reflect.DeepEqual(fn.asked, []string{"N1", "S"}) {
		t.Fatalf("asked %v, want S then N1 only", fn.asked)
	}
	if len(res.Related) != 2 || res.Related[0].ID != "N1" || res.Related[1].ID != "N2" {
		t.Fatalf("related = %+v", res.Related)
	}
	want := []Step{{Via: ViaNeighbour, From: "S", To: "N1"}, {Via: ViaNeighbour, From: "N1", To: "N2"}}
	if !reflect.DeepEqual(res.Related[1].Path, want) {
		t.Fatalf("path = %+v, want %+v", res.Related[1].Path, want)
	}
	if res.Stats.NeighbourCalls != 2 || res.Stats.NeighbourEdges != 2 {
		t.Fatalf("stats = %+v, want 2 calls, 2 edges (S–N1 once from both ends, N1–N2)", res.Stats)
	}
	// By hand: S–N1 0.9, N1–N2 0.8. d(S)=0.9, d(N1)=1.7, d(N2)=0.8.
	// p(S) = 0.5 + 0.5·p(N1)·0.9/1.7; p(N1) = 0.5·p(S) + 0.5·p(N2);
	// p(N2) = 0.5·p(N1)·0.8/1.7. With u = 0.9/1.7, v = 0.8/1.7:
	// p(N1) = 0.5·p(S)/(1 − 0.25·v), p(S) = 0.5/(1 − 0.25·u/(1 − 0.25·v)).
	u, v := 0.9/1.7, 0.8/1.7
	pS := 0.5 / (1 - 0.25*u/(1-0.25*v))
	pN1 := 0.5 * pS / (1 - 0.25*v)
	near(t, res.Found[0].Score, pS, "p(S)")
	near(t, res.Related[0].Score, pN1, "p(N1)")
	near(t, res.Related[1].Score, 0.5*pN1*v, "p(N2)")

	fn.err = errors.New("index closed")
	if _, err := x.Explore(context.Background(), &Request{IDs: []string{"S"}}); err == nil || !errors.Is(err, fn.err) {
		t.Fatalf("a failing lookup: err = %v", err)
	}
}

// TestDeterminism: the same memories in another order give the same
// result, ties go to the smaller id, and concurrent walks over one graph
// agree.
func TestDeterminism(t *testing.T) {
	// B, C and D are alike from A's side: a tie broken by id.
	ms := []cairn.Memory{mem("A", "x"), mem("D", "x"), mem("B", "x"), mem("C", "x")}
	res := explore(t, exact(Build(ms, nil)), &Request{IDs: []string{"A"}})
	var ids []string
	for _, r := range res.Related {
		ids = append(ids, r.ID)
	}
	if !reflect.DeepEqual(ids, []string{"B", "C", "D"}) || res.Related[0].Score != res.Related[2].Score {
		t.Fatalf("related = %+v, want a tie B, C, D", res.Related)
	}

	ms2, ls2 := randomGraph(11, 2000)
	req := &Request{IDs: []string{"m0001", "m0500", "m1500"}, Limit: 50}
	want := explore(t, New(Build(ms2, ls2), nil, nil), req)
	rng := rand.New(rand.NewPCG(5, 5))
	rng.Shuffle(len(ms2), func(i, j int) { ms2[i], ms2[j] = ms2[j], ms2[i] })
	slices.Reverse(ls2)
	g := Build(ms2, ls2)
	var wg sync.WaitGroup
	results := make([]*Result, 8)
	for i := range results {
		wg.Go(func() {
			r, err := New(g, nil, nil).Explore(context.Background(), req)
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		})
	}
	wg.Wait()
	for i, got := range results {
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("walk %d over shuffled input differs", i)
		}
	}
}

type fakeSearch struct{ hits []Hit }

func (f fakeSearch) SearchTopic(_ context.Context, _ string, limit int) ([]Hit, error) {
	return f.hits[:min(limit, len(f.hits))], nil
}

// TestSeeds: given ids come first, then the topic's hits up to Seeds;
// repeats are taken once, unknown ids reported.
func TestSeeds(t *testing.T) {
	g := Build([]cairn.Memory{mem("A", "x"), mem("B", "x"), mem("C", "y"), mem("D", "y")}, nil)
	x := New(g, fakeSearch{hits: []Hit{{"C", 9}, {"A", 8}, {"gone", 7}, {"D", 6}}}, nil)
	res := explore(t, x, &Request{Topic: "t", IDs: []string{"A"}, Seeds: 3})
	want := []Found{{ID: "A", Origin: "id"}, {ID: "C", Origin: "search", SearchScore: 9}}
	for i := range res.Found {
		res.Found[i].Score = 0
	}
	if !reflect.DeepEqual(res.Found, want) || !reflect.DeepEqual(res.Missing, []string{"gone"}) {
		t.Fatalf("found %+v missing %v", res.Found, res.Missing)
	}
	if len(res.Related) != 2 || res.Related[0].ID != "B" && res.Related[0].ID != "D" {
		t.Fatalf("related = %+v", res.Related)
	}
	none := explore(t, x, &Request{IDs: []string{"gone"}})
	if len(none.Found) != 0 || len(none.Related) != 0 || len(none.Missing) != 1 {
		t.Fatalf("no seeds: %+v", none)
	}
}

func TestInvalidRequests(t *testing.T) {
	x := New(Build(nil, nil), nil, nil)
	for _, r := range []*Request{nil, {}, {IDs: []string{"a"}, Limit: MaxLimit + 1}, {Topic: "no searcher"}} {
		if _, err := x.Explore(context.Background(), r); !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("%+v: err = %v, want ErrInvalid", r, err)
		}
	}
}

func TestBuildStats(t *testing.T) {
	ms := []cairn.Memory{mem("A", "Cairn TOML", "cairn.toml", "!!"), mem("B", "cairn.toml"), mem("A", "other")}
	ls := []cairn.MemoryLink{related("A", "B"), related("B", "A"), related("A", "A"), related("A", "zz"),
		{From: "A", To: "B", Kind: cairn.LinkMerged}}
	s := Build(ms, ls).Stats()
	want := BuildStats{Memories: 2, Concepts: 1, ConceptEdges: 2, RelatedEdges: 1, UnknownLinks: 1, SelfLinks: 1, DuplicateIDs: 1, Bytes: s.Bytes}
	if s != want {
		t.Fatalf("stats = %+v, want %+v", s, want)
	}
	g := Build(ms, ls)
	if name := g.concepts[0]; name != "cairn.toml" {
		t.Fatalf("concept name %q, want the most frequent spelling", name)
	}
}

// TestMask: a mask gives the walk a filter's result without calling it;
// a mask of another graph is refused.
func TestMask(t *testing.T) {
	ms, ls := randomGraph(3, 200)
	g := Build(ms, ls)
	even := func(id string) bool { return id[len(id)-1]%2 == 0 }
	req := Request{IDs: []string{"m0010", "m0011"}, Limit: MaxLimit}
	withFilter := req
	withFilter.Filter = even
	want := explore(t, New(g, nil, nil), &withFilter)
	withMask := req
	withMask.Mask = g.Mask(even)
	got := explore(t, New(g, nil, nil), &withMask)
	if got.Stats.FilterCalls != 0 || want.Stats.FilterCalls == 0 {
		t.Fatalf("filter calls: mask %d, filter %d", got.Stats.FilterCalls, want.Stats.FilterCalls)
	}
	got.Stats.FilterCalls = want.Stats.FilterCalls
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("mask and filter differ:\n%+v\n%+v", got, want)
	}
	withMask.Mask = Build(ms, ls).Mask(even)
	if _, err := New(g, nil, nil).Explore(context.Background(), &withMask); !errors.Is(err, cairn.ErrInvalid) {
		t.Fatalf("another graph's mask: err = %v", err)
	}
}

// TestConceptsLeadOut: a concept only the seeds name scores high (next to
// where the walk restarts) but is not returned.
func TestConceptsLeadOut(t *testing.T) {
	g := Build([]cairn.Memory{mem("A", "only-a", "shared"), mem("B", "shared")}, nil)
	res := explore(t, exact(g), &Request{IDs: []string{"A"}})
	if len(res.Concepts) != 1 || res.Concepts[0].Name != "shared" {
		t.Fatalf("concepts = %+v, want shared alone", res.Concepts)
	}
	// only-a (weight 1/ln 3) outweighs shared (1/ln 4) at A: it would
	// have come first.
	if conceptWeight(1) <= conceptWeight(2) {
		t.Fatal("weights")
	}
}
