// Command hybridbench measures hybrid search with the in-process USE-lite
// encoder: it generates the benchmark corpus, syncs it (timing the
// embedding), then runs the query list in hybrid, vector and lexical modes
// and reports latency percentiles.
//
//	go run -tags sqlite_fts5 ./bench/cmd/hybridbench -notes 50000 -shared ../shared
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/tokenize"
	"github.com/cairnmemory/cairn/vector"
)

func main() {
	notes := flag.Int("notes", 50000, "notes in the corpus")
	queries := flag.Int("queries", 500, "queries per mode")
	shared := flag.String("shared", "../shared", "folder holding models/use-lite and lib/onnxruntime")
	out := flag.String("out", "", "work directory, kept and reused by later runs (default: a temporary one, removed)")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the query runs to this file")
	flag.StringVar(&memProfile, "memprofile", "", "write an allocation profile of the query runs to this file")
	modeList := flag.String("modes", "hybrid,vector,lexical", "comma-separated modes to time")
	flag.BoolVar(&recall, "recall", false, "also measure the vector index's recall@10 against exact search on the query embeddings")
	flag.IntVar(&slowest, "slowest", 0, "also list the N slowest queries of each mode")
	flag.StringVar(&dataDir, "data", "", "data directory (default OUT/data): a copy of a kept index, so the kept one stays read only")
	flag.IntVar(&synthetic, "synthetic", 0, "also time the vector half of hybrid (real query embedding + vector search) over a lane of this many vectors: the index's real ones plus synthetic neighbours of them")
	flag.BoolVar(&withInt8, "int8", false, "also an INT8 query embedder (onnx.QuantizeInt8): the query embedding line and the synthetic lane again with FP32 and INT8 alternating query by query (the index stays FP32's)")
	flag.Parse()
	modes = strings.Split(*modeList, ",")
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "hybridbench:", err)
			os.Exit(1)
		}
		defer f.Close()
		cpuProfile = f
	}
	if err := run(*notes, *queries, *shared, *out); err != nil {
		fmt.Fprintln(os.Stderr, "hybridbench:", err)
		os.Exit(1)
	}
}

// memProfile, when set, names the file for an allocation profile.
var memProfile string

// modes are the search modes timed.
var modes []string

// recall asks for the vector index's recall against exact search.
var recall bool

// slowest is how many of each mode's slowest queries to list.
var slowest int

// dataDir, when set, is the data directory instead of OUT/data.
var dataDir string

// synthetic, when set, is the size of the synthetic vector lane.
var synthetic int

// withInt8 adds the INT8 query embedder's lines; int8Emb is it.
var (
	withInt8 bool
	int8Emb  cairn.Embedder
)

// cpuProfile, when set, receives a CPU profile of the query runs.
var cpuProfile *os.File

