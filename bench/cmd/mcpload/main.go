// Command mcpload is the load test of the MCP server: concurrent MCP
// clients call memory_search over streamable HTTP (with a bearer token)
// while a sync indexes thousands of new notes into the same index. It
// reports errors and latency percentiles, split by whether the sync was
// running, and exits 1 on any error.
//
//	go run -tags sqlite_fts5 ./bench/cmd/mcpload -clients 50 -duration 30s -base 2000 -notes 10000
//
// The server is the mcpserver package's HTTP handler on a loopback port in
// this process; the clients are the Go SDK's streamable HTTP clients, one
// session each.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type options struct {
	clients  int
	duration time.Duration
	base     int // notes indexed before the load
	notes    int // notes the sync under load indexes
	queries  int
	seed     int64
	out      string

	cpuProfile string
}

func main() {
	var o options
	flag.IntVar(&o.clients, "clients", 50, "concurrent MCP clients")
	flag.DurationVar(&o.duration, "duration", 30*time.Second, "how long the clients search")
	flag.IntVar(&o.base, "base", 2000, "notes indexed before the load starts")
	flag.IntVar(&o.notes, "notes", 10000, "new notes the sync under load indexes")
	flag.IntVar(&o.queries, "queries", 500, "distinct queries the clients cycle through")
	flag.Int64Var(&o.seed, "seed", 1, "corpus and query seed")
	flag.StringVar(&o.out, "out", "", "work folder, kept (default a temporary folder, removed)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the load phase to this file")
	flag.Parse()
	o.cpuProfile = *cpuProfile
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "mcpload:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	dir := o.out
	if dir == "" {
		tmp, err := os.MkdirTemp("", "mcpload-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	notes := filepath.Join(dir, "notes")
	logf("generating %d base notes", o.base)
	if _, _, err := corpus.Generate(filepath.Join(notes, "base"), corpus.Options{Notes: o.base, Seed: o.seed}); err != nil {
		return err
	}
	eng, err := local.Open(ctx, engine.Options{Dir: filepath.Join(dir, "data"),
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}}})
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		return err
	}
	logf("generating %d new notes for the sync under load", o.notes)
	if _, _, err := corpus.Generate(filepath.Join(notes, "new"), corpus.Options{Notes: o.notes, Seed: o.seed + 1}); err != nil {
		return err
	}
	agent := mcpserver.NewAgent("default", eng)
	defer agent.Close(ctx)
	queries := validQueries(ctx, agent, corpus.Queries(o.queries, o.seed))
	url, stop, err := serve(agent, "load-token")
	if err != nil {
		return err
	}
	defer stop()
	sessions, err := connect(ctx, url, "load-token", o.clients)
	if err != nil {
		return err
	}
	defer func() {
		for _, cs := range sessions {
			cs.Close()
		}
	}()
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	logf("%d clients searching for %s while the sync runs", o.clients, o.duration)
	return load(ctx, o, eng, sessions, queries)
}

// validQueries drops the queries the tool rejects as invalid (only stop
// words), so any error under load is a real one.
func validQueries(ctx context.Context, a *mcpserver.Agent, qs []string) []string {
	var out []string
	for _, q := range qs {
		if _, err := a.Search(ctx, mcpserver.SearchIn{Query: q}); !mcpserver.IsInvalid(err) {
			out = append(out, q)
		}
	}
	return out
}

// serve runs the HTTP handler on a loopback port.
func serve(a *mcpserver.Agent, token string) (string, func(), error) {
	h, err := mcpserver.NewHandler(mcpserver.HTTPOptions{Agents: []*mcpserver.Agent{a}, Token: token})
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/mcp", func() { srv.Shutdown(context.Background()) }, nil
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func connect(ctx context.Context, url, token string, n int) ([]*mcp.ClientSession, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = n + 8
	hc := &http.Client{Transport: bearer{token, tr}}
	var out []*mcp.ClientSession
	for i := range n {
		c := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("load-%d", i), Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
		if err != nil {
			return out, fmt.Errorf("connect client %d: %w", i, err)
		}
		out = append(out, cs)
	}
	return out, nil
}

type sample struct {
	ms         float64
	duringSync bool
}

func load(ctx context.Context, o options, eng *engine.Engine, sessions []*mcp.ClientSession, queries []string) error {
	var syncing atomic.Bool
	syncing.Store(true)
	var syncRes *cairn.SyncResult
	var syncErr error
	var syncSecs float64
	syncDone := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(syncDone)
		syncRes, syncErr = eng.Sync(ctx, nil)
		syncSecs = time.Since(start).Seconds()
		syncing.Store(false)
	}()
	deadline := start.Add(o.duration)
	var mu sync.Mutex
	var samples []sample
	var errs []string
	var wg sync.WaitGroup
	for i, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []sample
			for k := i; time.Now().Before(deadline); k += len(sessions) {
				during := syncing.Load()
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolSearch,
					Arguments: map[string]any{"query": queries[k%len(queries)], "maxResults": 10, "minScore": 0}})
				ms := float64(time.Since(t0).Microseconds()) / 1000
				if err == nil && res.IsError {
					err = errors.New(res.Content[0].(*mcp.TextContent).Text)
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, err.Error())
					mu.Unlock()
					continue
				}
				mine = append(mine, sample{ms, during && syncing.Load()})
			}
			mu.Lock()
			samples = append(samples, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	<-syncDone
	if syncErr != nil {
		return fmt.Errorf("sync under load: %w", syncErr)
	}
	added := 0
	for _, c := range syncRes.Corpora {
		added += c.Added
	}
	report(o, samples, errs, elapsed, syncSecs, added)
	if len(errs) > 0 {
		return fmt.Errorf("%d errors under load, first: %s", len(errs), errs[0])
	}
	return nil
}

func report(o options, samples []sample, errs []string, elapsed, syncSecs float64, added int) {
	var all, during, after []float64
	for _, s := range samples {
		all = append(all, s.ms)
		if s.duringSync {
			during = append(during, s.ms)
		} else {
			after = append(after, s.ms)
		}
	}
	fmt.Printf("clients %d, %.1f s, %d searches (%.0f/s), %d errors; sync of %d new notes (%d base) took %.1f s\n\n",
		o.clients, elapsed, len(all)+len(errs), float64(len(all)+len(errs))/elapsed, len(errs), added, o.base, syncSecs)
	fmt.Println("| searches | count | p50 ms | p95 ms | p99 ms | max ms |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, row := range []struct {
		name string
		v    []float64
	}{{"all", all}, {"while the sync ran", during}, {"after the sync", after}} {
		slices.Sort(row.v)
		fmt.Printf("| %s | %d | %.2f | %.2f | %.2f | %.2f |\n", row.name, len(row.v), pct(row.v, 0.50), pct(row.v, 0.95), pct(row.v, 0.99), pct(row.v, 1))
	}
}

// pct is the nearest-rank percentile of sorted values.
func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[max(int(math.Ceil(p*float64(len(sorted))))-1, 0)]
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mcpload: "+format+"\n", args...)
}
