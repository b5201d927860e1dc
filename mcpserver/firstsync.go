package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
)

// DefaultFirstSyncWait bounds how long a search or get waits for the
// first sync's full-text index (spec C1: the first call builds the index).
// It waits for the lexical index only, never for embeddings: those follow
// in the background while the lexical lane answers. A first build that
// takes longer answers with what is indexed so far and a notice.
const DefaultFirstSyncWait = 15 * time.Second

// First sync statuses (FirstSyncStatus.Status).
const (
	firstRunning   = "running"
	firstCompleted = "completed"
	firstFailed    = "failed"
)

// First sync phases while running.
const (
	phaseIndexing  = "indexing"  // the files corpora: scan, chunk, full-text index
	phaseEmbedding = "embedding" // vectors for the new chunks; lexical search answers
	phaseSessions  = "sessions"  // the whole index: sessions, memories, pruning
)

// firstSync is the sync a server runs when it starts: the files corpora
// first (searches wait for their full-text index, not their vectors), then
// everything else (sessions, memories), so a server started on an empty or
// stale index catches up without a call to a sync tool.
type firstSync struct {
	mu      sync.Mutex
	started bool
	status  FirstSyncStatus
	wait    time.Duration
	cancel  context.CancelFunc // ends the sync early on Close

	lexical     chan struct{} // closed once the full-text index is built
	lexicalOnce sync.Once
}

func (f *firstSync) init() { f.lexical = make(chan struct{}) }

// lexicalReady marks the full-text index built.
func (f *firstSync) lexicalReady() { f.lexicalOnce.Do(func() { close(f.lexical) }) }

func (f *firstSync) update(fn func(s *FirstSyncStatus)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(&f.status)
}

// snapshot returns a copy of the status, nil when no first sync was asked.
func (f *firstSync) snapshot() *FirstSyncStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.started {
		return nil
	}
	s := f.status
	return &s
}

// startFirstSync starts the first sync on a goroutine that Close cancels
// and awaits. Every sync takes the engine's sync lock for its own run
// only, so a `cairn sync` in another process waits for it or it waits for
// that one, never both.
func (a *Agent) startFirstSync(wait time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithCancel(a.base)
	a.first.mu.Lock()
	a.first.started, a.first.wait, a.first.cancel = true, wait, cancel
	a.first.status = FirstSyncStatus{Status: firstRunning, Phase: phaseIndexing, StartedAt: nowUTC()}
	a.first.mu.Unlock()
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		defer cancel()
		defer a.first.lexicalReady() // also when it failed: waiting longer helps nobody
		start := time.Now()
		results, err := a.runFirstSync(ctx)
		logFirstSync(log, a.name, results, time.Since(start), err)
		a.first.update(func(s *FirstSyncStatus) {
			s.Phase, s.CompletedAt = "", nowUTC()
			s.Status = firstCompleted
			if err != nil {
				s.Status, s.Error = firstFailed, err.Error()
			}
		})
	}()
}

// runFirstSync syncs the files corpora, then the whole index. A files
// corpus that fails does not stop the second step: the sessions may still
// be readable; the first error is returned, with the results of the steps
// that returned one.
func (a *Agent) runFirstSync(ctx context.Context) ([]*cairn.SyncResult, error) {
	var files []string
	for _, c := range a.configured() {
		if c.Kind == cairn.KindFiles {
			files = append(files, c.Name)
		}
	}
	progress := func(ev cairn.ProgressEvent) {
		if ev.Corpus == "embeddings" {
			a.first.lexicalReady()
			a.first.update(func(s *FirstSyncStatus) {
				if s.Phase == phaseIndexing {
					s.Phase = phaseEmbedding
				}
			})
		}
	}
	var results []*cairn.SyncResult
	keep := func(r *cairn.SyncResult) {
		if r != nil {
			results = append(results, r)
		}
	}
	var firstErr error
	if len(files) > 0 {
		r, err := a.eng.Sync(ctx, &cairn.SyncOptions{Corpora: files, Progress: progress})
		keep(r)
		firstErr = err
		a.first.lexicalReady()
		if ctx.Err() != nil {
			return results, firstErr
		}
	}
	a.first.update(func(s *FirstSyncStatus) { s.Phase = phaseSessions })
	// The full sync also prunes corpora no longer configured and indexes
	// consolidated memories; the files it finds unchanged cost a stat each.
	r, err := a.eng.Sync(ctx, &cairn.SyncOptions{Progress: progress})
	keep(r)
	if errors.Is(err, cairn.ErrBusy) {
		err = nil // another process runs the session sync; it indexes them
	}
	return results, errors.Join(firstErr, err)
}

