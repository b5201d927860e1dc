package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/bench/hashembed"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/postgres"
	"github.com/jackc/pgx/v5"
)

// runScale generates notes into a folder, and for each store syncs them
// (chunked, indexed and embedded with the hashembed stand-in), then times
// the searches of a fixed query list in lexical and hybrid mode with the
// stores alternating query by query (so the machine's load, which moves by
// tens of percent from minute to minute here, falls on all of them alike),
// and reports the storage size. On PostgreSQL and Citus the run uses a
// schema of its own, dropped first (unless reused); fill agents are
// indexed first on Citus so both workers hold data. With work set the
// notes and the SQLite index stay there, and reuse skips generating and
// syncing what an earlier run left (the PostgreSQL schemas stay after
// every run).
func runScale(ctx context.Context, stores []namedBackend, notes, queries, fill int, work string, reuse, hnsw bool) error {
	if work == "" {
		dir, err := os.MkdirTemp("", "pgbench-scale")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	docs := filepath.Join(work, "notes")
	if scaleIn.notes != "" {
		docs = scaleIn.notes
	} else if _, err := os.Stat(docs); !reuse || err != nil {
		if _, _, err := corpus.Generate(docs, corpus.Options{Notes: notes, Seed: 1}); err != nil {
			return err
		}
	}
	qs := corpus.Queries(queries, 1)
	fmt.Printf("%d notes; %d queries; hashed-word embedder (%d dims)\n", notes, len(qs), hashembed.Dim)
	var runs []*scaleRun
	defer func() {
		for _, r := range runs {
			r.eng.Close(ctx)
		}
	}()
	for _, st := range stores {
		r, err := syncOne(ctx, st, work, docs, fill, reuse)
		if err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
		runs = append(runs, r)
	}
	for _, mode := range []string{cairn.ModeLexical, cairn.ModeHybrid} {
		if err := timeAlternating(ctx, runs, qs, mode); err != nil {
			return err
		}
	}
	fmt.Printf("%-9s %8s %9s %10s %9s %9s %9s %9s %9s %10s  %s\n", "store", "chunks", "sync s", "chunks/s", "sync CPU", "lex p50", "lex p99",
		"hyb p50", "hyb p99", "size MB", "load (sync, search)")
	for _, r := range runs {
		size := r.stats.Bytes
		if r.url != "" {
			var err error
			if size, err = schemaBytes(ctx, r.url, r.st.backend.(postgres.Backend).Schema); err != nil {
				return err
			}
		}
		sync := "reused"
		if r.syncS > 0 {
			sync = fmt.Sprintf("%.1f", r.syncS)
		}
		fmt.Printf("%-9s %8d %9s %10.0f %9s %9.2f %9.2f %9.2f %9.2f %10.1f  %s, %s\n", r.st.name, r.stats.Chunks, sync, float64(r.stats.Chunks)/r.syncS,
			r.cpu, pct(r.ms[cairn.ModeLexical], 50), pct(r.ms[cairn.ModeLexical], 99), pct(r.ms[cairn.ModeHybrid], 50), pct(r.ms[cairn.ModeHybrid], 99),
			float64(size)/(1<<20), r.syncLoad, r.searchLoad)
	}
	for _, r := range runs {
		if r.url != "" {
			if err := relationSizes(ctx, r.url, r.st.backend.(postgres.Backend).Schema, r.st.name, r.stats.Chunks); err != nil {
				return err
			}
		}
	}
	if hnsw {
		for _, r := range runs {
			if r.url != "" {
				if err := buildHNSW(ctx, r.url, r.st.backend.(postgres.Backend), r.st.name, r.stats.Chunks); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// scaleIn names what -scale reads when it does not generate and sync it
// itself: an index built elsewhere (cairnbench's 1M chunks, embedded by
// portbench, and its import into PostgreSQL and Citus).
var scaleIn = struct{ sqliteDir, corpus, glob, notes string }{corpus: "notes", glob: "**/*.md"}

// scaleRun is one store's engine over the synced notes and what was
// measured of it.
type scaleRun struct {
	st         namedBackend
	eng        *engine.Engine
	url        string
	stats      cairn.IndexStats
	syncS      float64
	cpu        string // the sync's CPU seconds: this process, and each PostgreSQL server's processes
	syncLoad   string
	searchLoad string
	ms         map[string][]float64
}

func syncOne(ctx context.Context, st namedBackend, work, docs string, fill int, reuse bool) (*scaleRun, error) {
	dir := filepath.Join(work, "data-"+st.name)
	if st.backend == nil && scaleIn.sqliteDir != "" {
		if !reuse {
			return nil, fmt.Errorf("-sqlite-dir is searched as it is: it needs -reuse")
		}
		dir = scaleIn.sqliteDir
	}
	glob := scaleIn.glob
	if glob == "default" {
		glob = cairn.DefaultGlob
	}
	corpora := []cairn.Corpus{{Name: scaleIn.corpus, Kind: cairn.KindFiles, Paths: []string{docs}, Glob: glob}}
	r := &scaleRun{st: st, ms: map[string][]float64{}}
	open := func() error {
		// Logf: a store's migration lines (start, progress, done) are part
		// of what a run over an older store shows.
		eng, err := local.Open(ctx, engine.Options{Dir: dir, Backend: st.backend, Embedder: hashembed.Embedder{}, Corpora: corpora,
			Logf: func(f string, a ...any) {
				fmt.Fprintf(os.Stderr, "%s %s: %s\n", time.Now().UTC().Format("15:04:05"), st.name, fmt.Sprintf(f, a...))
			}})
		if err != nil {
			return err
		}
		r.eng = eng
		if r.stats, err = eng.IndexStats(ctx); err != nil {
			eng.Close(ctx)
		}
		return err
	}
	if st.backend != nil {
		r.url = st.backend.(postgres.Backend).URL
	} else if !reuse {
		os.RemoveAll(dir)
	}
	if err := open(); err != nil {
		return nil, err
	}
	if reuse && r.stats.Chunks > 0 {
		r.cpu, r.syncLoad = "-", "-"
		return r, nil
	}
	if st.backend != nil {
		// A fresh schema (with -reuse too, when the store holds nothing).
		r.eng.Close(ctx)
		b := st.backend.(postgres.Backend)
		if err := dropSchema(ctx, r.url, b.Schema); err != nil {
			return nil, err
		}
		if st.name == "citus" && fill > 0 {
			if err := fillAgents(ctx, b, work, fill); err != nil {
				return nil, err
			}
		}
		if err := open(); err != nil {
			return nil, err
		}
	}
	eng := r.eng
	cpu0, srv0 := selfCPU(), serverCPU(r.url)
	start := time.Now()
	if _, err := eng.Sync(ctx, nil); err != nil {
		eng.Close(ctx)
		return nil, err
	}
	r.syncS = time.Since(start).Seconds()
	r.cpu = fmt.Sprintf("%.0f", selfCPU()-cpu0)
	if r.url != "" {
		r.cpu += fmt.Sprintf("+%.0f", serverCPU(r.url)-srv0)
	}
	r.syncLoad = loadAvg()
	var err error
	if r.stats, err = eng.IndexStats(ctx); err != nil {
		eng.Close(ctx)
		return nil, err
	}
	fmt.Printf("%s: %d chunks synced in %.1f s (CPU s %s), load %s\n", st.name, r.stats.Chunks, r.syncS, r.cpu, r.syncLoad)
	return r, nil
}

// timeAlternating runs each query once on every store in turn (after one
// warm-up pass over the first ten), the store order rotating by query,
// and keeps each store's latencies in milliseconds, sorted.
func timeAlternating(ctx context.Context, runs []*scaleRun, qs []string, mode string) error {
	opts := func() *cairn.SearchOptions { return &cairn.SearchOptions{Limit: 10, Mode: mode} }
	for _, r := range runs {
		for _, q := range qs[:min(10, len(qs))] {
			r.eng.Search(ctx, q, opts())
		}
	}
	for i, q := range qs {
		for k := range runs {
			r := runs[(i+k)%len(runs)]
			start := time.Now()
			if _, err := r.eng.Search(ctx, q, opts()); err != nil && !strings.Contains(err.Error(), "only common words") {
				return fmt.Errorf("%s: search %q: %w", r.st.name, q, err)
			}
			r.ms[mode] = append(r.ms[mode], float64(time.Since(start).Microseconds())/1000)
		}
	}
	for _, r := range runs {
		slices.Sort(r.ms[mode])
		r.searchLoad = loadAvg()
	}
	return nil
}

// selfCPU is this process's user and system CPU seconds (getrusage).
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// serverCPU sums the CPU seconds of the PostgreSQL processes listening on
// url's port (this machine's servers, found in /proc by their -p
// argument; on Citus the workers' too), 0 when url is empty or not
// local. It counts every client's work on those servers, other sessions'
// included.
func serverCPU(url string) float64 {
	if url == "" {
		return 0
	}
	ports := []string{portOf(url)}
	if ports[0] == "56001" { // scripts/pg-test-servers.sh's Citus coordinator; its workers follow
		ports = append(ports, "56002", "56003")
	}
	var sum float64
	for _, port := range ports {
		sum += postgresCPU(port)
	}
	return sum
}

func portOf(url string) string {
	rest := url[strings.LastIndex(url, "@")+1:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		return rest[i+1:]
	}
	return "5432"
}

// postgresCPU sums utime+stime of the postmaster started with -p port and
// of its children.
func postgresCPU(port string) float64 {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	parent := ""
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 0 && strings.HasSuffix(args[0], "/postgres") && slices.Contains(args, "-p") && slices.Index(args, port) == slices.Index(args, "-p")+1 {
			parent = filepath.Base(filepath.Dir(p))
		}
	}
	if parent == "" {
		return 0
	}
	var ticks float64
	for _, p := range procs {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		// after the name: state ppid ... utime (12th) stime (13th)
		if len(f) > 12 && (f[1] == parent || filepath.Base(filepath.Dir(p)) == parent) {
			u, _ := strconv.ParseFloat(f[11], 64)
			s, _ := strconv.ParseFloat(f[12], 64)
			ticks += u + s
		}
	}
	return ticks / 100 // USER_HZ
}

// loadAvg is the machine's 1-minute load average (Linux), printed beside
// each row: the others sharing the machine move every number.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

func pct(sorted []float64, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

// fillAgents indexes a few small corpora as other agents, so the Citus
// workers both hold shards with data besides the measured agent's.
func fillAgents(ctx context.Context, b postgres.Backend, work string, n int) error {
	docs := filepath.Join(work, "fill")
	if _, _, err := corpus.Generate(docs, corpus.Options{Notes: 200, Seed: 2}); err != nil {
		return err
	}
	for i := range n {
		fb := b
		fb.Agent = fmt.Sprintf("fill-%d", i)
		eng, err := local.Open(ctx, engine.Options{Dir: filepath.Join(work, fb.Agent), Backend: fb,
			Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{docs}, Glob: "**/*.md"}}})
		if err != nil {
			return err
		}
		_, err = eng.Sync(ctx, nil)
		eng.Close(ctx)
		if err != nil {
			return err
		}
	}
	return nil
}

func dropSchema(ctx context.Context, url, schema string) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, `DROP SCHEMA IF EXISTS "`+schema+`" CASCADE`)
	return err
}

// schemaBytes sums pg_total_relation_size (tables, indexes, TOAST) over
// the schema's tables; on Citus, citus_total_relation_size over the
// shards of every node.
func schemaBytes(ctx context.Context, url, schema string) (int64, error) {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, err
	}
	defer c.Close(ctx)
	var citus bool
	if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`).Scan(&citus); err != nil {
		return 0, err
	}
	fn := "pg_total_relation_size"
	if citus {
		fn = "citus_total_relation_size"
	}
	var n int64
	err = c.QueryRow(ctx, `SELECT coalesce(sum(`+fn+`(c.oid)), 0)::bigint FROM pg_class c
		WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r'`, schema).Scan(&n)
	return n, err
}

