package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

func unitVec(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var s float64
	for i := range v {
		v[i] = float32(rng.NormFloat64())
		s += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(s))
	}
	return v
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestPlanRealEvery: over batches of uneven sizes, the chunks at ordinals
// 0, every, 2 every, ... are the real ones, each synthetic vector is a
// unit neighbour of the last real vector before it (cosine near
// 1/sqrt(1+noise^2)) and no other real vector, and the counts add up.
func TestPlanRealEvery(t *testing.T) {
	const dim, every, total = 512, 7, 100
	const noise = 0.1
	rng := rand.New(rand.NewPCG(1, 2))
	p := newPlan(every, noise, 3)
	var all [][]float32
	var realAt []int
	for _, n := range []int{1, 5, 13, 64, 17} { // 100 in all
		pos := p.split(n)
		real := make([][]float32, len(pos))
		for i, at := range pos {
			real[i] = unitVec(rng, dim)
			realAt = append(realAt, len(all)+at)
		}
		all = append(all, p.fill(n, real)...)
	}
	if len(all) != total || p.ordinal != total {
		t.Fatalf("%d vectors, ordinal %d, want %d", len(all), p.ordinal, total)
	}
	wantReal := (total + every - 1) / every
	if len(realAt) != wantReal || p.real != wantReal {
		t.Fatalf("%d real (plan counts %d), want %d", len(realAt), p.real, wantReal)
	}
	for i, at := range realAt {
		if at != i*every {
			t.Fatalf("real vector %d at ordinal %d, want %d", i, at, i*every)
		}
	}
	want := 1 / math.Sqrt(1+noise*noise)
	for i, v := range all {
		if l := math.Sqrt(dot(v, v)); math.Abs(l-1) > 1e-5 {
			t.Fatalf("vector %d has length %v", i, l)
		}
		if i%every == 0 {
			continue
		}
		base := all[i/every*every]
		if c := dot(v, base); math.Abs(c-want) > 0.01 {
			t.Fatalf("vector %d: cosine to its base %.4f, want about %.4f", i, c, want)
		}
		if i/every*every+every < total {
			if c := dot(v, all[i/every*every+every]); c > 0.3 {
				t.Fatalf("vector %d: cosine %.3f to the next real vector, a neighbour of the wrong base", i, c)
			}
		}
	}
}

// TestPlanDeterministic: the same seed gives the same vectors, another
// seed others.
func TestPlanDeterministic(t *testing.T) {
	base := unitVec(rand.New(rand.NewPCG(5, 6)), 64)
	run := func(seed uint64) [][]float32 {
		p := newPlan(4, 0.1, seed)
		p.split(8)
		return p.fill(8, [][]float32{base, base})
	}
	a, b, c := run(9), run(9), run(10)
	for i := range a {
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("seed 9 twice differs at %d/%d", i, j)
			}
		}
	}
	if a[1][0] == c[1][0] && a[1][1] == c[1][1] {
		t.Fatal("seeds 9 and 10 gave the same neighbour")
	}
}

// TestEveryOne: every 1 makes every chunk real.
func TestEveryOne(t *testing.T) {
	p := newPlan(1, 0.1, 1)
	if got := p.split(5); len(got) != 5 {
		t.Fatalf("split(5) with every 1: %v", got)
	}
}
