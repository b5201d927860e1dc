package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// Result is what one size measured. Times are seconds unless named ms.
type Result struct {
	Notes       int     `json:"notes"`
	CorpusBytes int64   `json:"corpusBytes"`
	GenSeconds  float64 `json:"genSeconds"`

	FirstSync Sync `json:"firstSync"`
	NoopSync  Sync `json:"noopSync"`
	EditSync  Sync `json:"editSync"` // after corpus.Edit of 1% of the notes
	Edited    int  `json:"edited"`

	IndexBytes  int64 `json:"indexBytes"` // database plus WAL
	IndexDocs   int   `json:"indexDocs"`
	IndexChunks int   `json:"indexChunks"`

	Search Latency            `json:"search"`
	ByKind map[string]Latency `json:"byKind"`
	CLI    *Latency           `json:"cli,omitempty"`

	PeakRSSAfterSync int64 `json:"peakRSSAfterSyncBytes"` // VmHWM after the first sync
	PeakRSS          int64 `json:"peakRSSBytes"`          // VmHWM at the end
}

// Sync is one timed engine.Sync.
type Sync struct {
	Seconds      float64 `json:"seconds"`
	Scanned      int     `json:"scanned"`
	Added        int     `json:"added"`
	Updated      int     `json:"updated"`
	Chunks       int     `json:"chunks"` // chunks written
	DocsPerSec   float64 `json:"docsPerSec"`
	ChunksPerSec float64 `json:"chunksPerSec"`
	MBPerSec     float64 `json:"mbPerSec"` // corpus MB (10^6 bytes) scanned per second
}

// runChild measures one size in this process and prints its Result as JSON.
func runChild(ctx context.Context, c *config, stdout, stderr io.Writer) error {
	r := &Result{Notes: c.child}
	notes, home := filepath.Join(c.out, "notes"), filepath.Join(c.out, "home")
	for _, d := range []string{notes, home} {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("clear %s: %w", d, err)
		}
	}
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "cairnbench: %d notes: "+format+"\n", append([]any{c.child}, args...)...)
	}
	start := time.Now()
	_, size, err := corpus.Generate(notes, corpus.Options{Notes: c.child, Seed: c.seed})
	if err != nil {
		return err
	}
	r.CorpusBytes, r.GenSeconds = size, time.Since(start).Seconds()
	logf("generated %.1f MB in %.1fs", float64(size)/1e6, r.GenSeconds)
	if err := writeConfig(home, notes); err != nil {
		return err
	}
	// The library run uses the CLI's index directory for agent "default",
	// so -cli searches the index built here without another sync.
	corp := cairn.Corpus{Name: "bench", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}
	eng, err := local.Open(ctx, engine.Options{Dir: filepath.Join(home, "agents", "default"), Corpora: []cairn.Corpus{corp}})
	if err != nil {
		return err
	}
	if err := measureEngine(ctx, eng, c, r, notes, logf); err != nil {
		eng.Close(ctx)
		return err
	}
	if err := eng.Close(ctx); err != nil {
		return err
	}
	if c.cli != "" {
		l, err := measureCLI(ctx, c.cli, home, corpus.Queries(cliQueries, c.seed))
		if err != nil {
			return err
		}
		r.CLI = &l
		logf("cli p50 %.1fms", l.P50)
	}
	r.PeakRSS = peakRSS()
	enc := json.NewEncoder(stdout)
	return enc.Encode(r)
}

func measureEngine(ctx context.Context, eng *engine.Engine, c *config, r *Result, notes string, logf func(string, ...any)) error {
	var err error
	if r.FirstSync, err = timeSync(ctx, eng, r.CorpusBytes); err != nil {
		return err
	}
	r.PeakRSSAfterSync = peakRSS()
	logf("first sync %.2fs, %d chunks", r.FirstSync.Seconds, r.FirstSync.Chunks)
	if r.NoopSync, err = timeSync(ctx, eng, r.CorpusBytes); err != nil {
		return err
	}
	if r.Edited, err = corpus.Edit(notes, 0.01, c.seed+1); err != nil {
		return err
	}
	if r.EditSync, err = timeSync(ctx, eng, r.CorpusBytes); err != nil {
		return err
	}
	logf("no-op sync %.2fs, 1%% edit sync %.2fs", r.NoopSync.Seconds, r.EditSync.Seconds)
	st, err := eng.IndexStats(ctx)
	if err != nil {
		return err
	}
	r.IndexBytes, r.IndexDocs, r.IndexChunks = st.Bytes, st.Documents, st.Chunks
	r.Search, r.ByKind, err = measureSearch(ctx, eng, corpus.LabeledQueries(c.queries, c.seed))
	if err != nil {
		return err
	}
	logf("search p50 %.2fms p99 %.2fms", r.Search.P50, r.Search.P99)
	return nil
}

// timeSync runs one full sync and derives rates from the corpus size.
func timeSync(ctx context.Context, eng *engine.Engine, corpusBytes int64) (Sync, error) {
	start := time.Now()
	res, err := eng.Sync(ctx, nil)
	secs := time.Since(start).Seconds()
	if err != nil {
		return Sync{}, err
	}
	s := Sync{Seconds: secs}
	for _, c := range res.Corpora {
		s.Scanned += c.Scanned
		s.Added += c.Added
		s.Updated += c.Updated
		s.Chunks += c.Chunks
		if c.Failed > 0 {
			return s, fmt.Errorf("sync: %d files failed, first %s: %s", c.Failed, c.Failures[0].Path, c.Failures[0].Reason)
		}
	}
	s.DocsPerSec = float64(s.Added+s.Updated) / secs
	s.ChunksPerSec = float64(s.Chunks) / secs
	s.MBPerSec = float64(corpusBytes) / 1e6 / secs
	return s, nil
}

func writeConfig(home, notes string) error {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return fmt.Errorf("create home: %w", err)
	}
	toml := "[[corpus]]\nname = \"bench\"\nkind = \"files\"\npaths = [" + strconv.Quote(notes) + "]\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(toml), 0o644); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}