// relationSizes prints each table's size with its indexes and bytes per
// chunk, largest first.
func relationSizes(ctx context.Context, url, schema, name string, chunks int) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	var citus bool
	if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`).Scan(&citus); err != nil {
		return err
	}
	total, table := "pg_total_relation_size", "pg_table_size"
	if citus {
		total, table = "citus_total_relation_size", "citus_table_size"
	}
	rows, err := c.Query(ctx, `SELECT c.relname::text, `+total+`(c.oid), `+table+`(c.oid) FROM pg_class c
		WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' ORDER BY 2 DESC LIMIT 6`, schema)
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Printf("%s sizes (bytes a chunk: table+indexes, table):", name)
	for rows.Next() {
		var rel string
		var all, tab int64
		if err := rows.Scan(&rel, &all, &tab); err != nil {
			return err
		}
		fmt.Printf(" %s %d, %d;", rel, all/int64(max(chunks, 1)), tab/int64(max(chunks, 1)))
	}
	fmt.Println()
	return rows.Err()
}

// buildHNSW times an HNSW index build over the agent's vectors (cosine,
// the dimension of the stand-in embedder) as Backend.HNSW would make it,
// with maintenance_work_mem = 1GB, and reports its size and the peak RSS
// of the server process that built it (VmHWM, read from /proc: the
// servers run on this machine). The index is dropped afterwards.
func buildHNSW(ctx context.Context, url string, b postgres.Backend, name string, chunks int) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	var pid int
	if err := c.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		return err
	}
	for _, q := range []string{`SET search_path = "` + b.Schema + `", public`, `SET maintenance_work_mem = '1GB'`, `SET statement_timeout = 0`,
		`DROP INDEX IF EXISTS bench_hnsw`} {
		if _, err := c.Exec(ctx, q); err != nil {
			return err
		}
	}
	// The index's size is what it adds to the table's total (on Citus an
	// index lives in the shards, under names of their own).
	fn, citus := "pg_total_relation_size", false
	if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`).Scan(&citus); err != nil {
		return err
	}
	if citus {
		fn = "citus_total_relation_size"
	}
	var before int64
	if err := c.QueryRow(ctx, `SELECT `+fn+`('vectors'::regclass)`).Scan(&before); err != nil {
		return err
	}
	start, cpu0, load0 := time.Now(), serverCPU(url), loadAvg()
	if _, err := c.Exec(ctx, fmt.Sprintf(`CREATE INDEX bench_hnsw ON vectors USING hnsw ((vec::vector(%d)) vector_cosine_ops)
		WHERE agent = '%s'`, hashembed.Dim, b.Agent)); err != nil {
		return fmt.Errorf("build hnsw: %w", err)
	}
	secs, cpu := time.Since(start).Seconds(), serverCPU(url)-cpu0
	hwm := "?"
	if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, l := range strings.Split(string(st), "\n") {
			if strings.HasPrefix(l, "VmHWM:") {
				hwm = strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
			}
		}
	}
	var size int64
	if err := c.QueryRow(ctx, `SELECT `+fn+`('vectors'::regclass)`).Scan(&size); err != nil {
		return err
	}
	size -= before
	fmt.Printf("%s hnsw: %d vectors in %.1f s (%.0f vectors/s; server CPU %.0f s), index %.1f MB (%d bytes a vector), build backend peak RSS %s, load %s to %s\n",
		name, chunks, secs, float64(chunks)/secs, cpu, float64(size)/(1<<20), size/int64(max(chunks, 1)), hwm, load0, loadAvg())
	_, err = c.Exec(ctx, `DROP INDEX bench_hnsw`)
	return err
}
