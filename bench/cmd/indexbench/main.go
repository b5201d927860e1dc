// Command indexbench times the first index of an existing folder of
// Markdown files, then no-op re-indexes, and can write a fingerprint of the
// index it built, so two builds of Cairn can be compared side by side on
// the same documents (bench/RESULTS.md, issue 19 items 3 and 4):
//
//	go build -tags sqlite_fts5 -o /tmp/indexbench ./bench/cmd/indexbench
//	/tmp/indexbench -dir DOCS -index /tmp/ix -noop 3 -fingerprint /tmp/fp.txt
//
// It prints one JSON line: wall and CPU seconds of the first sync (CPU from
// getrusage, so the share of two cores it used shows), chunks per second,
// and the no-op syncs' seconds. The fingerprint lists every chunk (path,
// sequence, byte range, lines, tokens, noise), every full-text posting
// (term, column, offset) keyed by chunk rather than rowid, and the hits of
// a fixed query list drawn from the index's own terms: equal files mean
// the same index and the same search results. With -writer it times the
// store's writer alone (writer.go): the batches of a first index prepared
// first, then written on one thread. With -plain it times the floor a first
// index is held to: the same chunks inserted into a bare FTS5 table like
// chunks_fts in one transaction (plain.go). With -lex it searches indexes
// already built side by side, query by query (lex.go).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/cairnmemory/cairn/bench/procstat"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

type config struct {
	dir, index, corpus, cpuProfile, memProfile, trace, fingerprint, lexDirs string
	noop, queries, lex                                                      int
	keep, fresh, writer, plain, pretok                                      bool
}

