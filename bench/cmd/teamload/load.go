package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/mcpserver"
)

// probeEvery: one request in this many is sent, with the client's token,
// to an agent the token was not granted; it must be refused (403).
const probeEvery = 25

type sample struct {
	ms         float64
	duringSync bool
}

type result struct {
	samples        []sample
	errors         int
	firstErrors    []string
	probes, leaks  int
	elapsed        float64
	syncSecs       []float64
	added          []int
	loadBefore     string
	loadAfter      string
	requestsPerSec float64
}

// serveAndLoad serves the agents behind an access file of one read-only
// token per agent, starts the syncs, and runs the clients for o.duration.
func serveAndLoad(ctx context.Context, o options, t *team) (*result, error) {
	agents := agentsOf(t)
	defer func() {
		for _, a := range agents {
			a.Close(ctx)
		}
	}()
	tokens := map[string]string{}
	grants := map[string]mcpserver.Grant{}
	for _, name := range t.names {
		tok := "teamload-token-" + name
		sum := sha256.Sum256([]byte(tok))
		tokens[name] = tok
		grants[hex.EncodeToString(sum[:])] = mcpserver.Grant{Name: "reader-" + name, Agents: []string{name}}
	}
	access, err := mcpserver.NewAccess(grants)
	if err != nil {
		return nil, err
	}
	h, err := mcpserver.NewHandler(mcpserver.HTTPOptions{Agents: agents, Access: access})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() { defer close(served); srv.Serve(ln) }()
	defer func() { srv.Shutdown(context.WithoutCancel(ctx)); <-served }()
	base := "http://" + ln.Addr().String()
	queries := validQueries(ctx, agents[0], corpus.Queries(o.queries, o.seed))
	if len(queries) == 0 {
		return nil, fmt.Errorf("no valid query among %d generated", o.queries)
	}
	return load(ctx, o, t, base, tokens, queries)
}

// validQueries drops the queries the tool rejects as invalid (only common
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

func load(ctx context.Context, o options, t *team, base string, tokens map[string]string, queries []string) (*result, error) {
	res := &result{loadBefore: loadAvg(), syncSecs: make([]float64, o.syncing), added: make([]int, o.syncing)}
	var running atomic.Int32
	running.Store(int32(o.syncing))
	syncErrs := make([]error, o.syncing)
	var syncs sync.WaitGroup
	start := time.Now()
	for i := range o.syncing {
		syncs.Add(1)
		go func() {
			defer syncs.Done()
			defer running.Add(-1)
			r, err := t.engines[i].Sync(ctx, nil)
			res.syncSecs[i], syncErrs[i] = time.Since(start).Seconds(), err
			if r != nil {
				for _, c := range r.Corpora {
					res.added[i] += c.Added
				}
			}
		}()
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = o.clients + 8
	hc := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	deadline := start.Add(o.duration)
	var mu sync.Mutex
	var clients sync.WaitGroup
	for c := range o.clients {
		clients.Add(1)
		go func() {
			defer clients.Done()
			me := t.names[c%len(t.names)]
			var mine []sample
			var errs []string
			probes, leaks := 0, 0
			for k := c; time.Now().Before(deadline); k += o.clients {
				q := queries[k%len(queries)]
				if k/o.clients%probeEvery == probeEvery-1 && len(t.names) > 1 {
					other := t.names[(c+1+k)%len(t.names)]
					if other == me {
						other = t.names[(c+1)%len(t.names)]
					}
					probes++
					if code, _, err := search(ctx, hc, base, other, tokens[me], q); err != nil || code != http.StatusForbidden {
						leaks++
						errs = append(errs, fmt.Sprintf("token of %s on %s: status %d, %v (want 403)", me, other, code, err))
					}
					continue
				}
				during := running.Load() > 0
				t0 := time.Now()
				code, out, err := search(ctx, hc, base, me, tokens[me], q)
				ms := float64(time.Since(t0).Microseconds()) / 1000
				switch {
				case err != nil:
				case code != http.StatusOK:
					err = fmt.Errorf("status %d", code)
				case out.Error != "":
					err = fmt.Errorf("search error: %s", out.Error)
				}
				if err != nil {
					errs = append(errs, fmt.Sprintf("%s %q: %v", me, q, err))
					continue
				}
				mine = append(mine, sample{ms, during && running.Load() > 0})
			}
			mu.Lock()
			defer mu.Unlock()
			res.samples = append(res.samples, mine...)
			res.errors += len(errs) - leaks
			res.probes, res.leaks = res.probes+probes, res.leaks+leaks
			for _, e := range errs {
				if len(res.firstErrors) < 5 {
					res.firstErrors = append(res.firstErrors, e)
				}
			}
		}()
	}
	clients.Wait()
	res.elapsed = time.Since(start).Seconds()
	res.loadAfter = loadAvg()
	syncs.Wait()
	for i, err := range syncErrs {
		if err != nil {
			return nil, fmt.Errorf("sync of %s under load: %w", t.names[i], err)
		}
	}
	res.requestsPerSec = float64(len(res.samples)+res.errors+res.probes) / res.elapsed
	return res, nil
}

// search posts one search to an agent's HTTP API with a bearer token.
func search(ctx context.Context, hc *http.Client, base, agent, token, q string) (int, *mcpserver.SearchOut, error) {
	body, _ := json.Marshal(map[string]any{"query": q, "maxResults": 10, "minScore": 0})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/agents/"+agent+"/v1/search", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil, nil
	}
	var out mcpserver.SearchOut
	if err := json.Unmarshal(b, &out); err != nil {
		return resp.StatusCode, nil, fmt.Errorf("decode answer: %w", err)
	}
	return resp.StatusCode, &out, nil
}

func (r *result) print(o options) {
	var all, during, after []float64
	for _, s := range r.samples {
		all = append(all, s.ms)
		if s.duringSync {
			during = append(during, s.ms)
		} else {
			after = append(after, s.ms)
		}
	}
	fmt.Printf("%d clients over %d agents, %.1f s, %d searches (%.0f requests/s), %d errors; %d cross-agent probes, %d answered; load %s before, %s after\n",
		o.clients, o.agents, r.elapsed, len(all), r.requestsPerSec, r.errors, r.probes, r.leaks, r.loadBefore, r.loadAfter)
	for i := range r.syncSecs {
		fmt.Printf("sync of agent-%02d's inbox under load: %d documents added in %.1f s\n", i, r.added[i], r.syncSecs[i])
	}
	for _, e := range r.firstErrors {
		fmt.Println("  error:", e)
	}
	fmt.Println()
	fmt.Println("| searches | count | p50 ms | p95 ms | p99 ms | max ms |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, row := range []struct {
		name string
		v    []float64
	}{{"all", all}, {"while a sync ran", during}, {"after the syncs", after}} {
		slices.Sort(row.v)
		fmt.Printf("| %s | %d | %.1f | %.1f | %.1f | %.1f |\n", row.name, len(row.v), pct(row.v, 0.50), pct(row.v, 0.95), pct(row.v, 0.99), pct(row.v, 1))
	}
	fmt.Println()
}

// pct is the nearest-rank percentile of sorted values.
func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[max(int(math.Ceil(p*float64(len(sorted))))-1, 0)]
}
