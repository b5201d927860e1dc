// Command hybridbench measures hybrid search with the in-process USE-lite
// encoder: it generates the benchmark corpus, syncs it (timing the
// embedding), then runs the query list in hybrid, vector and lexical modes
// and reports latency percentiles.
//
//	go run -tags sqlite_fts5 ./bench/cmd/hybridbench -notes 50000 -shared ../shared
//
// -quantize int8 embeds the index with INT8 weights (the identity
// "+int8"; on a CPU with VNNI about half FP32's CPU a chunk) and answers
// queries with them. -int8 adds the other model beside the index's: the
// query embedding line, the hybrid split (stages.go) and the synthetic
// lane with FP32 and INT8 query embeddings alternating query by query,
// both under the index's identity (the cost of a query's embedding and
// search does not depend on which model embedded the index). -stages
// splits hybrid searches into query embedding, index search, the rest
// and the lexical search of the same query.
package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/cairnmemory/cairn/bench/procstat"
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
	flag.BoolVar(&withInt8, "int8", false, "also the other model (INT8 beside an FP32 index, FP32 beside an INT8 one): the query embedding line, the hybrid split and the synthetic lane again with FP32 and INT8 alternating query by query (under the index's identity)")
	flag.StringVar(&quantize, "quantize", "none", "the index's model: none (FP32) or int8 (onnx.Options.Quantize); sync embeds with it and queries use its identity")
	flag.BoolVar(&stages, "stages", false, "also split hybrid searches into query embedding, vector index search, the rest, and the lexical search of the same query (stages.go)")
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

// withInt8 adds the other model's lines: abEmbs are the FP32 and the
// INT8 embedder then, in that order, one of them the index's.
var (
	withInt8 bool
	abEmbs   []cairn.Embedder
)

// quantize is the index's model (onnx.Options.Quantize).
var quantize string

// stages asks for the hybrid split (stages.go).
var stages bool

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
	switch quantize {
	case "none":
		quantize = onnx.QuantizeNone
	case onnx.QuantizeNone, onnx.QuantizeInt8:
	default:
		return fmt.Errorf("-quantize %q: want none or %s", quantize, onnx.QuantizeInt8)
	}
	emb, err := newEmbedder(shared, quantize)
	if err != nil {
		return err
	}
	// The engine's embedder: the index's model, and the other one beside
	// it with -int8 (names[i] is models[i]'s).
	sw := &switchEmbedder{models: []cairn.Embedder{emb}}
	names := []string{modelName(quantize)}
	if withInt8 {
		other := onnx.QuantizeInt8
		if quantize == onnx.QuantizeInt8 {
			other = onnx.QuantizeNone
		}
		e2, err := newEmbedder(shared, other)
		if err != nil {
			emb.Close()
			return err
		}
		sw.models = append(sw.models, e2)
		names = append(names, modelName(other))
		abEmbs = []cairn.Embedder{emb, e2}
		if quantize == onnx.QuantizeInt8 {
			abEmbs = []cairn.Embedder{e2, emb}
		}
	}
	if dataDir == "" {
		dataDir = filepath.Join(work, "data")
	}
	fmt.Printf("index model %s, load %.2f\n", names[0], procstat.Load1())
	eng, err := local.Open(ctx, engine.Options{Dir: dataDir, Embedder: sw,
		Corpora: []cairn.Corpus{{Name: "bench", Kind: cairn.KindFiles, Paths: []string{dir}}}})
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	t0, c0 := time.Now(), processCPU()
	res, err := eng.Sync(ctx, nil)
	if err != nil {
		return err
	}
	secs := time.Since(t0).Seconds()
	fmt.Printf("%d notes, %d chunks: sync with embedding %.1fs, CPU %.1fs (%d chunks embedded, %.0f chunks/s overall), peak RSS %.0f MB, load %.2f\n",
		notes, res.Corpora[0].Chunks, secs, (processCPU() - c0).Seconds(), res.Embedded, float64(res.Embedded)/secs, procstat.PeakMB(), procstat.Load1())
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
	if abEmbs != nil {
		if err := embedAB(ctx, abEmbs[0], abEmbs[1], qs); err != nil {
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
	if stages {
		if err := measureStages(ctx, eng, sw, names, filepath.Join(dataDir, "vectors.bin"), qs); err != nil {
			return err
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
	fmt.Printf("heap in use %.0f MB after the runs, load %.2f\n", float64(ms.HeapInuse)/(1<<20), procstat.Load1())
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

// modelName is the short name of a quantization in the output.
func modelName(quantize string) string {
	if quantize == onnx.QuantizeInt8 {
		return "int8"
	}
	return "fp32"
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
	ix, err := loadIndex(path)
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

// loadIndex loads the vector index file at path as it is now (its own
// stamp), populated into memory as a long-lived process holds it.
func loadIndex(path string) (*vector.Index, error) {
	st, err := vector.FileStamp(path)
	if err != nil {
		return nil, err
	}
	return vector.Load(path, st, true)
}
