// Command portbench builds the agent that cairn export and cairn import
// are measured on: a generated notes corpus (bench/cmd/gencorpus) synced
// into a SQLite data directory with a deterministic 384-dimension
// embedder (hashed words, unit length: no model, so the build takes
// minutes, not hours), one vector per chunk as a real embedder stores
// them. It prints the chunks and vectors stored; time the export and the
// import with the CLI (bench/RESULTS.md, "export and import").
//
//	go build -o /tmp/gencorpus ./bench/cmd/gencorpus && /tmp/gencorpus -out /tmp/port100k/notes -notes 48000
//	go run -tags sqlite_fts5 ./bench/cmd/portbench -notes /tmp/port100k/notes -data /tmp/port100k/agent
//
// With -corpus, -glob and -hashembed it embeds an existing index (a copy
// of cairnbench's 1M-chunk index, which has no vectors) with the stand-in
// embedder pgbench searches with, so hybrid search can be timed on it.
// The embedding phase prints its own line: vectors a second, the
// process's CPU seconds, and the bytes it read and wrote through the
// kernel (/proc/self/io rchar and wchar: SQLite's page reads and writes,
// cached or not) per vector; -stop-after ends it after that many vectors
// (the sync is interrupted, what was stored stays), -cpuprofile writes a
// CPU profile of the whole run.
//
//	portbench -notes /tmp/l1big/n480000/notes -data COPY -corpus bench -glob default -hashembed -stop-after 20000
//
// With -search it syncs nothing: it times searches of the same index in
// SQLite (-data), PostgreSQL (-pg) and Citus (-citus), imported there by
// cairn import into -schema as agent -agent, the stores alternating query
// by query (search.go; bench/big-remeasure.sh runs it).
//
//	portbench -search -data /tmp/big/sqlite -notes NOTES -corpus bench -glob default -pg URL -citus URL -schema big_1m -stores sqlite,postgres,citus -modes lexical
package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/hashembed"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