// logFirstSync logs what the first sync did: the documents it found and
// the chunks it wrote, or that it failed and why (err only then).
func logFirstSync(log *slog.Logger, agent string, results []*cairn.SyncResult, took time.Duration, err error) {
	docs, written, chunks := firstSyncCounts(results)
	attrs := []any{"agent", agent, "documents", docs, "new_or_changed", written, "chunks", chunks,
		"took", took.Round(time.Millisecond).String()}
	if err != nil {
		log.Warn("first sync failed", append(attrs, "err", err)...)
		return
	}
	log.Info("first sync done", attrs...)
}

// firstSyncCounts sums the results of the first sync's steps: documents
// found (a corpus counted once, by its largest scan: the second step scans
// the files corpora again), documents added or updated, chunks written.
func firstSyncCounts(results []*cairn.SyncResult) (docs, written, chunks int) {
	scanned := map[string]int{}
	for _, r := range results {
		for _, c := range r.Corpora {
			scanned[c.Name] = max(scanned[c.Name], c.Scanned)
			written += c.Added + c.Updated
			chunks += c.Chunks
		}
	}
	for _, n := range scanned {
		docs += n
	}
	return docs, written, chunks
}

// waitFirstSync waits, within the first sync's bound, until the full-text
// index is built. It reports whether it is (always true without a first
// sync).
func (a *Agent) waitFirstSync(ctx context.Context) bool {
	a.first.mu.Lock()
	started, wait := a.first.started, a.first.wait
	a.first.mu.Unlock()
	if !started {
		return true
	}
	select {
	case <-a.first.lexical:
		return true
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-a.first.lexical:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// notices are what a caller should know about the state of the index:
// the first sync still running or failed, nothing indexed, vectors off.
// empty says the search found nothing (then the index is counted).
func (a *Agent) notices(ctx context.Context, empty bool) []string {
	var out []string
	fs := a.first.snapshot()
	if fs != nil {
		switch {
		case fs.Status == firstRunning && fs.Phase == phaseIndexing:
			out = append(out, fmt.Sprintf("sync in progress: the first index build of agent %s has not finished, so results may be incomplete", a.name))
		case fs.Status == firstFailed:
			out = append(out, fmt.Sprintf("the first sync of agent %s failed: %s", a.name, fs.Error))
		}
	}
	if empty && a.eng != nil {
		if st, err := a.eng.IndexStats(ctx); err == nil && st.Documents == 0 {
			out = append(out, a.emptyNotice(fs))
		}
	}
	return out
}

// emptyNotice explains an index without documents.
func (a *Agent) emptyNotice(fs *FirstSyncStatus) string {
	switch {
	case fs == nil:
		return fmt.Sprintf("index is empty: nothing synced yet for agent %s (run cairn sync --agent %s)", a.name, a.name)
	case fs.Status == firstRunning:
		return fmt.Sprintf("index is empty: sync in progress for agent %s", a.name)
	default:
		return fmt.Sprintf("index is empty: the corpora of agent %s (%s) hold no documents; check their paths in %s",
			a.name, joinOr(a.searchable(), "none"), orDefault(a.ConfigPath, "the configuration"))
	}
}

func nowUTC() string { return time.Now().UTC().Format(time.RFC3339) }

func joinOr(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	out := list[0]
	for _, s := range list[1:] {
		out += ", " + s
	}
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
