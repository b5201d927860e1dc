// Command uibench measures the server time of the web pages (package web,
// as cairn serve mounts it behind the API guard) over a kept index: each
// page is GET served in process, timed from the request to the last byte
// of the rendered page (wall and the process's CPU), and each search query
// is one GET /?q=..., with the search's own share read from the
// Server-Timing header.
//
//	go run -tags sqlite_fts5 ./bench/cmd/hybridbench -notes 50000 -shared ../shared -out /tmp/hb50
//	go run -tags sqlite_fts5 ./bench/cmd/uibench -work /tmp/hb50 -shared ../shared
//
// With -build the work directory is made when it has no index yet: -notes
// generated notes (bench/corpus), -sessions OpenAI chat conversations in
// a sessions corpus and -memories told memories, synced lexically (no
// embedder), so the browsing pages can be measured at size without a
// hybridbench run:
//
//	go run -tags sqlite_fts5 ./bench/cmd/uibench -work /tmp/ui50 -shared "" -build -queries 0
//
// Otherwise it only reads the index (no sync), so a copy of the work
// directory can be measured while another run uses the original.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/mcpserver"
	"github.com/cairnmemory/cairn/tokenize"
	"github.com/cairnmemory/cairn/web"
)

func main() {
	work := flag.String("work", "/tmp/hb50", "hybridbench work directory (data/ and notes/), read only")
	shared := flag.String("shared", "../shared", "folder holding models/use-lite and lib/onnxruntime; empty: lexical only")
	nq := flag.Int("queries", 300, "queries per mode")
	modeList := flag.String("modes", "lexical,hybrid", "comma-separated modes")
	flag.BoolVar(&build, "build", false, "make the work directory's notes, sessions, memories and index when it has no index")
	flag.IntVar(&buildNotes, "notes", 50000, "with -build: generated notes")
	flag.IntVar(&buildSessions, "sessions", 10000, "with -build: sessions in the sessions corpus")
	flag.IntVar(&buildMemories, "memories", 10000, "with -build: told memories")
	flag.StringVar(&pageProfile, "pageprofile", "", "write a CPU profile of the browsing pages' timed requests to this file")
	flag.StringVar(&pageOnly, "page", "", "time only this browsing page (a path from the list)")
	flag.IntVar(&rounds, "rounds", 30, "requests a browsing page is timed over (after one warm request)")
	flag.Parse()
	if err := run(*work, *shared, *nq, strings.Split(*modeList, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "uibench:", err)
		os.Exit(1)
	}
}

var (
	build                                    bool
	buildNotes, buildSessions, buildMemories int
	rounds                                   int
	pageProfile, pageOnly                    string
)