func main() {
	notes := flag.String("notes", "", "the notes folder to index")
	data := flag.String("data", "", "the data directory to build")
	corpusName := flag.String("corpus", "notes", "the corpus name (an existing data directory's, to embed what it holds)")
	glob := flag.String("glob", "**/*.md", "the corpus glob (\"default\": cairn.DefaultGlob, as cairnbench indexed)")
	hashed := flag.Bool("hashembed", false, "embed with bench/hashembed, the stand-in pgbench searches with, instead of this command's own")
	stopAfter := flag.Int("stop-after", 0, "end the embedding phase after this many vectors (0: embed everything)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	search := flag.Bool("search", false, "time searches of -data and the PostgreSQL/Citus copies of it instead of syncing (search.go)")
	var in searchIn
	flag.StringVar(&in.pgURL, "pg", "", "with -search: the PostgreSQL server URL")
	flag.StringVar(&in.citusURL, "citus", "", "with -search: the Citus coordinator URL")
	flag.StringVar(&in.schema, "schema", "big_1m", "with -search: the schema the index was imported into")
	flag.StringVar(&in.agent, "agent", "bench", "with -search: the agent it was imported as")
	flag.StringVar(&in.work, "work", os.TempDir(), "with -search: a folder for the PostgreSQL engines' data directories")
	stores := flag.String("stores", "sqlite,postgres,citus", "with -search: the stores, comma-separated")
	modes := flag.String("modes", "lexical,hybrid", "with -search: the modes timed, in turn")
	flag.IntVar(&in.queries, "queries", 1000, "with -search: queries a store and mode")
	flag.Parse()
	if *notes == "" || *data == "" {
		fmt.Fprintln(os.Stderr, "portbench: -notes and -data are required")
		os.Exit(2)
	}
	if *glob == "default" {
		*glob = cairn.DefaultGlob
	}
	var emb cairn.Embedder = hashEmbedder{}
	if *hashed {
		emb = hashembed.Embedder{}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "portbench: -cpuprofile:", err)
			os.Exit(1)
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	if *search {
		in.sqliteDir, in.stores, in.modes = *data, strings.Split(*stores, ","), strings.Split(*modes, ",")
		in.corpus = cairn.Corpus{Name: *corpusName, Kind: cairn.KindFiles, Paths: []string{*notes}, Glob: *glob}
		if err := runSearch(context.Background(), in); err != nil {
			fmt.Fprintln(os.Stderr, "portbench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), *notes, *data, *corpusName, *glob, emb, *stopAfter); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "portbench:", err)
		os.Exit(1)
	}
}

// run syncs notes into data (an existing index: what changed, then the
// chunks without a vector of emb embedded, up to stopAfter when above 0).
func run(ctx context.Context, notes, data, name, glob string, emb cairn.Embedder, stopAfter int) error {
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var phase embedPhase
	eng, err := local.Open(ctx, engine.Options{Dir: data, OneShot: true, Embedder: emb,
		Corpora: []cairn.Corpus{{Name: name, Kind: cairn.KindFiles, Paths: []string{notes}, Glob: glob}}})
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	res, err := eng.Sync(ctx, &cairn.SyncOptions{Progress: func(ev cairn.ProgressEvent) {
		if ev.Corpus != "embeddings" {
			return
		}
		phase.mark(ev.Done)
		if stopAfter > 0 && ev.Done >= stopAfter {
			cancel()
		}
	}})
	if err != nil && !(stopAfter > 0 && ctx.Err() != nil) {
		return err
	}
	phase.print()
	if res == nil {
		return nil
	}
	chunks := 0
	for _, c := range res.Corpora {
		chunks += c.Chunks
	}
	fmt.Printf("synced %d chunks, embedded %d, pending %d, in %.0f s\n", chunks, res.Embedded, res.PendingEmbeddings, time.Since(start).Seconds())
	return nil
}

// embedPhase measures sync's embedding phase from its first progress
// event (the vectors counted, none embedded yet) to its last (the last
// batch stored), so the vector lane's load and the index file the sync
// writes after it are not counted.
type embedPhase struct {
	started              bool
	start                time.Time
	cpu0, rchar0, wchar0 float64
	done                 int
	wall, cpu, rch, wch  float64
}

func (p *embedPhase) mark(done int) {
	cpu, now := cpuSeconds(), time.Now()
	r, w := procIO()
	if !p.started {
		p.started, p.start, p.cpu0, p.rchar0, p.wchar0 = true, now, cpu, r, w
	}
	p.done = done
	p.wall, p.cpu, p.rch, p.wch = now.Sub(p.start).Seconds(), cpu-p.cpu0, r-p.rchar0, w-p.wchar0
}

func (p *embedPhase) print() {
	if !p.started || p.done == 0 {
		fmt.Println("embedding phase: nothing to embed")
		return
	}
	n := float64(p.done)
	fmt.Printf("embedding phase: %d vectors in %.1f s wall, %.1f CPU s: %.0f vectors/s, %.3f CPU-ms a vector, read %.1f KB and wrote %.1f KB a vector (rchar/wchar), load %s\n",
		p.done, p.wall, p.cpu, n/p.wall, 1000*p.cpu/n, p.rch/n/1024, p.wch/n/1024, loadAvg())
}

// cpuSeconds is this process's user and system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// procIO returns the bytes this process read and wrote by system calls
// (rchar, wchar of /proc/self/io; 0 where there is none).
func procIO() (rchar, wchar float64) {
	b, _ := os.ReadFile("/proc/self/io")
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		n, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
		switch k {
		case "rchar":
			rchar = n
		case "wchar":
			wchar = n
		}
	}
	return rchar, wchar
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// hashEmbedder adds one per lower-cased word at its hashed dimension and
// normalizes: deterministic, and close for texts sharing words.
type hashEmbedder struct{}

const dim = 384

func (hashEmbedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "bench", Model: "hashed-words", Dimension: dim, Normalized: true}
}

func (hashEmbedder) Embed(_ context.Context, _ string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, dim)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return r < 'a' || r > 'z' }) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%dim]++
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n > 0 {
			for j := range v {
				v[j] = float32(float64(v[j]) / math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}
