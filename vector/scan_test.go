package vector

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestScanKernels compares scanCodes (the assembly loops on amd64) with the
// Go reference on random codes of every width from 1 to 9 words and odd
// item counts, with queries near and far from the codes.
func TestScanKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for words := 1; words <= 9; words++ {
		for _, n := range []int{0, 1, 2, 3, 5, 17, 1001} {
			codes := make([]uint64, n*words)
			for i := range codes {
				codes[i] = rng.Uint64()
			}
			q := make([]uint64, words)
			for i := range q {
				q[i] = rng.Uint64()
			}
			if n > 0 {
				copy(codes[words*(n/2):], q) // one item at distance 0
				codes[len(codes)-1] = ^q[words-1]
			}
			want, got := make([]uint16, n), make([]uint16, n)
			wantH, gotH := make([]int32, 64*words+1), make([]int32, 64*words+1)
			scanCodesGo(codes, q, want, wantH)
			scanCodes(codes, q, got, gotH)
			if !slices.Equal(got, want) || !slices.Equal(gotH, wantH) {
				t.Fatalf("words %d, n %d: scanCodes = %v (hist %v), want %v (hist %v)", words, n, got, gotH, want, wantH)
			}
		}
	}
}

// TestCollect compares collect's four-at-a-time test with the plain loop
// on random distances (skipped items among them) for odd lengths and cuts
// at, below and above every distance.
func TestCollect(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{0, 1, 3, 4, 5, 7, 64, 1001} {
		dist := make([]uint16, n)
		for i := range dist {
			switch rng.IntN(8) {
			case 0:
				dist[i] = skip
			case 1:
				dist[i] = uint16(rng.IntN(3))
			default:
				dist[i] = uint16(170 + rng.IntN(40))
			}
		}
		for _, cut := range []int{0, 1, 2, 170, 185, 209, 210, 32767, skip} {
			for _, atCut := range []int{0, 1, 3, n} {
				want := collectFrom(dist, 0, cut, atCut, nil)
				if got := collect(dist, cut, atCut, nil); !slices.Equal(got, want) {
					t.Fatalf("n %d, cut %d, atCut %d: collect = %v, want %v", n, cut, atCut, got, want)
				}
			}
		}
	}
}

// TestScanSplit checks that a scan split over goroutines gives the
// distances and histogram of one scan, for an index large enough to split
// into two, three and four parts.
func TestScanSplit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(15, 16))
	n := 4*splitMin + 3
	ix := New(100) // two words a code
	ix.keys = make([]int64, n)
	ix.codes = make([]uint64, n*ix.words)
	for i := range ix.codes {
		ix.codes[i] = rng.Uint64() &^ (1<<63 | 1<<62) // padding bits clear, as signCode leaves them
	}
	q := []uint64{rng.Uint64(), rng.Uint64() & (1<<36 - 1)}
	want, wantH := make([]uint16, n), make([]int32, 129)
	scanCodesGo(ix.codes, q, want, wantH)
	for _, procs := range []int{1, 2, 3, 4, 8} {
		runtime.GOMAXPROCS(procs)
		s := ix.scratch(n, 10)
		copy(s.qcode, q)
		clear(s.hist)
		ix.scanSplit(s)
		if !slices.Equal(s.dist, want) || !slices.Equal(s.hist, wantH) {
			t.Fatalf("GOMAXPROCS %d: split scan differs from one scan", procs)
		}
		ix.pool.put(s)
	}
}
