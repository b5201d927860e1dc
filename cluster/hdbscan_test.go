package cluster

import (
	"context"
	"math"
	"slices"
	"testing"
)

func flatPoints(rows [][]float32) points {
	p := points{dim: len(rows[0])}
	for _, r := range rows {
		p.data = append(p.data, r...)
	}
	return p
}

// canon renumbers labels by first appearance, keeping −1.
func canon(labels []int) []int {
	m := map[int]int{-1: -1}
	out := make([]int, len(labels))
	for i, l := range labels {
		if _, ok := m[l]; !ok {
			m[l] = len(m) - 1
		}
		out[i] = m[l]
	}
	return out
}

func runHDBSCAN(t *testing.T, rows [][]float32, hp hdbscanParams) flat {
	t.Helper()
	if hp.method == "" {
		hp.method = SelectEOM
	}
	fl, err := hdbscan(context.Background(), flatPoints(rows), hp)
	if err != nil {
		t.Fatal(err)
	}
	return fl
}

// TestHDBSCANLine: two runs of five points one apart (0…4, 100…104), a
// point at 50 and one at 300. With minSamples 1 (single linkage) and
// minClusterSize 3 the tree by hand: merges at 1 (inside the runs), 46 (50
// joins 4), 50 (the two sides meet), 196 (300 joins last). From the root:
// at distance 196 the one-point side {300} falls out of the root (λ
// 1/196), so 300 is noise; at 50 both sides have at least 3 points and
// become clusters A = {0…4, 50} and B = {100…104} (born at λ 1/50); A
// sheds 50 at λ 1/46 and goes on; at distance 1 everything falls out
// (λ 1). Stabilities: A = 5·(1 − 1/50) + (1/46 − 1/50), B = 5·(1 − 1/50);
// the root is no candidate, so A and B are the clusters. 50 belongs to A,
// as HDBSCAN labels a point that left a selected cluster, with
// probability (1/46)/1.
func TestHDBSCANLine(t *testing.T) {
	var rows [][]float32
	for _, x := range []float32{0, 1, 2, 3, 4, 50, 100, 101, 102, 103, 104, 300} {
		rows = append(rows, []float32{x})
	}
	fl := runHDBSCAN(t, rows, hdbscanParams{minClusterSize: 3, minSamples: 1})
	want := []int{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, -1}
	if got := canon(fl.labels); !slices.Equal(got, want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
	for i, p := range fl.prob {
		w := 1.0
		switch {
		case i == 5:
			w = 1.0 / 46
		case want[i] < 0:
			w = 0
		}
		if math.Abs(p-w) > 1e-9 {
			t.Errorf("point %d probability %v, want %v", i, p, w)
		}
	}
	// GLOSH: 1 − λ(left) / the deepest λ below the cluster it left (1).
	for i, w := range map[int]float64{5: 1 - 1.0/46, 11: 1 - 1.0/196, 0: 0} {
		if got := fl.outlier[i]; math.Abs(got-w) > 1e-9 {
			t.Errorf("outlier score of point %d: %v, want %v", i, got, w)
		}
	}
	// Leaf selection (allowSingleCluster makes no difference: the root has
	// children) finds the same two clusters.
	leaf := runHDBSCAN(t, rows, hdbscanParams{minClusterSize: 3, minSamples: 1, method: SelectLeaf, allowSingle: true})
	if got := canon(leaf.labels); !slices.Equal(got, want) {
		t.Fatalf("leaf labels %v, want %v", got, want)
	}
	// Epsilon 60 is above A's and B's birth distance (50): each is replaced
	// by its parent, the root, which only allowSingle allows.
	eps := runHDBSCAN(t, rows, hdbscanParams{minClusterSize: 3, minSamples: 1, epsilon: 60})
	if got := canon(eps.labels); !slices.Equal(got, want) {
		t.Fatalf("epsilon without allowSingle: labels %v, want %v", got, want)
	}
	// With it, the root is the one cluster and keeps the points that left at
	// λ ≥ 1/60: all but 300 (λ 1/196).
	one := runHDBSCAN(t, rows, hdbscanParams{minClusterSize: 3, minSamples: 1, epsilon: 60, allowSingle: true})
	if got := canon(one.labels); !slices.Equal(got, []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1}) {
		t.Fatalf("epsilon with allowSingle: labels %v, want one cluster and 300 noise", got)
	}
}

