// Command uibench measures the server time of the web search page (package
// web, as cairn serve mounts it behind the API guard) over an index that
// hybridbench built and kept: each query is one GET /?q=... served in
// process, timed from the request to the last byte of the rendered page,
// with the search's own share read from the Server-Timing header.
//
//	go run -tags sqlite_fts5 ./bench/cmd/hybridbench -notes 50000 -shared ../shared -out /tmp/hb50
//	go run -tags sqlite_fts5 ./bench/cmd/uibench -work /tmp/hb50 -shared ../shared
//
// It only reads the index (no sync), so a copy of the work directory can
// be measured while another run uses the original.
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
	"slices"
	"strconv"
	"strings"
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
	flag.Parse()
	if err := run(*work, *shared, *nq, strings.Split(*modeList, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "uibench:", err)
		os.Exit(1)
	}
}

func run(work, shared string, nq int, modes []string) error {
	ctx := context.Background()
	opts := engine.Options{Dir: filepath.Join(work, "data"),
		Corpora: []cairn.Corpus{{Name: "bench", Kind: cairn.KindFiles, Paths: []string{filepath.Join(work, "notes")}}}}
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
	// The other pages once each, after a warm request: they read the
	// store, not the search index.
	for _, p := range []string{"/ui/corpora", "/ui/corpora?corpus=bench", "/ui/sessions", "/ui/memories", "/ui/diagnostics"} {
		get(h, p)
		took, n := get(h, p)
		fmt.Printf("%-26s %7.2f ms %7.1f KB\n", p, ms(took), float64(n)/1024)
	}
	qs := corpus.Queries(nq, 1)
	for _, mode := range modes {
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

// get serves one page and returns its server time and size.
func get(h http.Handler, path string) (time.Duration, int) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "127.0.0.1:7777"
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, req)
	return time.Since(start), rec.Body.Len()
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
