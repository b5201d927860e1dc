package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/chunk"
	"github.com/cairnmemory/cairn/ingest"
	"github.com/cairnmemory/cairn/search"
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
	release, err := e.beginSync(ctx) // recover.go: the inter-process lock, then what a killed sync left
	if err != nil {
		return nil, err
	}
	defer release()
	start := time.Now()
	sel, err := cairn.SelectCorpora(e.opts.Corpora, o.Corpora)
	if err != nil {
		return nil, err
	}
	res := &cairn.SyncResult{Corpora: []cairn.CorpusSyncResult{}}
	pruned := 0
	if len(o.Corpora) == 0 {
		keep := make([]string, len(e.opts.Corpora))
		for i, c := range e.opts.Corpora {
			keep[i] = c.Name
		}
		if pruned, err = e.store.PruneCorpora(ctx, keep); err != nil {
			return nil, err
		}
	}
	var syncErr error
	for _, c := range sel {
		var r cairn.CorpusSyncResult
		var err error
		if c.Kind == cairn.KindSessions {
			var st *SyncStatus
			if st, err = e.beginStatus(); err == nil {
				r, err = e.syncSessions(ctx, c, o.Force, o.Progress, st)
				e.endStatus(st, &r, err)
			}
		} else if c.Kind == cairn.KindMemories {
			r, err = e.syncMemories(ctx, o.Progress) // memories.go
		} else {
			r, err = e.syncCorpus(ctx, c, o.Progress)
		}
		res.Corpora = append(res.Corpora, r)
		if err != nil {
			syncErr = fmt.Errorf("sync corpus %s: %w", c.Name, err)
			break
		}
	}
	// Removed text is purged even when a later corpus failed. Without
	// updates or removals there is nothing to collect.
	if changed(res, pruned) {
		if _, err := e.store.GC(context.WithoutCancel(ctx)); err != nil && syncErr == nil {
			syncErr = err
		}
	}
	if syncErr == nil {
		syncErr = e.maybeOptimize(ctx, res)
	}
	if e.opts.Embedder != nil && syncErr == nil {
		res.Embedded, res.PendingEmbeddings, syncErr = e.embedPending(ctx, o.Progress)
	}
	if e.opts.Embedder != nil {
		chunksChanged := syncErr != nil || pruned > 0 || slices.ContainsFunc(res.Corpora, func(c cairn.CorpusSyncResult) bool {
			return c.Added > 0 || c.Updated > 0 || c.Removed > 0
		})
		e.afterSync(res.PendingEmbeddings, chunksChanged)
		// Rebuild the lane and its index file now, while the caller waits
		// for the sync anyway, rather than in the next search.
		if syncErr == nil && (chunksChanged || res.Embedded > 0) {
			syncErr = e.loadVectors(ctx)
		}
	}
	res.Seconds = cairn.Since(start)
	return res, syncErr
}

// optimizeMinChunks is the smallest sync that considers optimizing.
const optimizeMinChunks = 1000

// maybeOptimize merges the full-text index after a sync that wrote at least
// a fifth of all chunks (a first sync, a big import); small syncs leave the
// merging to FTS5's automerge.
func (e *Engine) maybeOptimize(ctx context.Context, res *cairn.SyncResult) error {
	written := 0
	for _, c := range res.Corpora {
		written += c.Chunks
	}
	if written < optimizeMinChunks {
		return nil
	}
	total, err := e.store.ChunkCount(ctx)
	if err != nil || written*5 < total {
		return err
	}
	return e.store.Optimize(ctx)
}

// ReasonRootMissing is the failure reason of a corpus root that does not
// exist; the documents indexed from it are kept.
const ReasonRootMissing = "corpus root does not exist; keeping what was indexed from it"

// missingRoots returns the sources of c whose root directory is missing.
func missingRoots(c cairn.Corpus) ([]ingest.Source, error) {
	srcs, err := ingest.Resolve(c)
	if err != nil {
		return nil, err
	}
	var out []ingest.Source
	for _, src := range srcs {
		if _, err := os.Stat(src.Root); errors.Is(err, fs.ErrNotExist) {
			out = append(out, src)
		}
	}
	return out, nil
}

// changed reports whether a sync may have orphaned content.
func changed(res *cairn.SyncResult, pruned int) bool {
	for _, c := range res.Corpora {
		if c.Updated > 0 || c.Removed > 0 {
			return true
		}
	}
	return pruned > 0
}

func (e *Engine) syncCorpus(ctx context.Context, c cairn.Corpus, progress func(cairn.ProgressEvent)) (cairn.CorpusSyncResult, error) {
	r := cairn.CorpusSyncResult{Name: c.Name}
	// The scan is syscall-bound and the state query CPU-bound: overlap them.
	var states map[string]cairn.DocState
	var statesErr error
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		states, statesErr = e.store.DocStates(ctx, c.Name)
	}()
	files, failures, err := ingest.Scan(ctx, c)
	<-loaded
	if err = errors.Join(err, statesErr); err != nil {
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
	missing, err := missingRoots(c)
	if err != nil {
		return r, err
	}
	for _, src := range missing {
		// An unmounted disk or a moved folder must not empty the index:
		// report it and keep what was indexed from that root.
		r.Failures = append(r.Failures, cairn.FileFailure{Path: src.Root, Reason: ReasonRootMissing})
		for p := range states {
			if src.Prefix == "" || strings.HasPrefix(p, src.Prefix+"/") {
				keep[p] = true
			}
		}
	}
	report := func(done int) {
		if progress != nil {
			progress(cairn.ProgressEvent{Corpus: c.Name, Done: r.Unchanged + done, Total: len(files)})
		}
	}
	report(0)
	// Reading and chunking batch n+1 overlaps with writing batch n.
	writes := make(chan *cairn.Batch, 1)
	writeErr := make(chan error, 1)
	go func() {
		var err error
		for b := range writes {
			if err == nil {
				err = e.store.Apply(ctx, b)
			}
		}
		writeErr <- err
	}()
	var prepErr error
	for i := 0; i < len(todo) && prepErr == nil; i += e.opts.BatchSize {
		if prepErr = ctx.Err(); prepErr != nil {
			break
		}
		batch := todo[i:min(i+e.opts.BatchSize, len(todo))]
		var b *cairn.Batch
		if b, prepErr = e.prepareBatch(ctx, c.Name, batch, states, &r, keep); prepErr == nil && b != nil {
			writes <- b
		}
		report(i + len(batch))
	}
	close(writes)
	if err := errors.Join(prepErr, <-writeErr); err != nil {
		return r, err
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

// prepareBatch reads, hashes and chunks files and returns the batch to
// write, or nil when nothing needs writing.
func (e *Engine) prepareBatch(ctx context.Context, corpus string, files []ingest.File, states map[string]cairn.DocState, r *cairn.CorpusSyncResult, keep map[string]bool) (*cairn.Batch, error) {
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
				return nil, it.err
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
		return nil, err
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
			for i := range d.Chunks {
				if c := &d.Chunks[i]; !c.Noise {
					c.Ident = search.IdentText(d.Text[c.Pos : c.Pos+c.Len])
				}
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
		return nil, nil
	}
	return b, nil
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