// blobs: three 4×5 grids of spacing 0.1 at (0,0), (10,0) and (0,10), and
// two more points: (5, 5) joins the nearest grid (at (0.3, 0.4), 6.6 away)
// before the grids meet (9.6 apart), so it leaves that grid's cluster and
// belongs to it with a low probability; (20, 20) is farther from every
// grid (21.9) than they are from each other, falls out of the root and is
// noise.
func blobs() (rows [][]float32, want []int) {
	centres := [][2]float32{{0, 0}, {10, 0}, {0, 10}}
	for c, ctr := range centres {
		for i := range 4 {
			for j := range 5 {
				rows = append(rows, []float32{ctr[0] + 0.1*float32(i), ctr[1] + 0.1*float32(j)})
				want = append(want, c)
			}
		}
	}
	rows = append(rows, []float32{5, 5}, []float32{20, 20})
	want = append(want, 0, -1)
	return rows, want
}

func TestHDBSCANBlobs(t *testing.T) {
	rows, want := blobs()
	for _, method := range []string{SelectEOM, SelectLeaf} {
		fl := runHDBSCAN(t, rows, hdbscanParams{minClusterSize: 5, minSamples: 5, method: method})
		if got := canon(fl.labels); !slices.Equal(got, want) {
			t.Fatalf("%s: labels %v, want %v", method, got, want)
		}
	}
}

// moons: two interleaved half circles of 50 points each, without noise
// (the classic shape k-means cannot separate): the upper one centred at
// (0, 0), the lower at (1, 0.5), radius 1.
func moons() (rows [][]float32, want []int) {
	for i := range 50 {
		t := math.Pi * float64(i) / 49
		rows = append(rows, []float32{float32(math.Cos(t)), float32(math.Sin(t))})
		want = append(want, 0)
	}
	for i := range 50 {
		t := math.Pi * float64(i) / 49
		rows = append(rows, []float32{float32(1 - math.Cos(t)), float32(0.5 - math.Sin(t))})
		want = append(want, 1)
	}
	return rows, want
}

func TestHDBSCANMoons(t *testing.T) {
	rows, want := moons()
	fl := runHDBSCAN(t, rows, hdbscanParams{minClusterSize: 10, minSamples: 5})
	if got := canon(fl.labels); !slices.Equal(got, want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
}

func TestMSTWorkersAgree(t *testing.T) {
	var rows [][]float32
	for i := range 3000 {
		x := float64(i)
		rows = append(rows, []float32{float32(math.Sin(x * 0.7)), float32(math.Cos(x * 1.3)), float32(math.Sin(x * 0.11))})
	}
	p := flatPoints(rows)
	ctx := context.Background()
	c1, _ := coreDistances(ctx, p, 5, 1)
	c4, _ := coreDistances(ctx, p, 5, 4)
	if !slices.Equal(c1, c4) {
		t.Fatal("core distances differ by worker count")
	}
	m1, _ := primMST(ctx, p, c1, 1)
	m4, _ := primMST(ctx, p, c4, 4)
	if !slices.Equal(m1, m4) {
		t.Fatal("spanning tree differs by worker count")
	}
}

func TestAdjustedRand(t *testing.T) {
	for _, c := range []struct {
		a, b []int
		want float64
	}{
		{[]int{0, 0, 1, 1}, []int{5, 5, 7, 7}, 1},
		{[]int{0, 0, 1, 1}, []int{0, 1, 0, 1}, -0.5},
		// sklearn's documented example: adjusted_rand_score([0,0,1,2], [0,0,1,1]) = 0.5714…
		{[]int{0, 0, 1, 2}, []int{0, 0, 1, 1}, 0.5714285714285714},
	} {
		if got := AdjustedRand(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("AdjustedRand(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestPowPos(t *testing.T) {
	for _, x := range []float64{1e-9, 0.001, 0.3, 1, 1.7, 2, 10, 123.4, 1e6} {
		for _, y := range []float64{0.79, 0.895, 1, 1.5, -0.105} {
			got, want := powPos(x, y), math.Pow(x, y)
			if math.Abs(got-want) > 1e-6*want {
				t.Errorf("powPos(%v, %v) = %v, want %v", x, y, got, want)
			}
		}
	}
}
