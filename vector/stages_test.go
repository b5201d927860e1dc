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
// one goroutine (no split), median and minimum over 200 queries, on
// BenchmarkScale's data: where a query's work goes, whatever the load. The
// code scan runs twice, with and without the prefetch hint, in alternating
// order. It runs only with CAIRN_VECTOR_STAGES set to the index size:
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
	qs := queries(g, 220)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	names := []string{"code scan, no prefetch", "code scan, prefetch", "candidate pass", "asymmetric stage", "exact rescoring"}
	took := make([][]time.Duration, len(names))
	var o SearchOptions
	o.setDefaults(10, n)
	for i, q := range qs {
		s := ix.scratch(n, 10)
		signCode(s.qcode, q)
		var d [5]time.Duration
		for _, v := range []int{i % 2, 1 - i%2} {
			clear(s.hist)
			t0 := threadCPU()
			if v == 0 {
				scanCodesPlain(ix.codes, s.qcode, s.dist, s.hist)
			} else {
				scanCodes(ix.codes, s.qcode, s.dist, s.hist)
			}
			d[v] = threadCPU() - t0
		}
		t0 := threadCPU()
		cut, atCut := cutoff(s.hist, o.Pool)
		pool := collect(s.dist, cut, atCut, s.cand[:0])
		t1 := threadCPU()
		cand := ix.narrow(s, q, pool, o.Candidates)
		t2 := threadCPU()
		top := topK{h: s.heap[:0], k: 10}
		for _, slot := range cand {
			top.push(Result{Key: ix.keys[slot], Score: dot(q, ix.vector(slot))})
		}
		t3 := threadCPU()
		s.cand, s.heap = pool, top.h
		ix.pool.put(s)
		d[2], d[3], d[4] = t1-t0, t2-t1, t3-t2
		if i >= 20 {
			for j := range names {
				took[j] = append(took[j], d[j])
			}
		}
	}
	for j, name := range names {
		l := took[j]
		slices.Sort(l)
		t.Logf("n=%d %-22s thread CPU median %.3f ms, min %.3f, p90 %.3f", n, name,
			ms(l[len(l)/2]), ms(l[0]), ms(l[len(l)*9/10]))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
