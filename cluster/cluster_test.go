package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairnmemory/cairn"
)

// topics makes n unit vectors in dim dimensions around k random unit
// centres (gaussian spread sd per axis before normalizing), labelled by
// centre, with hashes "d000"… and one chunk per document.
func topics(k, perTopic, dim int, sd float64, seed uint64) ([]Item, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	centres := make([][]float64, k)
	for c := range centres {
		centres[c] = make([]float64, dim)
		for d := range dim {
			centres[c][d] = rng.NormFloat64()
		}
		normalize64(centres[c])
	}
	var items []Item
	var labels []int
	for i := range k * perTopic {
		c := i % k
		v := make([]float64, dim)
		for d := range dim {
			v[d] = centres[c][d] + sd*rng.NormFloat64()
		}
		normalize64(v)
		f := make([]float32, dim)
		for d := range v {
			f[d] = float32(v[d])
		}
		h := fmt.Sprintf("d%04d", i)
		items = append(items, Item{Hash: h, Seq: 0, Fingerprint: "f" + h, Vector: f})
		labels = append(labels, c)
	}
	return items, labels
}

func normalize64(v []float64) {
	var s float64
	for _, x := range v {
		s += x * x
	}
	s = math.Sqrt(s)
	for i := range v {
		v[i] /= s
	}
}

func seedOf(s int64) *int64 { return &s }

func TestRunFindsTopics(t *testing.T) {
	items, want := topics(4, 60, 32, 0.12, 7)
	for _, method := range []string{MethodUMAP, MethodNone} {
		res, err := Run(context.Background(), items, &Options{Space: Space{Method: method}})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int, len(res.Members))
		for i, m := range res.Members {
			got[i] = m.Cluster
		}
		if ari := AdjustedRand(want, got); ari < 0.95 {
			t.Fatalf("%s: ARI %.3f with %d clusters and %d noise, want at least 0.95", method, ari, len(res.Clusters), res.Noise)
		}
		sum := res.Noise
		for c, info := range res.Clusters {
			sum += info.Size
			if info.ID != c || info.MeanProbability <= 0 || info.MeanProbability > 1 {
				t.Fatalf("%s: cluster %d: %+v", method, c, info)
			}
		}
		if sum != len(items) {
			t.Fatalf("%s: sizes and noise sum to %d, want %d", method, sum, len(items))
		}
		checkNumbering(t, res)
		checkRepresentatives(t, res)
	}
}

// checkNumbering: cluster ids count up with each cluster's smallest key.
func checkNumbering(t *testing.T, res *Result) {
	t.Helper()
	smallest := map[int]string{}
	for _, m := range res.Members {
		k := memberKey(Item{Hash: m.Hash, Seq: m.Seq})
		if s, ok := smallest[m.Cluster]; m.Cluster >= 0 && (!ok || k < s) {
			smallest[m.Cluster] = k
		}
	}
	for c := 1; c < len(res.Clusters); c++ {
		if smallest[c-1] >= smallest[c] {
			t.Fatalf("cluster %d starts at %q, cluster %d at %q: not numbered by smallest key", c-1, smallest[c-1], c, smallest[c])
		}
	}
}

// checkRepresentatives: each cluster ranks min(size, 50) members 1…; noise
// none.
func checkRepresentatives(t *testing.T, res *Result) {
	t.Helper()
	ranks := map[int]map[int]bool{}
	for _, m := range res.Members {
		if m.RepresentativeRank == 0 {
			continue
		}
		if m.Cluster < 0 {
			t.Fatalf("noise member %s has rank %d", m.Hash, m.RepresentativeRank)
		}
		if ranks[m.Cluster] == nil {
			ranks[m.Cluster] = map[int]bool{}
		}
		ranks[m.Cluster][m.RepresentativeRank] = true
	}
	for _, c := range res.Clusters {
		n := min(c.Size, MaxRepresentatives)
		for r := 1; r <= n; r++ {
			if !ranks[c.ID][r] {
				t.Fatalf("cluster %d (size %d) lacks representative rank %d", c.ID, c.Size, r)
			}
		}
		if len(ranks[c.ID]) != n {
			t.Fatalf("cluster %d: %d ranks, want %d", c.ID, len(ranks[c.ID]), n)
		}
	}
}

