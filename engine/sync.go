package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
)

// Sync brings the index up to date with the selected corpora (all when opts
// or opts.Corpora is empty). Per file it skips unchanged size and mtime,
// then unchanged content hash; only new content is chunked. Secrets are
// redacted from a files corpus's text before it is hashed (unless the
// corpus sets NoRedact). Files that vanished leave search at once; a file
// that cannot be read is counted in Failed, listed in Failures, and keeps
// its previously indexed snapshot, except when its path no longer names a
// regular file inside the corpus (a symlink now pointing outside, a pipe):
// then it leaves the index too. Counts report what was committed, also
// when the sync fails.
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
	live, err := e.liveCorpora(ctx) // memories.go
	if err != nil {
		return nil, err
	}
	sel, err := selectScoped(ctx, live, o.Corpora, CanWrite) // scope.go: the corpora the caller may change
	if err != nil {
		return nil, err
	}
	res := &cairn.SyncResult{Corpora: []cairn.CorpusSyncResult{}}
	pruned := 0
	if _, scoped := ScopeOf(ctx); len(o.Corpora) == 0 && !scoped {
		keep := make([]string, len(e.opts.Corpora))
		for i, c := range e.opts.Corpora {
			keep[i] = c.Name
		}
		if pruned, err = e.store.PruneCorpora(ctx, keep); err != nil {
			return nil, err
		}
		res.Pruned = pruned
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
			r, err = e.syncCorpus(ctx, c, o.Force, o.Progress)
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
	// C17: a forced or failed sync leaves the clustering run stale (what
	// it wrote may be partial); other changes mark it through the store's
	// writes.
	if o.Force || syncErr != nil {
		if err := e.store.MarkAnalysisStale(context.WithoutCancel(ctx)); err != nil && syncErr == nil {
			syncErr = err
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

// unreadableDirs lists the document-path prefixes of the folders the scan
// could not read: a folder below a root fails under its exposed path (the
// prefix of the documents in it), a root under its absolute path, which
// maps to its source's prefix ("" for a single-root corpus: every document).
func unreadableDirs(c cairn.Corpus, failures []cairn.FileFailure) ([]string, error) {
	var dirs []string
	var srcs []ingest.Source
	for _, f := range failures {
		if !strings.HasPrefix(f.Reason, ingest.ReasonUnreadableDir) {
			continue
		}
		if !filepath.IsAbs(f.Path) {
			dirs = append(dirs, f.Path)
			continue
		}
		if srcs == nil {
			var err error
			if srcs, err = ingest.Resolve(c); err != nil {
				return nil, err
			}
		}
		for _, src := range srcs {
			if src.Root == f.Path {
				dirs = append(dirs, src.Prefix)
			}
		}
	}
	return dirs, nil
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

// afterScanHook, when set (by tests), runs between a files corpus's scan
// and the reading of its files: the window in which a symlink can be
// swapped.
var afterScanHook func(corpus string)

// With force every file is read again even when its size and mtime match
// (the way out for an edit that kept both); the content hash still skips a
// file whose text is what is stored, so nothing unchanged is re-chunked or
// re-embedded.
func (e *Engine) syncCorpus(ctx context.Context, c cairn.Corpus, force bool, progress func(cairn.ProgressEvent)) (cairn.CorpusSyncResult, error) {
	r := cairn.CorpusSyncResult{Name: c.Name}
	state := redactState(c)
	load := e.loadStates(ctx, c.Name) // unchanged.go: beside the scan
	opts := &ingest.ScanOptions{}
	var skip *unchangedSkip
	if !force {
		// Unchanged files are left out of the scan's list (unchanged.go).
		skip = &unchangedSkip{load: load, want: state}
		opts.Skip = skip.skip
	}
	files, failures, err := ingest.ScanWith(ctx, c, opts)
	<-load.done
	if err = errors.Join(err, load.err); err != nil {
		return r, err
	}
	states, recorded := load.states, load.recorded
	if afterScanHook != nil {
		afterScanHook(c.Name)
	}
	// Documents indexed under another redaction state (before redaction
	// existed, under older rules, or with the corpus's redact setting
	// flipped) are read again even when size and mtime match; the content
	// hash still skips every file whose redacted text is what is stored, so
	// only files holding secrets are re-chunked and re-embedded.
	reread := load.reread(state)
	var skipped []bool
	if skip != nil {
		r.Scanned, skipped = skip.n, skip.skipped
	}
	r.Scanned += len(files)
	todo, known, unseen := mergeStates(files, states, skipped, reread || force)
	r.Unchanged = r.Scanned - len(todo)
	if reread {
		// redactKept reads the state of every document kept unread.
		known = make(map[string]cairn.DocState, len(states))
		for _, st := range states {
			known[st.Path] = st
		}
	}
	if err := e.fillHashes(ctx, load, c.Name, known); err != nil {
		return r, err
	}
	// keep holds what overrides the default of the paths: a scanned file
	// stays, an indexed path the scan did not find goes.
	keep := map[string]bool{}
	for _, f := range failures {
		// A link that now leads outside the root, or nowhere, is dropped
		// like a deleted file; other failures keep what was indexed.
		keep[f.Path] = !ingest.DropsDocument(f)
		r.Failures = append(r.Failures, f)
	}
	missing, err := missingRoots(c)
	if err != nil {
		return r, err
	}
	// An unreadable folder (a changed permission, a flaky network mount)
	// keeps what was indexed below it, as a missing root does: the scan saw
	// nothing there, which is not the same as the files being gone.
	if dirs, err := unreadableDirs(c, failures); err != nil {
		return r, err
	} else if len(dirs) > 0 {
		for _, st := range unseen {
			for _, d := range dirs {
				if d == "" || strings.HasPrefix(st.Path, d+"/") {
					keep[st.Path] = true
					break
				}
			}
		}
	}
	for _, src := range missing {
		// An unmounted disk or a moved folder must not empty the index:
		// report it and keep what was indexed from that root.
		r.Failures = append(r.Failures, cairn.FileFailure{Path: src.Root, Reason: ReasonRootMissing})
		for _, st := range unseen {
			if src.Prefix == "" || strings.HasPrefix(st.Path, src.Prefix+"/") {
				keep[st.Path] = true
			}
		}
	}
	read := make(map[string]bool, len(todo)) // paths read in this sync
	committed, err := e.writeFiles(ctx, c, todo, known, &r, keep, read, progress)
	committed.addTo(&r)
	r.Failed = len(r.Failures)
	if err != nil {
		return r, err
	}
	if reread && !c.NoRedact {
		// What is kept without being read again (a missing root, an
		// unreadable file) is redacted from its stored snapshot.
		t, err := e.redactKept(ctx, c.Name, known, keep, read, &r)
		t.addTo(&r)
		if err != nil {
			return r, err
		}
	}
	var gone []string
	for _, st := range unseen {
		if !keep[st.Path] {
			gone = append(gone, st.Path)
		}
	}
	for _, f := range todo { // read, and found to be no longer a valid document
		if k, ok := keep[f.Rel]; ok && !k {
			if _, indexed := known[f.Rel]; indexed {
				gone = append(gone, f.Rel)
			}
		}
	}
	if len(gone) > 0 {
		if err := e.store.Apply(ctx, &cairn.Batch{Corpus: c.Name, Remove: gone}); err != nil {
			return r, err
		}
		r.Removed = len(gone)
	}
	if recorded == state {
		return r, nil
	}
	if reread && r.Updated > 0 {
		if err := e.purgeReplaced(ctx); err != nil {
			return r, err
		}
	}
	return r, e.store.SetRedactState(ctx, c.Name, state)
}

// mergeStates walks the scanned files and the indexed states, both in path
// order, side by side: it returns the files to read (changed size or
// mtime, new, or all with readAll), the states of those that are indexed,
// and the indexed states no scanned file has. States marked in skipped
// (nil: none) belong to files the scan found unchanged and left out of
// files (unchangedSkip): they are neither read nor unseen. At 480,000
// files a merge of two sorted lists costs a string comparison a file; the
// maps it replaces (every state and every scanned path hashed, then looked
// up) were about a fifth of a no-op sync's CPU.
func mergeStates(files []ingest.File, states []cairn.DocState, skipped []bool, readAll bool) (todo []ingest.File, known map[string]cairn.DocState, unseen []cairn.DocState) {
	known = map[string]cairn.DocState{}
	gone := func(i int) {
		if skipped == nil || !skipped[i] {
			unseen = append(unseen, states[i])
		}
	}
	i := 0
	for _, f := range files {
		for i < len(states) && states[i].Path < f.Rel {
			gone(i)
			i++
		}
		if i < len(states) && states[i].Path == f.Rel {
			st := states[i]
			i++
			if !readAll && st.Size == f.Size && st.ModTime == f.ModTime {
				continue
			}
			known[f.Rel] = st
		}
		todo = append(todo, f)
	}
	for ; i < len(states); i++ {
		gone(i)
	}
	return todo, known, unseen
}

// sortedStater is a store that lists a corpus's documents in path order
// cheaply (sqlite.Store packs them in SQL).
type sortedStater interface {
	SortedDocStates(ctx context.Context, corpus string) ([]cairn.DocState, error)
}

// sortedDocStates returns the documents of a corpus in path order (byte
// order, as ingest.Scan orders its files).
func (e *Engine) sortedDocStates(ctx context.Context, corpus string) ([]cairn.DocState, error) {
	if s, ok := e.store.(sortedStater); ok {
		return s.SortedDocStates(ctx, corpus)
	}
	m, err := e.store.DocStates(ctx, corpus)
	if err != nil {
		return nil, err
	}
	list := slices.Collect(maps.Values(m))
	slices.SortFunc(list, func(a, b cairn.DocState) int { return strings.Compare(a.Path, b.Path) })
	return list, nil
}

// batchBytes bounds the bytes of the files in the first write batch
// (besides Options.BatchSize files); each later batch may hold twice as
// many bytes as the one before, up to maxBatchBytes. The writer waits for
// the first batch to be read and chunked: with 512 files of long documents
// (16 MB) that was nearly the whole corpus, so one core chunked while the
// writer idled and then the writer wrote while the other core idled. A
// small first batch starts the writer early; doubling keeps the number of
// commits (each one an fsync, a full-text segment to merge and a
// statistics check) near what 512-file batches made: at 1 MB batches
// throughout, the 17.8 MB docs corpus took 18 commits and about 10% more
// CPU.
const (
	batchBytes    = 1 << 20
	maxBatchBytes = 32 << 20
)

// batchEnd returns the end of the batch of todo that starts at i: at most
// n files and, past the first, at most max bytes.
func batchEnd(todo []ingest.File, i, n int, max int64) int {
	j, size := i, int64(0)
	for j < len(todo) && j-i < n && (j == i || size+todo[j].Size <= max) {
		size += todo[j].Size
		j++
	}
	return j
}

// prepareWorkers is how many goroutines read and chunk a batch: all the
// engine's workers for the first, which the writer waits for, and one
// fewer for the others, written meanwhile. The writer is one goroutine in
// SQLite's C code; each row it writes is a cgo call, and a goroutine back
// from one needs a P: with every P busy preparing, the writer waited for
// one (on two cores, a first index of the docs corpus of issue 19 had the
// writer 0.56 to 0.69 s runnable but waiting, 0.43 to 0.44 s with one
// preparing worker, go tool trace -pprof=sched at load 30). Preparing is
// about a third of the writer's work, so one worker stays ahead of it.
func prepareWorkers(workers int, first bool) int {
	if first {
		return workers
	}
	return max(1, workers-1)
}

// batchWorkersHook, when set (by tests), sees each batch's files and
// preparing workers.
var batchWorkersHook func(files, workers int)

// writeFiles reads, chunks and writes files in batches: reading and
// chunking batch n+1 overlaps with writing batch n. It returns what the
// committed batches changed; a batch counts only once its write returned,
// so a failed sync reports what the index holds, not what was planned.
func (e *Engine) writeFiles(ctx context.Context, c cairn.Corpus, todo []ingest.File, states map[string]cairn.DocState,
	r *cairn.CorpusSyncResult, keep, read map[string]bool, progress func(cairn.ProgressEvent)) (tally, error) {
	report := func(done int) {
		if progress != nil {
			progress(cairn.ProgressEvent{Corpus: c.Name, Done: r.Unchanged + done, Total: r.Scanned})
		}
	}
	report(0)
	type write struct {
		apply func(context.Context) error // writes the batch
		t     tally
	}
	writes := make(chan write, 1)
	writeErr := make(chan error, 1)
	var committed tally // the writer's alone until writeErr is read
	go func() {
		var err error
		for w := range writes {
			if err == nil {
				if err = w.apply(ctx); err == nil {
					committed.add(w.t)
				}
			}
		}
		writeErr <- err
	}()
	var prepErr error
	sent := map[string]bool{} // content handed to the writer (buildBatch)
	budget := int64(batchBytes)
	for i, j := 0, 0; i < len(todo) && prepErr == nil; i = j {
		if prepErr = ctx.Err(); prepErr != nil {
			break
		}
		j = batchEnd(todo, i, e.opts.BatchSize, budget)
		budget = min(2*budget, maxBatchBytes)
		var b *cairn.Batch
		var t tally
		workers := prepareWorkers(e.opts.Workers, i == 0)
		if batchWorkersHook != nil {
			batchWorkersHook(j-i, workers)
		}
		if b, t, prepErr = e.prepareBatch(ctx, c, todo[i:j], states, r, keep, read, sent, workers); prepErr == nil && b != nil {
			var apply func(context.Context) error
			if apply, prepErr = e.prepareApply(ctx, b, workers); prepErr == nil {
				writes <- write{apply, t}
			}
		}
		report(j)
	}
	close(writes)
	err := errors.Join(prepErr, <-writeErr)
	return committed, err
}

// applyPreparer is a store that does part of a batch's write before it,
// on the preparing goroutines, and returns the write of the rest
// (sqlite.Store: the full-text columns tokenized off the writer,
// sqlite/pretok.go).
type applyPreparer interface {
	PrepareApply(ctx context.Context, b *cairn.Batch, workers int) (func(context.Context) error, error)
}

// prepareApply returns the write of b, with what the store can do of it
// done first on workers goroutines.
func (e *Engine) prepareApply(ctx context.Context, b *cairn.Batch, workers int) (func(context.Context) error, error) {
	if p, ok := e.store.(applyPreparer); ok {
		return p.PrepareApply(ctx, b, workers)
	}
	return func(ctx context.Context) error { return e.store.Apply(ctx, b) }, nil
}

// purgeReplaced removes content that redaction replaced right away, and
// merges the full-text index so no segment still holds its terms; with
// the store's secure_delete the freed pages are zeroed, so the secrets
// leave the database file, not just the search results.
func (e *Engine) purgeReplaced(ctx context.Context) error {
	if _, err := e.store.GC(ctx); err != nil {
		return err
	}
	return e.store.Optimize(ctx)
}