func run(notes, nq int, shared, work string) error {
	ctx := context.Background()
	if work == "" {
		tmp, err := os.MkdirTemp("", "hybridbench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	// A kept work directory is reused as it is: its index and vectors
	// make a second run measure queries only.
	dir := filepath.Join(work, "notes")
	if _, err := os.Stat(dir); err != nil {
		if _, _, err := corpus.Generate(dir, corpus.Options{Notes: notes, Seed: 1}); err != nil {
			return err
		}
	}
	emb, err := newEmbedder(shared, onnx.QuantizeNone)
	if err != nil {
		return err
	}
	if withInt8 {
		e8, err := newEmbedder(shared, onnx.QuantizeInt8)
		if err != nil {
			return err
		}
		defer e8.Close()
		int8Emb = e8
	}
	if dataDir == "" {
		dataDir = filepath.Join(work, "data")
	}
	eng, err := local.Open(ctx, engine.Options{Dir: dataDir, Embedder: emb,
		Corpora: []cairn.Corpus{{Name: "bench", Kind: cairn.KindFiles, Paths: []string{dir}}}})
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	t0 := time.Now()
	res, err := eng.Sync(ctx, nil)
	if err != nil {
		return err
	}
	secs := time.Since(t0).Seconds()
	fmt.Printf("%d notes, %d chunks: sync with embedding %.1fs (%d chunks embedded, %.0f chunks/s overall)\n",
		notes, res.Corpora[0].Chunks, secs, res.Embedded, float64(res.Embedded)/secs)
	qs := corpus.Queries(nq, 1)
	if cpuProfile != nil {
		if err := pprof.StartCPUProfile(cpuProfile); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	t1 := time.Now()
	if _, err := eng.Search(ctx, qs[0], &cairn.SearchOptions{Mode: cairn.ModeVector}); err != nil {
		return err
	}
	fmt.Printf("first vector query (loads the index): %.0f ms\n", float64(time.Since(t1).Microseconds())/1000)
	// Warm, as cairnbench's library searches are: one pass over the query
	// list in every mode first (the lexical lane caches term counts per
	// index generation; the first vector query loads the index), and the
	// garbage of that is collected before anything is timed.
	for _, mode := range modes {
		for _, q := range qs {
			eng.Search(ctx, q, &cairn.SearchOptions{Mode: mode})
		}
	}
	runtime.GC()
	if memProfile != "" {
		runtime.MemProfileRate = 4096
	}
	// The query embedding alone, which the vector lane pays on every query.
	var lat []time.Duration
	for _, q := range qs {
		t := time.Now()
		if _, err := emb.Embed(ctx, cairn.EmbedQuery, []string{q}); err != nil {
			return err
		}
		lat = append(lat, time.Since(t))
	}
	printLatency("embed", lat, 0)
	if int8Emb != nil {
		if err := embedAB(ctx, emb, int8Emb, qs); err != nil {
			return err
		}
	}
	for _, mode := range modes {
		var lat []time.Duration
		type timed struct {
			q string
			d time.Duration
		}
		var all []timed
		errs := 0
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for _, q := range qs {
			t := time.Now()
			if _, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: mode}); err != nil {
				errs++ // stop-word-only queries in lexical mode
				continue
			}
			lat = append(lat, time.Since(t))
			all = append(all, timed{q, lat[len(lat)-1]})
		}
		runtime.ReadMemStats(&m1)
		printLatency(mode, lat, errs)
		fmt.Printf("%-8s allocated %.0f KB a query, %d GC cycles in the run\n", "", float64(m1.TotalAlloc-m0.TotalAlloc)/float64(len(qs))/1024, m1.NumGC-m0.NumGC)
		slices.SortFunc(all, func(a, b timed) int { return int(b.d - a.d) })
		for _, t := range all[:min(slowest, len(all))] {
			fmt.Printf("    %6.2f ms  %s\n", float64(t.d.Microseconds())/1000, t.q)
		}
	}
	if recall {
		if err := measureRecall(ctx, emb, filepath.Join(dataDir, "vectors.bin"), qs); err != nil {
			return err
		}
	}
	if synthetic > 0 {
		if err := measureSynthetic(ctx, emb, filepath.Join(dataDir, "vectors.bin"), qs, synthetic); err != nil {
			return err
		}
	}
	if memProfile != "" {
		f, err := os.Create(memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			return err
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("heap in use %.0f MB after the runs\n", float64(ms.HeapInuse)/(1<<20))
	// Linux: how much of the process sits on 2 MB pages (the vector index
	// after Settle, see vector/mem.go).
	if b, err := os.ReadFile("/proc/self/smaps_rollup"); err == nil {
		var rss, huge int64
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			if len(f) >= 2 && f[0] == "Rss:" {
				fmt.Sscan(f[1], &rss)
			} else if len(f) >= 2 && f[0] == "AnonHugePages:" {
				fmt.Sscan(f[1], &huge)
			}
		}
		fmt.Printf("resident %d MB, of it on huge pages %d MB\n", rss>>10, huge>>10)
	}
	return nil
}

func newEmbedder(shared, quantize string) (*onnx.Embedder, error) {
	return onnx.New(onnx.Options{ModelDir: filepath.Join(shared, "models", "use-lite"),
		Library:       filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }, Quantize: quantize})
}

// embedAB times the query embedding alone with the FP32 and the INT8
// embedder alternating query by query, the order flipped every query.
func embedAB(ctx context.Context, fp32, int8 cairn.Embedder, qs []string) error {
	lat := [2][]time.Duration{}
	embs := [2]cairn.Embedder{fp32, int8}
	for i, q := range qs {
		for j := range 2 {
			side := j ^ (i % 2)
			t := time.Now()
			if _, err := embs[side].Embed(ctx, cairn.EmbedQuery, []string{q}); err != nil {
				return err
			}
			lat[side] = append(lat[side], time.Since(t))
		}
	}
	printLatency("embed-fp32", lat[0], 0)
	printLatency("embed-int8", lat[1], 0)
	return nil
}

// printLatency prints one line of percentiles; refused counts queries a
// mode refused (only stop words in lexical mode).
func printLatency(name string, lat []time.Duration, refused int) {
	if refused > 0 {
		fmt.Printf("%-8s %d queries refused (only stop words)\n", name, refused)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	fmt.Printf("%-8s n=%d p50 %.2f ms  p95 %.2f ms  p99 %.2f ms  max %.2f ms\n", name, len(lat), pct(0.5), pct(0.95), pct(0.99), pct(1))
}

// measureRecall loads the vector index file the engine wrote and reports,
// for the query embeddings, recall@10 of Search against Exact with the
// default options, with Hamming distance alone (the pool stage off) and
// with more candidates.
func measureRecall(ctx context.Context, emb cairn.Embedder, path string, qs []string) error {
	st, err := vector.FileStamp(path)
	if err != nil {
		return err
	}
	ix, err := vector.Load(path, st, true)
	if err != nil {
		return err
	}
	vs, err := emb.Embed(ctx, cairn.EmbedQuery, qs)
	if err != nil {
		return err
	}
	exact := make([]map[int64]bool, len(vs))
	for i, v := range vs {
		exact[i] = map[int64]bool{}
		for _, r := range ix.Exact(v, 10, nil) {
			exact[i][r.Key] = true
		}
	}
	for _, o := range []struct {
		name string
		opts vector.SearchOptions
	}{
		{"default (300 of a 1,500 pool)", vector.SearchOptions{}},
		{"Hamming only, 300", vector.SearchOptions{Candidates: 300, Pool: 1}},
		{"Hamming only, 400", vector.SearchOptions{Candidates: 400, Pool: 1}},
		{"600 of a 3,000 pool", vector.SearchOptions{Candidates: 600}},
	} {
		hit, total := 0, 0
		start := time.Now()
		for i, v := range vs {
			opts := o.opts
			for _, r := range ix.Search(v, 10, &opts) {
				if exact[i][r.Key] {
					hit++
				}
			}
			total += len(exact[i])
		}
		took := time.Since(start) / time.Duration(len(vs))
		fmt.Printf("recall@10 %-30s %.4f  %.2f ms/query (%d items)\n", o.name, float64(hit)/float64(total), float64(took.Microseconds())/1000, ix.Len())
	}
	return nil
}
