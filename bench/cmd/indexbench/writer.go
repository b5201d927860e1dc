package main

// The writer alone: -writer prepares every document of -dir first (read,
// redact, hash, title, chunks, identifier text, as a sync does), and with
// -pretok (the default) what the store does of each write before it
// (sqlite.Store.PrepareApply: the full-text columns tokenized), then
// times the writes of the same batches a first sync makes (1 MB,
// doubling to 32 MB, at most 512 files) and the final optimize, on one
// locked OS thread, so the thread's CPU (RUSAGE_THREAD) is the writer's
// own, free of the other core's work and of most of the machine's load.
// -pretok=false writes each batch with Apply, tokenizing on the writer.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/cairnmemory/cairn/bench/procstat"
	"io/fs"
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
	"github.com/cairnmemory/cairn/chunk"
	"github.com/cairnmemory/cairn/redact"
	"github.com/cairnmemory/cairn/search"
	"github.com/cairnmemory/cairn/sqlite"
)

// WriterResult is the JSON line of -writer.
type WriterResult struct {
	WriterSeconds    float64 `json:"writerSeconds"`    // wall of the Apply calls and the optimize
	WriterCPUSeconds float64 `json:"writerCPUSeconds"` // that thread's user+sys
	OptimizeCPU      float64 `json:"optimizeCPUSeconds"`
	// CloseSeconds and CloseCPU are the store's Close after the optimize:
	// the checkpoint of what the WAL still holds into the database file,
	// which a one-shot sync pays before it exits (same thread).
	CloseSeconds float64 `json:"closeSeconds"`
	CloseCPU     float64 `json:"closeCPUSeconds"`
	// WriterMB is what the process wrote meanwhile (wchar of /proc/self/io:
	// WAL frames and checkpoints), which merging drives and load does not.
	WriterMB float64 `json:"writerMB"`
	Batches  int     `json:"batches"`
	Chunks   int     `json:"chunks"`
	Load1    float64 `json:"load1"`
}

// prepareDocs reads every Markdown file under c.dir and prepares it as a
// sync does (redact, hash, title, chunks, identifier text), sorted by
// path; a document whose content an earlier one holds gets no chunks (it
// refers to the stored content).
func prepareDocs(c *config) ([]cairn.Document, error) {
	var docs []cairn.Document
	err := filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text, _ := redact.Redact(string(b))
		sum := sha256.Sum256([]byte(text))
		rel, _ := filepath.Rel(c.dir, p)
		docs = append(docs, cairn.Document{Corpus: c.corpus, Path: rel, Hash: hex.EncodeToString(sum[:]), Text: text, Size: int64(len(b)), ModTime: 1})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read -dir: %w", err)
	}
	slices.SortFunc(docs, func(a, b cairn.Document) int { return strings.Compare(a.Path, b.Path) })
	seen := map[string]bool{}
	ch := chunk.New()
	for i := range docs {
		d := &docs[i]
		if seen[d.Hash] {
			continue // stored content: the document refers to it
		}
		seen[d.Hash] = true
		d.Title = chunk.Title(d.Text)
		d.Chunks = ch.Chunk(d.Text)
		if d.Chunks == nil {
			d.Chunks = []cairn.Chunk{}
		}
		for j := range d.Chunks {
			if k := &d.Chunks[j]; !k.Noise {
				k.Ident = search.IdentText(d.Text[k.Pos : k.Pos+k.Len])
			}
		}
	}
	return docs, nil
}

func runWriter(ctx context.Context, c *config) (*WriterResult, error) {
	docs, err := prepareDocs(c)
	if err != nil {
		return nil, err
	}
	st := sqlite.New(filepath.Join(c.index, sqlite.IndexFile), "indexbench-writer")
	st.Ident = search.IdentText
	if err := st.Open(ctx); err != nil {
		return nil, err
	}
	closed := false
	defer func() {
		if !closed {
			st.Close()
		}
	}()
	r := &WriterResult{Load1: procstat.Load1()}
	var batches []*cairn.Batch
	budget := int64(1 << 20)
	for i := 0; i < len(docs); {
		b := &cairn.Batch{Corpus: c.corpus}
		size := int64(0)
		for i < len(docs) && len(b.Upserts) < 512 && (len(b.Upserts) == 0 || size+docs[i].Size <= budget) {
			size += docs[i].Size
			b.Upserts = append(b.Upserts, docs[i])
			r.Chunks += len(docs[i].Chunks)
			i++
		}
		budget = min(2*budget, 32<<20)
		batches = append(batches, b)
	}
	r.Batches = len(batches)
	applies := make([]func(context.Context) error, len(batches))
	for i, b := range batches {
		if !c.pretok {
			applies[i] = func(ctx context.Context) error { return st.Apply(ctx, b) }
			continue
		}
		if applies[i], err = st.PrepareApply(ctx, b, runtime.GOMAXPROCS(0)); err != nil {
			return nil, err
		}
	}
	runtime.GC()
	// A context without Done: the driver then runs each statement on the
	// calling goroutine (with one, on a goroutine of its own), so the
	// locked thread's CPU is the writer's.
	ctx = context.Background()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if c.cpuProfile != "" { // the writing alone: Go's share against the C below cgocall
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return nil, fmt.Errorf("create profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, fmt.Errorf("start profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	w0 := wchar()
	t0 := threadCPU()
	start := time.Now()
	for _, apply := range applies {
		if err := apply(ctx); err != nil {
			return nil, err
		}
	}
	t1 := threadCPU()
	if err := st.Optimize(ctx); err != nil {
		return nil, err
	}
	t2 := threadCPU()
	r.WriterSeconds = time.Since(start).Seconds()
	r.WriterCPUSeconds = t2 - t0
	r.OptimizeCPU = t2 - t1
	r.WriterMB = float64(wchar()-w0) / 1e6
	closeStart := time.Now()
	closed = true
	if err := st.Close(); err != nil {
		return nil, err
	}
	r.CloseSeconds = time.Since(closeStart).Seconds()
	r.CloseCPU = threadCPU() - t2
	return r, nil
}

// wchar is the bytes the process passed to write calls so far.
func wchar() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// threadCPU is the calling thread's user+sys seconds.
func threadCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
