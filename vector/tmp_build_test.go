package vector

import (
	"testing"
	"time"
	"runtime"
)

func TestTmpBuild(t *testing.T) {
	g := newClustered(9, 384, 1000, 1)
	vs := queries(g, 10_000)
	ix := New(384)
	start := time.Now()
	for i := range 1_000_000 {
		ix.Add(int64(i), vs[i%len(vs)])
	}
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	t.Logf("build 1M: %v, heap %d MB, sys %d MB", time.Since(start), m.HeapAlloc>>20, m.Sys>>20)
}