func run(work, shared string, nq int, modes []string) error {
	ctx := context.Background()
	opts := engine.Options{Dir: filepath.Join(work, "data"),
		Corpora: []cairn.Corpus{{Name: "bench", Kind: cairn.KindFiles, Paths: []string{filepath.Join(work, "notes")}}}}
	if _, err := os.Stat(filepath.Join(work, "sessions")); err == nil || build {
		opts.Corpora = append(opts.Corpora, cairn.Corpus{Name: "sessions", Kind: cairn.KindSessions,
			Sources:   []cairn.SourceSpec{{ID: cairn.SourceOpenAIChat, Roots: []string{filepath.Join(work, "sessions")}}},
			ChatTypes: []string{"direct", "group", "channel"}})
	}
	if build {
		if err := buildWork(ctx, work, opts); err != nil {
			return fmt.Errorf("build %s: %w", work, err)
		}
	}
	if shared != "" {
		emb, err := onnx.New(onnx.Options{ModelDir: filepath.Join(shared, "models", "use-lite"),
			Library:       filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
			LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }})
		if err != nil {
			return fmt.Errorf("load embedder: %w", err)
		}
		opts.Embedder = emb
	}
	eng, err := local.Open(ctx, opts)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	stats, err := eng.IndexStats(ctx)
	if err != nil {
		return err
	}
	agent := mcpserver.NewAgent("default", eng)
	defer agent.Close(ctx)
	pages, err := web.New(web.Options{Agent: agent})
	if err != nil {
		return err
	}
	defer pages.Close(ctx)
	h, err := mcpserver.NewHandler(mcpserver.HTTPOptions{Agents: []*mcpserver.Agent{agent}, UI: pages})
	if err != nil {
		return err
	}
	fmt.Printf("%d documents, %d chunks; %d queries per mode; GOMAXPROCS %d\n", stats.Documents, stats.Chunks, nq, runtime.GOMAXPROCS(0))
	// The browsing pages, each after a warm request: they read the store,
	// not the search index.
	fmt.Printf("%-34s %9s %9s %9s %9s %9s\n", "page", "wall p50", "wall p99", "CPU p50", "CPU p99", "KB")
	if pageProfile != "" {
		f, err := os.Create(pageProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	for _, p := range browsePages {
		if pageOnly != "" && p != pageOnly {
			continue
		}
		if err := timePage(h, p, rounds); err != nil {
			return err
		}
	}
	pprof.StopCPUProfile()
	qs := corpus.Queries(nq, 1)
	for _, mode := range modes {
		if nq == 0 {
			break
		}
		if mode != cairn.ModeLexical && opts.Embedder == nil {
			continue
		}
		// One warm pass (term counts cached, the vector index loaded), then
		// the timed one.
		for _, q := range qs {
			serve(h, q, mode)
		}
		runtime.GC()
		var page, search []time.Duration
		var bytes int
		for _, q := range qs {
			p, s, n, err := serve(h, q, mode)
			if err != nil {
				return err
			}
			page, search, bytes = append(page, p), append(search, s), bytes+n
		}
		fmt.Printf("%-8s page p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms | search p50 %6.2f ms  p99 %6.2f ms | %.1f KB a page\n",
			mode, ms(pct(page, 50)), ms(pct(page, 99)), ms(slices.Max(page)), ms(pct(search, 50)), ms(pct(search, 99)), float64(bytes)/float64(len(qs))/1024)
	}
	return nil
}

// serve runs one search page request through the handler and returns the
// page's server time, the search's share and the page size.
func serve(h http.Handler, q, mode string) (time.Duration, time.Duration, int, error) {
	req := httptest.NewRequest(http.MethodGet, "/?"+url.Values{"q": {q}, "mode": {mode}}.Encode(), nil)
	req.Host = "127.0.0.1:7777"
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, req)
	took := time.Since(start)
	if rec.Code != http.StatusOK {
		return 0, 0, 0, fmt.Errorf("query %q (%s): status %d: %.300s", q, mode, rec.Code, rec.Body.String())
	}
	dur, _ := strings.CutPrefix(rec.Header().Get("Server-Timing"), "search;dur=")
	f, _ := strconv.ParseFloat(dur, 64)
	return took, time.Duration(f * float64(time.Millisecond)), rec.Body.Len(), nil
}

// browsePages are the pages timed besides search.
var browsePages = []string{"/ui/corpora", "/ui/corpora?corpus=bench", "/ui/corpora?corpus=sessions",
	"/ui/corpora?corpus=memories", "/ui/sessions", "/ui/sessions?from=2025-01-01&to=2025-06-30",
	"/ui/memories", "/ui/memories?status=all", "/ui/diagnostics"}

// timePage serves path once to warm it, then n times, and prints the wall
// and process CPU percentiles and the page size.
func timePage(h http.Handler, path string, n int) error {
	if _, _, _, err := get(h, path); err != nil {
		return err
	}
	var wall, cpu []time.Duration
	var size int
	for range max(1, n) {
		w, c, b, err := get(h, path)
		if err != nil {
			return err
		}
		wall, cpu, size = append(wall, w), append(cpu, c), b
	}
	fmt.Printf("%-34s %9.2f %9.2f %9.2f %9.2f %9.1f\n", path, ms(pct(wall, 50)), ms(pct(wall, 99)), ms(pct(cpu, 50)), ms(pct(cpu, 99)), float64(size)/1024)
	return nil
}

// get serves one page and returns its server time, the process's CPU
// time over it and its size.
func get(h http.Handler, path string) (time.Duration, time.Duration, int, error) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "127.0.0.1:7777"
	rec := httptest.NewRecorder()
	c0 := cpuTime()
	start := time.Now()
	h.ServeHTTP(rec, req)
	took := time.Since(start)
	cpu := cpuTime() - c0
	if rec.Code != http.StatusOK {
		return 0, 0, 0, fmt.Errorf("page %s: status %d: %.300s", path, rec.Code, rec.Body.String())
	}
	return took, cpu, rec.Body.Len(), nil
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
