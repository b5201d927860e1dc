// Package vector is an in-process index for exact-quality top-k search of
// unit-length float32 embeddings by dot product (cosine), with filters.
//
// Quick start:
//
//	ix := vector.New(384)
//	ix.Grow(len(chunks)) // optional: one allocation for a bulk load
//	for _, c := range chunks {
//		if err := ix.Add(c.ID, c.Embedding); err != nil {
//			return err
//		}
//	}
//	hits := ix.Search(q, 10, &vector.SearchOptions{
//		Filter: func(id int64) bool { return inCorpus[id] },
//	})
//
// # Three-stage search
//
// Scoring every item with a float32 dot product reads dim*4 bytes and does
// dim multiply-adds per item: 1.5 KB and 384 of them at dimension 384. Search
// instead ranks every item by the Hamming distance between sign-bit codes
// (one bit per dimension, set when the component is >= 0; 48 bytes and six
// XOR+POPCNT at dimension 384) and keeps the Pool nearest (default 5 times
// Candidates). It ranks those again by an asymmetric estimate, the float
// query against the item's signs, computed with one table lookup per code
// byte (narrow.go), keeps the Candidates best (default max(300, 20k)), and
// rescores only those exactly. For unit vectors the fraction of differing
// sign bits estimates the angle between them, so the true top 10 lands
// among the nearest codes with high probability; the asymmetric estimate
// keeps the query's precision and picks the rescored few far better when
// the vectors share a mean direction, as real sentence embeddings do; the
// rescoring then makes the returned scores and order exact for whatever it
// found.
//
// The candidate cut needs no heap: a distance is at most dim, so the scan
// counts items per distance, the cut-off is read off that histogram, and a
// second pass over the stored distances collects the candidates. Filters run
// before ranking, so only passing items compete: a filter passing fewer
// items than Candidates makes the search exact.
//
// Measured on the test data (clustered unit vectors: 100 or 1000 random
// centroids plus Gaussian noise at cosine about 0.7 from the centroid; see
// TestRecallReport and BenchmarkSearch), one core of a 2-vCPU AMD EPYC VM,
// Go 1.26, default GOAMD64=v1, top 10:
//
//	n=20k   dim=384  recall@10 1.000 (400 candidates), 0.999 (200), 0.905 (100), Hamming only
//	n=20k   dim=384  Search 0.25 ms   Exact 3.0 ms    (400 candidates, Hamming only)
//	n=100k  dim=384  Search 0.66 ms   Exact 14.5 ms   half filtered 0.75 ms (the same)
//	n=1M    dim=384  Search 4.3 ms    Exact 151 ms    half filtered 4.9 ms (the same)
//	n=100k  dim=384  Search 0.72 ms   half filtered 0.81 ms (defaults: 300 of a 1,500 pool)
//	n=1M    dim=384  Search 4.5 ms    half filtered 5.5 ms (the same)
//	n=1M    dim=384  Search 5.0 ms p50, 10.8 ms p99, recall@10 0.999 (625 candidates:
//	                 the default grows with n; 300 gave 0.952; BenchmarkScale)
//
// Built with GOAMD64=v3 the compiler emits POPCNT without a run-time CPU
// check; the code scan alone then runs about 1.8x faster and Search takes
// 0.57 ms at 100k and 3.5 ms at 1M. The scan is therefore written in
// assembly on amd64 (scan_amd64.s: POPCNT checked once per process, the
// query's words in registers), whatever GOAMD64 says; the Go loops stay as
// the reference and the fallback. At 1M x 384 the scan reads 48 MB of
// codes, more than one core's share of memory bandwidth moves in a few
// milliseconds, so an index of 2^19 items or more splits the scan between
// GOMAXPROCS goroutines (collect.go), each with its own histogram; the
// search waits for all of them, and the candidate pass that follows tests
// four distances at a time. Measured alternating query by query in one
// process at 1M x 384 (load average 18 to 22 from other work on the two
// cores): p50 50.5 ms before, 29.7 ms with the assembly scan, 27.8 ms split;
// recall@10 0.999 for all three (bench/RESULTS.md). The scan is bound by
// memory (one core read about 11 GB/s of codes here), so the loops also ask
// for the codes 2 KB ahead (PREFETCHT0): the one-goroutine scan of 1M codes
// took 4.26 against 5.58 ms thread CPU, and Search's p50 fell from 43.9 to
// 36.2 ms at a load of 22 to 28 (TestSearchStages, TestScanVariants). A
// first pass over a 128-bit prefix of each code, keeping the nearest 6% for
// the full distance, was measured and dropped: gathering the kept codes at
// random offsets cost more than the sequential scan it saved, and it lost
// recall where vectors share a mean direction (commit dcd2328).
//
// # Coarse lists
//
// At 1M items the full scan is the query (48 MB of codes at dimension
// 384, bound by memory bandwidth). BuildLists partitions an index into
// k-means lists (about 2,048 items a list, trained on a sample; lists.go)
// and moves the items list by list, so Search ranks the centroids against
// the query and scans only the nearest lists' codes, in order, before the
// same asymmetric and exact stages: SearchOptions.Probe says how many
// items the probed lists must hold (default an eighth of the index, at
// least 8 lists and 8 pools). Items added later go to a tail every probe
// scans; a replaced or removed item inside a list, or a tail past a
// quarter of the index, turns the lists off until the next BuildLists. A
// filter passing under half of the probed items falls back to the full
// scan. SaveLists and LoadLists keep the lists in a file beside the index
// file, bound to it by stamp, count and checksum (listfile.go). The engine
// builds lists for indexes of ListsMin items or more.
//
// Sign codes lose information when all vectors share a large common
// component (every pair agrees on those bits). On 105k USE-lite chunk
// vectors (dimension 512, mean of norm 0.81) Hamming distance with 400
// rescored candidates found 0.956 of the exact top 10; with the asymmetric
// stage, 300 rescored of a 1,500 pool found 0.984, in about the same time
// (the stage costs 62 µs, BenchmarkNarrow). Centering the codes did worse
// there (0.80 and 0.72 at 400): the ranking is by dot product with the
// query, not by the angle between centered vectors. TestRecallShifted keeps
// a synthetic fixture with such a mean direction. Exact, or
// SearchOptions.Exact, gives the reference ranking.
//
// # Memory
//
// Keys, codes and vectors are three dense arrays indexed by slot. On Linux
// arrays of 2 MB or more live in anonymous mappings the kernel is asked to
// back with 2 MB pages (mem.go): Search's random reads of codes and vectors
// otherwise miss the TLB on nearly every item, which is expensive on a
// virtual machine. Save writes the arrays as they are and Load maps the file;
// Settle then copies a mapped index into its own (huge-page) memory while
// searches go on.
package vector
