package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/chunk"
	"github.com/cairnmemory/cairn/ingest"
)

// Sync brings the index up to date with the selected corpora (all when opts
// or opts.Corpora is empty). Per file it skips unchanged size and mtime,
// then unchanged content hash; only new content is chunked. Files that
// vanished leave search at once; a file that cannot be read is counted in
// Failed, listed in Failures, and keeps its previously indexed snapshot.
// When every corpus is synced, documents of corpora no longer configured
// are pruned. Content no document references is deleted at the end.
func (e *Engine) Sync(ctx context.Context, opts *cairn.SyncOptions) (*cairn.SyncResult, error) {
	o := cairn.SyncOptions{}
	if opts != nil {
		o = *opts
	}
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	start := time.Now()
	sel, err := cairn.SelectCorpora(e.opts.Corpora, o.Corpora)
	if err != nil {
		return nil, err
	}
	res := &cairn.SyncResult{Corpora: []cairn.CorpusSyncResult{}}
	if len(o.Corpora) == 0 {
		keep := make([]string, len(e.opts.Corpora))
		for i, c := range e.opts.Corpora {
			keep[i] = c.Name
		}
		if _, err := e.store.PruneCorpora(ctx, keep); err != nil {
			return nil, err
		}
	}
	var syncErr error
	for _, c := range sel {
		r, err := e.syncCorpus(ctx, c, o.Progress)
		res.Corpora = append(res.Corpora, r)
		if err != nil {
			syncErr = fmt.Errorf("sync corpus %s: %w", c.Name, err)
			break
		}
	}
	// Removed text is purged even when a later corpus failed.
	if _, err := e.store.GC(context.WithoutCancel(ctx)); err != nil && syncErr == nil {
		syncErr = err
	}
	res.Seconds = cairn.Since(start)
	return res, syncErr
}

func (e *Engine) syncCorpus(ctx context.Context, c cairn.Corpus, progress func(cairn.ProgressEvent)) (cairn.CorpusSyncResult, error) {
	r := cairn.CorpusSyncResult{Name: c.Name}
	states, err := e.store.DocStates(ctx, c.Name)
	if err != nil {
		return r, err
	}
	files, failures, err := ingest.Scan(ctx, c)
	if err != nil {
		return r, err
	}
	r.Scanned = len(files)
	keep := make(map[string]bool, len(files))
	var todo []ingest.File
	for _, f := range files {
		keep[f.Rel] = true
		if st, ok := states[f.Rel]; ok && st.Size == f.Size && st.ModTime == f.ModTime {
			r.Unchanged++
			continue
		}
		todo = append(todo, f)
	}
	for _, f := range failures {
		keep[f.Path] = true // keep what was indexed before
		r.Failures = append(r.Failures, f)
	}
	report := func(done int) {
		if progress != nil {
			progress(cairn.ProgressEvent{Corpus: c.Name, Done: r.Unchanged + done, Total: len(files)})
		}
	}
	report(0)
	for i := 0; i < len(todo); i += e.opts.BatchSize {
		batch := todo[i:min(i+e.opts.BatchSize, len(todo))]
		if err := e.syncBatch(ctx, c.Name, batch, states, &r, keep); err != nil {
			return r, err
		}
		report(i + len(batch))
	}
	var gone []string
	for p := range states {
		if !keep[p] {
			gone = append(gone, p)
		}
	}
	if len(gone) > 0 {
		if err := e.store.Apply(ctx, &cairn.Batch{Corpus: c.Name, Remove: gone}); err != nil {
			return r, err
		}
		r.Removed = len(gone)
	}
	r.Failed = len(r.Failures)
	return r, nil
}

// loaded is one file read and hashed by a worker.
type loaded struct {
	file ingest.File
	text string
	hash string
	err  error
	doc  *cairn.Document
}

func (e *Engine) syncBatch(ctx context.Context, corpus string, files []ingest.File, states map[string]cairn.DocState, r *cairn.CorpusSyncResult, keep map[string]bool) error {
	items := make([]loaded, len(files))
	e.parallel(len(files), func(i int) {
		it := &items[i]
		it.file = files[i]
		it.text, it.err = ingest.Read(files[i], e.opts.MaxFileSize)
		if it.err == nil {
			sum := sha256.Sum256([]byte(it.text))
			it.hash = hex.EncodeToString(sum[:])
		}
	})
	b := &cairn.Batch{Corpus: corpus}
	var fresh []string
	for i := range items {
		it := &items[i]
		if it.err != nil {
			var re *ingest.ReadError
			if !errors.As(it.err, &re) {
				return it.err
			}
			r.Failures = append(r.Failures, re.Failure())
			keep[it.file.Rel] = true
			continue
		}
		st, existed := states[it.file.Rel]
		if existed && st.Hash == it.hash {
			b.Touch = append(b.Touch, cairn.DocState{Path: it.file.Rel, Hash: it.hash, Size: it.file.Size, ModTime: it.file.ModTime})
			r.Unchanged++
			continue
		}
		if existed {
			r.Updated++
		} else {
			r.Added++
		}
		it.doc = &cairn.Document{Corpus: corpus, Path: it.file.Rel, Hash: it.hash, Text: it.text, Size: it.file.Size, ModTime: it.file.ModTime}
		fresh = append(fresh, it.hash)
	}
	stored, err := e.store.HasContent(ctx, fresh)
	if err != nil {
		return err
	}
	// Chunk each new content once, even when several files share it.
	first := map[string]int{}
	for i := range items {
		if d := items[i].doc; d != nil && !stored[d.Hash] {
			if _, dup := first[d.Hash]; !dup {
				first[d.Hash] = i
			}
		}
	}
	e.parallel(len(items), func(i int) {
		if d := items[i].doc; d != nil && first[d.Hash] == i && !stored[d.Hash] {
			d.Title = chunk.Title(d.Text)
			d.Chunks = e.opts.Chunker.Chunk(d.Text)
			if d.Chunks == nil {
				d.Chunks = []cairn.Chunk{}
			}
		}
	})
	for i := range items {
		if d := items[i].doc; d != nil {
			r.Chunks += len(d.Chunks)
			b.Upserts = append(b.Upserts, *d)
		}
	}
	if len(b.Upserts)+len(b.Touch) == 0 {
		return nil
	}
	return e.store.Apply(ctx, b)
}

// parallel runs fn(0..n-1) on the engine's workers.
func (e *Engine) parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(e.opts.Workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
