package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/engine"
)

// cliQueries is how many searches the -cli run times per size.
const cliQueries = 50

// Latency summarizes a set of timed calls. Times are milliseconds.
type Latency struct {
	N        int     `json:"n"`
	P50      float64 `json:"p50Ms"`
	P95      float64 `json:"p95Ms"`
	P99      float64 `json:"p99Ms"`
	Max      float64 `json:"maxMs"`
	Mean     float64 `json:"meanMs"`
	Errors   int     `json:"errors"`
	ZeroHits int     `json:"zeroHits"`
	Full     int     `json:"fullHits"` // queries that filled the limit
}

// measureSearch runs every query once untimed, then once timed, limit 10.
func measureSearch(ctx context.Context, eng *engine.Engine, qs []corpus.Query) (Latency, map[string]Latency, error) {
	opts := &cairn.SearchOptions{Limit: 10}
	for _, q := range qs {
		if _, err := eng.Search(ctx, q.Text, opts); err != nil && !errors.Is(err, cairn.ErrInvalid) {
			return Latency{}, nil, fmt.Errorf("search %q: %w", q.Text, err)
		}
	}
	all := &samples{}
	kinds := map[string]*samples{}
	for _, q := range qs {
		start := time.Now()
		hits, err := eng.Search(ctx, q.Text, opts)
		d := time.Since(start)
		if err != nil && !errors.Is(err, cairn.ErrInvalid) {
			return Latency{}, nil, fmt.Errorf("search %q: %w", q.Text, err)
		}
		if kinds[q.Kind] == nil {
			kinds[q.Kind] = &samples{}
		}
		for _, s := range []*samples{all, kinds[q.Kind]} {
			s.add(d, len(hits), opts.Limit, err != nil)
		}
	}
	by := map[string]Latency{}
	for k, s := range kinds {
		by[k] = s.summary()
	}
	return all.summary(), by, nil
}

// measureCLI times cairn search as a separate process, one untimed call
// first, with CAIRN_HOME pointing at the prepared home.
func measureCLI(ctx context.Context, bin, home string, qs []string) (Latency, error) {
	s := &samples{}
	for i, q := range append([]string{qs[0]}, qs...) {
		cmd := exec.CommandContext(ctx, bin, "search", "--limit", "10", "--json", "--", q)
		cmd.Env = append(os.Environ(), "CAIRN_HOME="+home)
		start := time.Now()
		out, err := cmd.Output()
		d := time.Since(start)
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return Latency{}, fmt.Errorf("run %s: %w", bin, err)
		}
		if i > 0 {
			s.add(d, strings.Count(string(out), `"path":`), 10, err != nil)
		}
	}
	return s.summary(), nil
}

type samples struct {
	d                []time.Duration
	errs, zero, full int
}

func (s *samples) add(d time.Duration, hits, limit int, failed bool) {
	s.d = append(s.d, d)
	switch {
	case failed:
		s.errs++
	case hits == 0:
		s.zero++
	case hits >= limit:
		s.full++
	}
}

func (s *samples) summary() Latency {
	l := Latency{N: len(s.d), Errors: s.errs, ZeroHits: s.zero, Full: s.full}
	if len(s.d) == 0 {
		return l
	}
	d := slices.Clone(s.d)
	slices.Sort(d)
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	pct := func(p float64) float64 { return ms(d[max(0, int(math.Ceil(p*float64(len(d))))-1)]) }
	l.P50, l.P95, l.P99, l.Max = pct(0.50), pct(0.95), pct(0.99), ms(d[len(d)-1])
	l.Mean = ms(sum / time.Duration(len(d)))
	return l
}

// peakRSS returns the process's peak resident set size (VmHWM) in bytes,
// or 0 where /proc is missing.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