func TestRunDeterministic(t *testing.T) {
	items, _ := topics(3, 80, 16, 0.2, 3) // 240 points: the RP-forest and descent path
	ctx := context.Background()
	a, err := Run(ctx, items, &Options{Seed: seedOf(9), Workers: 1, Space: Space{NComponents: 5}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(ctx, items, &Options{Seed: seedOf(9), Workers: 3, Space: Space{NComponents: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different worker count: results differ")
	}
	c, err := Run(ctx, items, &Options{Seed: seedOf(10), Space: Space{NComponents: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Members, c.Members) {
		t.Fatal("another seed gave the same layout")
	}
}

func TestRunDuplicates(t *testing.T) {
	items, _ := topics(3, 40, 16, 0.1, 5)
	// Three copies of item 7's text under later keys, one copy of item 0's
	// under an earlier one (which makes it the canonical), and item 3 given
	// twice under the same key.
	dup := func(src int, hash string, seq int) Item {
		it := items[src]
		return Item{Hash: hash, Seq: seq, Fingerprint: it.Fingerprint, Vector: it.Vector}
	}
	in := append([]Item{}, items...)
	in = append(in, dup(7, "z1", 0), dup(7, "z1", 2), dup(7, "z2", 1), dup(0, "a", 5), items[3])
	res, err := Run(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Members) != len(items) {
		t.Fatalf("%d members, want %d unique chunks", len(res.Members), len(items))
	}
	want := []Duplicate{
		{Fingerprint: "fd0000", CanonicalHash: "a", CanonicalSeq: 5, DuplicateHash: "d0000", DuplicateSeq: 0},
		{Fingerprint: "fd0007", CanonicalHash: "d0007", CanonicalSeq: 0, DuplicateHash: "z1", DuplicateSeq: 0},
		{Fingerprint: "fd0007", CanonicalHash: "d0007", CanonicalSeq: 0, DuplicateHash: "z1", DuplicateSeq: 2},
		{Fingerprint: "fd0007", CanonicalHash: "d0007", CanonicalSeq: 0, DuplicateHash: "z2", DuplicateSeq: 1},
	}
	if !reflect.DeepEqual(res.Duplicates, want) {
		t.Fatalf("duplicates:\n got %+v\nwant %+v", res.Duplicates, want)
	}
	for _, m := range res.Members {
		if m.Hash == "d0000" || strings.HasPrefix(m.Hash, "z") {
			t.Fatalf("duplicate occurrence %s seq %d was clustered", m.Hash, m.Seq)
		}
	}
	// Four unique chunks are too few even with many duplicates.
	few := []Item{items[0], items[1], items[2], items[3], dup(0, "y", 0), dup(1, "y", 1)}
	if _, err := Run(context.Background(), few, nil); !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "4 unique") {
		t.Fatalf("4 unique chunks: %v, want ErrInvalid naming the count", err)
	}
}

func TestRunRejectsBadVectors(t *testing.T) {
	items, _ := topics(2, 5, 8, 0.1, 1)
	bad := func(f func(v []float32) []float32) []Item {
		out := append([]Item{}, items...)
		out[4] = Item{Hash: "bad", Fingerprint: "x", Vector: f(append([]float32{}, items[4].Vector...))}
		return out
	}
	for name, in := range map[string][]Item{
		"dimension": bad(func(v []float32) []float32 { return v[:7] }),
		"NaN":       bad(func(v []float32) []float32 { v[0] = float32(math.NaN()); return v }),
		"zero":      bad(func(v []float32) []float32 { clear(v); return v }),
		"unnormed":  bad(func(v []float32) []float32 { v[0] += 1; return v }),
	} {
		_, err := Run(context.Background(), in, nil)
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "bad") {
			t.Errorf("%s: %v, want ErrInvalid naming the item", name, err)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		o    Options
		name string // "" valid
	}{
		{Options{}, ""},
		{Options{Space: Space{Method: "pca"}}, "space.method"},
		{Options{Space: Space{NComponents: 1}}, "space.nComponents"},
		{Options{Space: Space{NComponents: 101}}, "space.nComponents"},
		{Options{Space: Space{NComponents: 100, NNeighbors: 200, MinDist: f(0)}}, ""},
		{Options{Space: Space{NNeighbors: 201}}, "space.nNeighbors"},
		{Options{Space: Space{MinDist: f(1.5)}}, "space.minDist"},
		{Options{Space: Space{MinDist: f(math.NaN())}}, "space.minDist"},
		{Options{HDBSCAN: HDBSCAN{MinClusterSize: 1}}, "hdbscan.minClusterSize"},
		{Options{HDBSCAN: HDBSCAN{MinClusterSize: 100_001}}, "hdbscan.minClusterSize"},
		{Options{HDBSCAN: HDBSCAN{MinSamples: -1}}, "hdbscan.minSamples"},
		{Options{HDBSCAN: HDBSCAN{ClusterSelectionMethod: "tree"}}, "hdbscan.clusterSelectionMethod"},
		{Options{HDBSCAN: HDBSCAN{ClusterSelectionEpsilon: -0.1}}, "hdbscan.clusterSelectionEpsilon"},
		{Options{HDBSCAN: HDBSCAN{ClusterSelectionEpsilon: math.Inf(1)}}, "hdbscan.clusterSelectionEpsilon"},
		{Options{HDBSCAN: HDBSCAN{ClusterSelectionEpsilon: math.NaN()}}, "hdbscan.clusterSelectionEpsilon"},
		{Options{Seed: seedOf(-1)}, "seed"},
		{Options{Seed: seedOf(math.MaxUint32 + 1)}, "seed"},
		{Options{Seed: seedOf(math.MaxUint32)}, ""},
	} {
		err := c.o.Validate()
		if c.name == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.o, err)
			}
			continue
		}
		if !errors.Is(err, cairn.ErrInvalid) || !strings.HasPrefix(err.Error(), c.name+" ") {
			t.Errorf("%+v: %v, want ErrInvalid naming %s", c.o, err, c.name)
		}
	}
}

func TestResolve(t *testing.T) {
	for _, c := range []struct {
		o         Options
		n         int
		resolved  [4]int // nComponents, nNeighbors, minClusterSize, minSamples
		effective [4]int
		err       string
	}{
		{Options{}, 10_000, [4]int{25, 15, 50, 10}, [4]int{25, 15, 50, 10}, ""},
		{Options{}, 1_000, [4]int{25, 15, 15, 10}, [4]int{25, 15, 15, 10}, ""},
		{Options{}, 100_000, [4]int{25, 15, 150, 10}, [4]int{25, 15, 150, 10}, ""},
		// a small population caps the space and the automatic values
		{Options{}, 8, [4]int{25, 15, 15, 10}, [4]int{6, 7, 8, 8}, ""},
		{Options{HDBSCAN: HDBSCAN{MinClusterSize: 4}}, 1_000, [4]int{25, 15, 4, 4}, [4]int{25, 15, 4, 4}, ""},
		{Options{HDBSCAN: HDBSCAN{MinClusterSize: 9}}, 8, [4]int{}, [4]int{}, "hdbscan.minClusterSize 9: above"},
		{Options{HDBSCAN: HDBSCAN{MinSamples: 9}}, 8, [4]int{}, [4]int{}, "hdbscan.minSamples 9: above"},
		{Options{}, 4, [4]int{}, [4]int{}, "need at least 5"},
	} {
		r, e, err := c.o.Resolve(c.n)
		if c.err != "" {
			if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("n %d %+v: %v, want %q", c.n, c.o, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := [4]int{r.NComponents, r.NNeighbors, r.MinClusterSize, r.MinSamples}; got != c.resolved {
			t.Errorf("n %d %+v: resolved %v, want %v", c.n, c.o, got, c.resolved)
		}
		if got := [4]int{e.NComponents, e.NNeighbors, e.MinClusterSize, e.MinSamples}; got != c.effective {
			t.Errorf("n %d %+v: effective %v, want %v", c.n, c.o, got, c.effective)
		}
		if r.Method != MethodUMAP || r.MinDist != 0.1 || r.Seed != 42 || r.ClusterSelectionMethod != SelectEOM {
			t.Errorf("defaults: %+v", r)
		}
	}
}

// TestCurveAB: umap-learn's find_ab_params(spread 1, min_dist 0.1) gives
// a ≈ 1.577, b ≈ 0.895 (its documented default curve).
func TestCurveAB(t *testing.T) {
	a, b := curveAB(0.1)
	if math.Abs(a-1.577) > 0.01 || math.Abs(b-0.895) > 0.01 {
		t.Fatalf("curveAB(0.1) = %.4f, %.4f, want about 1.577, 0.895", a, b)
	}
}

// TestKNNRecall: the approximate graph against exact search on 3,000
// points (RP forest plus descent).
func TestKNNRecall(t *testing.T) {
	items, _ := topics(10, 300, 64, 0.1, 11)
	p := points{dim: 64}
	for _, it := range items {
		p.data = append(p.data, it.Vector...)
	}
	const k = 15
	g, err := buildKNN(context.Background(), p, k, 1, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	exact := newGraph(p.n(), k)
	all := make([]int, p.n())
	for i := range all {
		all[i] = i
	}
	joinLeaf(p, exact, all)
	hit := 0
	for i := range p.n() {
		got, _ := g.row(i)
		want, _ := exact.row(i)
		for _, w := range want {
			for _, x := range got {
				if x == w {
					hit++
					break
				}
			}
		}
	}
	if recall := float64(hit) / float64(p.n()*k); recall < 0.95 {
		t.Fatalf("kNN recall %.3f, want at least 0.95", recall)
	} else {
		t.Logf("kNN recall %.3f", recall)
	}
}

func TestRunCancelled(t *testing.T) {
	items, _ := topics(3, 100, 16, 0.1, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, items, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v, want context.Canceled", err)
	}
	// Cancelled in the middle of the space's SGD (its workers stop at the
	// next epoch) or of the layout beside HDBSCAN: Run returns after both.
	mid := &laterCtx{Context: context.Background(), after: 40}
	if _, err := Run(mid, items, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("run cancelled midway: %v, want context.Canceled", err)
	}
}

// laterCtx reports cancellation from its after-th Err call on.
type laterCtx struct {
	context.Context
	calls atomic.Int64
	after int64
}

func (c *laterCtx) Err() error {
	if c.calls.Add(1) > c.after {
		return context.Canceled
	}
	return nil
}

// TestRunSameAcrossGOMAXPROCS: the parallel parts (kNN, both SGDs,
// HDBSCAN) split their work by GOMAXPROCS when Workers is 0; at 640
// points every one of them splits, and the result is the same with 1 and
// 2.
func TestRunSameAcrossGOMAXPROCS(t *testing.T) {
	items, _ := topics(4, 160, 24, 0.15, 11)
	ctx := context.Background()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var runs []*Result
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		res, err := Run(ctx, items, &Options{Seed: seedOf(5), Space: Space{NComponents: 5}})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, res)
	}
	if !reflect.DeepEqual(runs[0], runs[1]) {
		t.Fatal("GOMAXPROCS 2: result differs from GOMAXPROCS 1")
	}
}

// TestSGDWorkersAgree: the SGD alone, on 2,000 points split among 1, 2
// and 7 goroutines, moves every point to the same bits.
func TestSGDWorkersAgree(t *testing.T) {
	items, _ := topics(5, 400, 16, 0.2, 12)
	p := points{dim: 16}
	for _, it := range items {
		p.data = append(p.data, it.Vector...)
	}
	ctx := context.Background()
	g, err := buildKNN(ctx, p, 14, 3, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	edges := fuzzyGraph(g, p.n(), 15)
	a, b := curveAB(0.1)
	var layouts [][]float32
	for _, workers := range []int{1, 2, 7} {
		emb := newPCA(p, 5, 3).project(p, 5, 3)
		if err := sgd(ctx, emb, edges, a, b, 30, 3, workers, nil); err != nil {
			t.Fatal(err)
		}
		layouts = append(layouts, emb.data)
	}
	for i, l := range layouts[1:] {
		if !slices.Equal(layouts[0], l) {
			t.Fatalf("workers %d: the SGD's layout differs from one worker's", []int{2, 7}[i])
		}
	}
}