// Result is the JSON line indexbench prints.
type Result struct {
	FirstSeconds float64   `json:"firstSeconds"`
	UserSeconds  float64   `json:"userSeconds"`
	SysSeconds   float64   `json:"sysSeconds"`
	CPUShare     float64   `json:"cpuShare"` // (user+sys)/wall: 2 means both cores busy throughout
	Docs         int       `json:"docs"`
	Chunks       int       `json:"chunks"`
	ChunksPerSec float64   `json:"chunksPerSec"`
	NoopSeconds  []float64 `json:"noopSeconds,omitempty"`
	NoopCPU      []float64 `json:"noopCPUSeconds,omitempty"` // user + sys of each no-op sync
	Load1        float64   `json:"load1"`                    // the 1-minute load average before the first sync
	// FirstMallocs and FirstAllocMB are the heap allocations of the first
	// sync (runtime.MemStats), which load does not move.
	FirstMallocs uint64  `json:"firstMallocs"`
	FirstAllocMB float64 `json:"firstAllocMB"`
	// CloseSeconds and CloseCPU are the engine's Close after the syncs
	// (and the fingerprint): mostly the checkpoint of what the WAL still
	// holds, which a one-shot cairn sync pays before it exits.
	CloseSeconds float64 `json:"closeSeconds"`
	CloseCPU     float64 `json:"closeCPUSeconds"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "indexbench: "+err.Error())
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	c := &config{}
	fs := flag.NewFlagSet("indexbench", flag.ContinueOnError)
	fs.StringVar(&c.dir, "dir", "", "folder of Markdown files to index (required)")
	fs.StringVar(&c.index, "index", "", "data directory for the index (required; emptied first unless -fresh=false)")
	fs.StringVar(&c.corpus, "corpus", "docs", "corpus name (an index built by cairnbench names it bench)")
	fs.BoolVar(&c.fresh, "fresh", true, "empty -index before the first sync (false: time syncs over the index there)")
	fs.IntVar(&c.noop, "noop", 1, "no-op syncs to time after the first")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the first sync here")
	fs.StringVar(&c.memProfile, "memprofile", "", "write an allocation profile of the first sync here (go tool pprof -sample_index=alloc_space)")
	fs.StringVar(&c.trace, "trace", "", "write an execution trace of the first sync here (go tool trace)")
	fs.StringVar(&c.fingerprint, "fingerprint", "", "write the index fingerprint here")
	fs.IntVar(&c.queries, "queries", 300, "queries in the fingerprint")
	fs.BoolVar(&c.keep, "keep", true, "keep the index afterwards")
	fs.BoolVar(&c.writer, "writer", false, "time the writer alone: prepare every batch first, then Apply them on one thread (writer.go)")
	fs.BoolVar(&c.pretok, "pretok", true, "with -writer: tokenize the full-text columns before the timed writes, as a sync does (false: on the writer)")
	fs.BoolVar(&c.plain, "plain", false, "time a plain insert of the same chunks into a bare FTS5 table like chunks_fts, one transaction (plain.go)")
	fs.IntVar(&c.lex, "lex", 0, "search the indexes of -lexdirs side by side this many rounds (lex.go)")
	fs.StringVar(&c.lexDirs, "lexdirs", "", "with -lex: data directories of indexes already built, comma-separated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.lex > 0 {
		if c.lexDirs == "" {
			return fmt.Errorf("-lex needs -lexdirs")
		}
		return runLex(ctx, c, stdout)
	}
	if c.writer && c.plain {
		return fmt.Errorf("-writer and -plain are two modes: give one")
	}
	if c.dir == "" || c.index == "" {
		return fmt.Errorf("-dir and -index are required")
	}
	dir, err := filepath.Abs(c.dir)
	if err != nil {
		return fmt.Errorf("resolve -dir: %w", err)
	}
	if c.fresh {
		if err := os.RemoveAll(c.index); err != nil {
			return fmt.Errorf("empty index: %w", err)
		}
	}
	if !c.keep {
		defer os.RemoveAll(c.index)
	}
	if c.plain {
		r, err := runPlain(ctx, c)
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(r)
	}
	if c.writer {
		r, err := runWriter(ctx, c)
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(r)
	}
	corp := cairn.Corpus{Name: c.corpus, Kind: cairn.KindFiles, Paths: []string{dir}, Glob: cairn.DefaultGlob}
	eng, err := local.Open(ctx, engine.Options{Dir: c.index, Corpora: []cairn.Corpus{corp}})
	if err != nil {
		return err
	}
	r, err := measure(ctx, eng, c)
	if err == nil && c.fingerprint != "" {
		err = writeFingerprint(ctx, eng, c)
	}
	u0, s0 := cpuTimes()
	closeStart := time.Now()
	if cerr := eng.Close(ctx); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	u1, s1 := cpuTimes()
	r.CloseSeconds, r.CloseCPU = time.Since(closeStart).Seconds(), u1-u0+s1-s0
	return json.NewEncoder(stdout).Encode(r)
}

func measure(ctx context.Context, eng *engine.Engine, c *config) (*Result, error) {
	r := &Result{Load1: procstat.Load1()}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return nil, fmt.Errorf("create profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, fmt.Errorf("start profile: %w", err)
		}
	}
	if c.trace != "" {
		f, err := os.Create(c.trace)
		if err != nil {
			return nil, fmt.Errorf("create trace: %w", err)
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return nil, fmt.Errorf("start trace: %w", err)
		}
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	u0, s0 := cpuTimes()
	start := time.Now()
	res, err := eng.Sync(ctx, nil)
	r.FirstSeconds = time.Since(start).Seconds()
	u1, s1 := cpuTimes()
	runtime.ReadMemStats(&m1)
	r.FirstMallocs, r.FirstAllocMB = m1.Mallocs-m0.Mallocs, float64(m1.TotalAlloc-m0.TotalAlloc)/1e6
	if c.cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if c.memProfile != "" {
		if err := writeAllocs(c.memProfile); err != nil {
			return nil, err
		}
	}
	if c.trace != "" {
		trace.Stop()
	}
	if err != nil {
		return nil, err
	}
	r.UserSeconds, r.SysSeconds = u1-u0, s1-s0
	r.CPUShare = (r.UserSeconds + r.SysSeconds) / r.FirstSeconds
	for _, cr := range res.Corpora {
		r.Docs += cr.Added + cr.Updated
		r.Chunks += cr.Chunks
		if cr.Failed > 0 {
			return nil, fmt.Errorf("sync: %d files failed, first %s: %s", cr.Failed, cr.Failures[0].Path, cr.Failures[0].Reason)
		}
	}
	r.ChunksPerSec = float64(r.Chunks) / r.FirstSeconds
	for range c.noop {
		u0, s0 := cpuTimes()
		start := time.Now()
		res, err := eng.Sync(ctx, nil)
		if err != nil {
			return nil, err
		}
		r.NoopSeconds = append(r.NoopSeconds, time.Since(start).Seconds())
		u1, s1 := cpuTimes()
		r.NoopCPU = append(r.NoopCPU, u1-u0+s1-s0)
		for _, cr := range res.Corpora {
			if cr.Added+cr.Updated+cr.Removed > 0 {
				return nil, fmt.Errorf("no-op sync changed %d documents", cr.Added+cr.Updated+cr.Removed)
			}
		}
	}
	return r, nil
}

// writeAllocs writes the allocations since the process began (the first
// sync's, bar the engine's open) as a heap profile.
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create memory profile: %w", err)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("write memory profile: %w", err)
	}
	return f.Close()
}

func cpuTimes() (user, sys float64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()).Seconds(), time.Duration(ru.Stime.Nano()).Seconds()
}
