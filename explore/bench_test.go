package explore

import (
	"context"
	"testing"
)

// BenchmarkExplore walks a random graph of 10,000 memories from three
// seeds (the full benchmark with a topic generator is bench/cmd/explorebench).
func BenchmarkExplore(b *testing.B) {
	ms, ls := randomGraph(1, 10000)
	x := New(Build(ms, ls), nil, nil)
	req := &Request{IDs: []string{"m0001", "m0500", "m1500"}}
	for b.Loop() {
		if _, err := x.Explore(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
