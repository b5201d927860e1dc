package cluster

import (
	"context"
	"testing"
)

// BenchmarkRun: the whole pipeline on 5,000 synthetic 512-dimensional unit
// vectors around 16 centres (clusterbench measures real embeddings).
func BenchmarkRun(b *testing.B) {
	items, _ := topics(16, 5000/16, 512, 0.04, 2)
	for b.Loop() {
		if _, err := Run(context.Background(), items, nil); err != nil {
			b.Fatal(err)
		}
	}
}
