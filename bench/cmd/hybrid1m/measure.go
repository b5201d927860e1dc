package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/bench/procstat"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/vector"
)

// laneK is the vector lane's candidates at the default limit of 10
// (engine laneSize: ceil(1.5 x limit), at least 10).
const laneK = 15

// measure opens the engine over c.data as cairn serve opens an agent
// (long-lived: memory-mapped reads, the vector lane settled into memory)
// and times warm hybrid searches at the default limit, every model of sw
// alternating query by query (the order flipped every query):
//
//   - total: the whole engine.Search in hybrid mode (wall), and the
//     process CPU it took (both lanes: the lexical one on its own
//     goroutine);
//   - embed: the query embedding inside it (sw's timer);
//   - index: the same query vector searched again, after all searches,
//     in a copy of the engine's vector file with its lists (k = 15, as
//     the lane asks);
//   - rest: total less embed less index (the lexical lane when it is the
//     slower, the chunk reads, fusion, signals, calibration, snippets);
//   - lex: the lexical mode search of the same query right after;
//   - i-cpu, l-cpu: the process CPU of the index search and of the
//     lexical search (the index search splits over the cores at 512k+
//     items).
//
// Each line's percentiles are of that part alone; they do not add up.
// Peak RSS is read after the hybrid and lexical searches, before the
// copy of the vector file is loaded.
func measure(ctx context.Context, c *config, sw *switchEmbedder, names []string) error {
	corp := cairn.Corpus{Name: c.corpus, Kind: cairn.KindFiles, Paths: []string{c.notes}, Glob: cairn.DefaultGlob}
	eng, err := local.Open(ctx, engine.Options{Dir: c.data, Embedder: sw, Corpora: []cairn.Corpus{corp}, Location: time.Local,
		Logf: func(f string, a ...any) { fmt.Printf("engine: "+f+"\n", a...) }})
	if err != nil {
		sw.Close()
		return err
	}
	defer eng.Close(ctx)
	if eng.Reindexed() {
		return fmt.Errorf("%s: the index was emptied at open (another feature version)", c.data)
	}
	st, err := eng.IndexStats(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("index %s: %d documents, %d chunks, %.0f MB; index model %s, query models %v; load %.2f\n",
		c.data, st.Documents, st.Chunks, float64(st.Bytes)/1e6, names[0], names, procstat.Load1())
	labeled := corpus.LabeledQueries(c.queries, 1) // the texts of corpus.Queries, hybridbench's list
	qs := make([]string, len(labeled))
	kindOf := map[string]string{}
	for i, q := range labeled {
		qs[i], kindOf[q.Text] = q.Text, q.Kind
	}
	// The first search loads the vector lane: from vectors.bin when it
	// matches the store, else from SQLite (then the lists are built and
	// both files written).
	calls := sw.calls.Load()
	t0, c0 := time.Now(), processCPU()
	if _, err := eng.Search(ctx, qs[0], &cairn.SearchOptions{Mode: cairn.ModeHybrid}); err != nil {
		return err
	}
	fmt.Printf("first hybrid search (loads the vector lane): %.1f s wall, %.1f s CPU, peak RSS %.0f MB, load %.2f\n",
		time.Since(t0).Seconds(), (processCPU() - c0).Seconds(), procstat.PeakMB(), procstat.Load1())
	if sw.calls.Load() == calls {
		return fmt.Errorf("the first hybrid search embedded no query: the vector lane is off")
	}
	if n, err := eng.PendingEmbeddings(ctx); err != nil || n != 0 {
		return fmt.Errorf("%d chunks wait for vectors (%v): the vector lane is off", n, err)
	}
	// Warm, as hybridbench: one pass of every query in hybrid mode with
	// every model and in lexical mode, then a collection.
	for _, q := range qs {
		for side := range sw.models {
			sw.use.Store(int32(side))
			eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeHybrid})
		}
		eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeLexical})
	}
	sw.use.Store(0)
	runtime.GC()
	n := len(sw.models)
	type part struct {
		total, cpu, embed, index, icpu, rest, lex, lcpu []time.Duration
		q                                               []string
	}
	parts := make([]part, n)
	qvs := make([][][]float32, n)
	odd := 0
	if c.cpuprofile != "" {
		f, err := os.Create(c.cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	load0 := procstat.Load1()
	start := time.Now()
	for i, q := range qs {
		for j := range n {
			side := j
			if i%2 == 1 {
				side = n - 1 - j
			}
			sw.use.Store(int32(side))
			calls := sw.calls.Load()
			c0, t0 := processCPU(), time.Now()
			if _, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeHybrid}); err != nil {
				return fmt.Errorf("hybrid search %q: %w", q, err)
			}
			d, cpu := time.Since(t0), processCPU()-c0
			if sw.calls.Load() != calls+1 {
				odd++ // not one query embedding: the split would not hold
				continue
			}
			p := &parts[side]
			p.total, p.cpu, p.embed = append(p.total, d), append(p.cpu, cpu), append(p.embed, time.Duration(sw.last.Load()))
			qvs[side] = append(qvs[side], slices.Clone(*sw.vec.Load()))
			p.q = append(p.q, q)
			c2, t2 := processCPU(), time.Now()
			_, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeLexical})
			if err != nil {
				return fmt.Errorf("lexical search %q: %w", q, err)
			}
			p.lex, p.lcpu = append(p.lex, time.Since(t2)), append(p.lcpu, processCPU()-c2)
		}
	}
	sw.use.Store(0)
	took := time.Since(start)
	if c.cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	peak := procstat.PeakMB()
	rss, huge := residentMB()
	load1 := procstat.Load1()
	// The vector index alone: a copy of the engine's file, with its lists,
	// settled into memory as the engine's lane is.
	path := filepath.Join(c.data, engine.VectorFile)
	stamp, err := vector.FileStamp(path)
	if err != nil {
		return err
	}
	ix, err := vector.Load(path, stamp, true)
	if err != nil {
		return err
	}
	if ix.Len() >= vector.ListsMin {
		if err := ix.LoadLists(vector.ListsFile(path), stamp); err != nil {
			return fmt.Errorf("the engine's lists: %w", err)
		}
	}
	ix.Settle()
	for side := range n {
		for k, qv := range qvs[side] {
			c1, t := processCPU(), time.Now()
			ix.Search(qv, laneK, nil)
			s := time.Since(t)
			p := &parts[side]
			p.index, p.icpu = append(p.index, s), append(p.icpu, processCPU()-c1)
			p.rest = append(p.rest, max(0, p.total[k]-p.embed[k]-s))
		}
	}
	load2 := procstat.Load1()
	fmt.Printf("warm hybrid, limit 10, %d queries a model, %v alternating, %.0f s; %d searches left out (not one query embedding); vector index %d items, lists %v; load %.2f at the start, %.2f after the searches, %.2f after the index-only pass\n",
		len(qs), names, took.Seconds(), odd, ix.Len(), ix.HasLists(), load0, load1, load2)
	for side, name := range names {
		p := parts[side]
		printLatency("h-"+name, p.total)
		printLatency("  cpu", p.cpu)
		printLatency("  embed", p.embed)
		printLatency("  index", p.index)
		printLatency("  i-cpu", p.icpu)
		printLatency("  rest", p.rest)
		printLatency("  lex", p.lex)
		printLatency("  l-cpu", p.lcpu)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	pick := func(ds []time.Duration, p float64) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return ms(ds[min(len(ds)-1, max(0, int(float64(len(ds))*p+0.999999)-1))])
	}
	for side, name := range names {
		p := parts[side]
		byKind := map[string][]int{}
		for i, q := range p.q {
			byKind[kindOf[q]] = append(byKind[kindOf[q]], i)
		}
		kinds := slices.Sorted(maps.Keys(byKind))
		for _, k := range kinds {
			var tot, cpu, lcpu []time.Duration
			for _, i := range byKind[k] {
				tot, cpu, lcpu = append(tot, p.total[i]), append(cpu, p.cpu[i]), append(lcpu, p.lcpu[i])
			}
			fmt.Printf("  kind %s %-6s n=%3d  wall p50 %6.2f p99 %6.2f  CPU p50 %5.2f p99 %5.2f  lexical alone CPU p50 %5.2f p99 %5.2f ms\n",
				name, k, len(tot), pick(tot, 0.5), pick(tot, 0.99), pick(cpu, 0.5), pick(cpu, 0.99), pick(lcpu, 0.5), pick(lcpu, 0.99))
		}
	}
	for side, name := range names {
		p := parts[side]
		order := make([]int, len(p.cpu))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return int(p.cpu[b] - p.cpu[a]) })
		for _, i := range order[:min(c.slowest, len(order))] {
			fmt.Printf("  slowest %s: CPU %.2f ms (wall %.2f): embed %.2f, index %.2f (CPU %.2f), lexical alone %.2f (CPU %.2f)  %q\n",
				name, ms(p.cpu[i]), ms(p.total[i]), ms(p.embed[i]), ms(p.index[i]), ms(p.icpu[i]), ms(p.lex[i]), ms(p.lcpu[i]), p.q[i])
		}
	}
	fmt.Printf("peak RSS %.0f MB after the searches (VmHWM: the load of the lane included); resident then %d MB, %d MB of it on huge pages\n", peak, rss, huge)
	return nil
}

// printLatency prints one line of percentiles (nearest rank).
func printLatency(name string, lat []time.Duration) {
	if len(lat) == 0 {
		fmt.Printf("%-8s n=0\n", name)
		return
	}
	lat = slices.Clone(lat)
	slices.Sort(lat)
	pct := func(p float64) float64 {
		i := min(len(lat)-1, max(0, int(float64(len(lat))*p+0.999999)-1))
		return float64(lat[i].Microseconds()) / 1000
	}
	fmt.Printf("%-8s n=%d p50 %.2f  p90 %.2f  p99 %.2f  max %.2f ms\n", name, len(lat), pct(0.5), pct(0.9), pct(0.99), pct(1))
}
