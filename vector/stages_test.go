package vector

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the calling thread's CPU time: descheduling by other
// work on the machine does not count in it.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// TestSearchStages logs the thread CPU time of each stage of a search on
// one goroutine (no split), median and minimum over 100 queries, on
// BenchmarkScale's data: where a query's work goes, whatever the load. It
// runs only with CAIRN_VECTOR_STAGES set to the index size:
//
//	CAIRN_VECTOR_STAGES=1000000 go test -run TestSearchStages -v -timeout 0 ./vector/
func TestSearchStages(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CAIRN_VECTOR_STAGES"))
	if n <= 0 {
		t.Skip("set CAIRN_VECTOR_STAGES to the index size to time the search stages")
	}
	g := newClustered(uint64(n)+7, 384, 1000, 1)
	ix := New(384)
	ix.Grow(n)
	for i := range n {
		if err := ix.Add(int64(i), g.next()); err != nil {
			t.Fatal(err)
		}
	}
	qs := queries(g, 120)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	names := []string{"full scan", "full collect", "full scan, prefetch", "prefix scan", "prefix collect", "kept full distances", "kept collect", "narrow", "rescore"}
	took := make([][]time.Duration, len(names))
	var o SearchOptions
	o.setDefaults(10, n)
	keep := prefixKeep(o.Pool, n)
	p := ix.prefixCodes()
	for i, q := range qs {
		s := ix.scratch(n, 10)
		signCode(s.qcode, q)
		var at [10]time.Duration
		at[0] = threadCPU()
		clear(s.hist)
		scanCodes(ix.codes, s.qcode, s.dist, s.hist)
		at[1] = threadCPU()
		cut, atCut := cutoff(s.hist, o.Pool)
		full := collect(s.dist, cut, atCut, nil)
		at[2] = threadCPU()
		clear(s.hist)
		scanPopcnt6P(&ix.codes[0], &s.qcode[0], &s.dist[0], n, &s.hist[0])
		at[3] = threadCPU()
		hist := s.phist[:64*prefixWords+1]
		clear(hist)
		scanCodes(p, s.qcode[:prefixWords], s.dist, hist)
		at[4] = threadCPU()
		cut, atCut = cutoff(hist, keep)
		kept := collect(s.dist, cut, atCut, nil)
		at[5] = threadCPU()
		d := make([]uint16, len(kept))
		clear(s.hist)
		scanSlots(ix.codes, s.qcode, kept, d, s.hist)
		at[6] = threadCPU()
		cut, atCut = cutoff(s.hist, o.Pool)
		_ = collect(d, cut, atCut, nil)
		at[7] = threadCPU()
		cand := ix.narrow(s, q, full, o.Candidates)
		at[8] = threadCPU()
		top := topK{h: s.heap[:0], k: 10}
		for _, slot := range cand {
			top.push(Result{Key: ix.keys[slot], Score: dot(q, ix.vector(slot))})
		}
		at[9] = threadCPU()
		s.heap = top.h
		ix.pool.put(s)
		if i >= 20 {
			for j := range names {
				took[j] = append(took[j], at[j+1]-at[j])
			}
		}
	}
	for j, name := range names {
		l := took[j]
		slices.Sort(l)
		t.Logf("n=%d %-20s thread CPU median %.3f ms, min %.3f", n, name, float64(l[len(l)/2].Microseconds())/1000, float64(l[0].Microseconds())/1000)
	}
}
