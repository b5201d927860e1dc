package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/internal/atomicfile"
)

// StatusFile is the session sync status, in the agent's data directory.
const StatusFile = "session-sync-status.json"

// SyncStatus is the state of the last or running session sync (spec C15).
// JSON names are fixed.
type SyncStatus struct {
	Status               string                  `json:"status"` // idle, running, completed, failed
	Phase                string                  `json:"phase,omitempty"`
	PID                  int                     `json:"pid,omitempty"`
	StartedAt            string                  `json:"startedAt,omitempty"`
	CompletedAt          string                  `json:"completedAt,omitempty"`
	Scanned              int                     `json:"scanned"`
	Unchanged            int                     `json:"unchanged"`
	Updated              int                     `json:"updated"`
	Removed              int                     `json:"removed"`
	Skipped              int                     `json:"skipped"`
	Failed               int                     `json:"failed"`
	Embedded             int                     `json:"embedded"`
	LastSuccessfulSyncAt string                  `json:"lastSuccessfulSyncAt,omitempty"`
	LastCheckedAt        string                  `json:"lastCheckedAt,omitempty"`
	LastIndexedAt        string                  `json:"lastIndexedAt,omitempty"`
	SkipReason           string                  `json:"skipReason,omitempty"`
	Error                string                  `json:"error,omitempty"`
	Sources              []cairn.SourceSyncStats `json:"sources,omitempty"`
	Diagnostics          *cairn.EnvelopeCounts   `json:"diagnostics,omitempty"` // envelope cleaning, summed over Sources
}

// IndexStats counts what the index holds and its size on disk. Under a
// scope that reads some corpora (a team server's token with a corpus
// grant, scope.go) it counts only those corpora's documents, their
// contents and chunks, and Bytes is 0 (the size on disk is every
// corpus's): before, such a token's diagnostics told the counts of the
// whole agent. A store that cannot count by corpus (corpusStatser) is
// counted through its documents: Documents and Contents exact, Chunks 0.
func (e *Engine) IndexStats(ctx context.Context) (cairn.IndexStats, error) {
	s, ok := ScopeOf(ctx)
	if !ok || s.Read == nil {
		return e.store.Stats(ctx)
	}
	var names []string
	for _, c := range readable(ctx, e.opts.Corpora) {
		if c.Kind != cairn.KindSkills { // skills live in memory, not in the index
			names = append(names, c.Name)
		}
	}
	if cs, ok := e.store.(corpusStatser); ok {
		return cs.CorpusStats(ctx, names)
	}
	var st cairn.IndexStats
	contents := map[string]bool{}
	for _, c := range names {
		states, err := e.store.DocStates(ctx, c)
		if err != nil {
			return cairn.IndexStats{}, err
		}
		st.Documents += len(states)
		for _, d := range states {
			contents[d.Hash] = true
		}
	}
	st.Contents = len(contents)
	return st, nil
}

// corpusStatser is what a store may offer IndexStats under a scope: the
// counts of some corpora in one query (sqlite/read.go).
type corpusStatser interface {
	CorpusStats(ctx context.Context, corpora []string) (cairn.IndexStats, error)
}

// SyncStatus reads the session sync status. A stored "running" whose
// process is gone reads as "failed" (interrupted); no file reads "idle".
func (e *Engine) SyncStatus() (*SyncStatus, error) {
	data, err := os.ReadFile(filepath.Join(e.opts.Dir, StatusFile))
	if errors.Is(err, fs.ErrNotExist) {
		return &SyncStatus{Status: "idle"}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read sync status: %w", err)
	}
	var st SyncStatus
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("read sync status: %w", err)
	}
	if st.Status == "running" && !e.alive(st.PID) {
		st.Status, st.Phase, st.Error = "failed", "", "interrupted: the syncing process is gone"
	}
	return &st, nil
}

// alive reports whether the process that wrote a running status still
// runs that sync. The status may name this very process's PID after a
// crash and a restart (a container's server is PID 1 every time): then
// only a sync this engine is running counts.
func (e *Engine) alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return e.sessionSyncing.Load()
	}
	return syscall.Kill(pid, 0) == nil
}

// beginStatus records a running session sync, or refuses when another
// process runs one.
func (e *Engine) beginStatus() (*SyncStatus, error) {
	prev, err := e.SyncStatus()
	if err != nil {
		prev = &SyncStatus{}
	}
	if prev.Status == "running" && prev.PID != os.Getpid() {
		return nil, fmt.Errorf("%w: a session sync is already running (pid %d, started %s)", cairn.ErrBusy, prev.PID, prev.StartedAt)
	}
	// lastIndexedAt is carried: a sync that indexes nothing keeps it.
	st := &SyncStatus{Status: "running", Phase: "projecting", PID: os.Getpid(), StartedAt: now(),
		LastSuccessfulSyncAt: prev.LastSuccessfulSyncAt, LastIndexedAt: prev.LastIndexedAt}
	e.sessionSyncing.Store(true)
	if err := e.saveStatus(st); err != nil {
		e.sessionSyncing.Store(false)
		return nil, err
	}
	return st, nil
}

// endStatus records how the session sync ended.
func (e *Engine) endStatus(st *SyncStatus, r *cairn.CorpusSyncResult, syncErr error) {
	defer e.sessionSyncing.Store(false)
	st.Phase, st.PID, st.CompletedAt = "", 0, now()
	if syncErr != nil {
		st.Status, st.Error = "failed", syncErr.Error()
		_ = e.saveStatus(st)
		return
	}
	st.Status = "completed"
	st.Scanned, st.Unchanged, st.Removed = r.Scanned, r.Unchanged, r.Removed
	st.Updated = r.Added + r.Updated
	if ss := r.Sessions; ss != nil {
		st.Sources, st.LastCheckedAt, st.LastIndexedAt, st.SkipReason = ss.Sources, ss.LastCheckedAt, ss.LastIndexedAt, ss.SkipReason
		for _, s := range ss.Sources {
			st.Skipped += s.Skipped
			st.Failed += s.Failed
			if s.Diagnostics != nil {
				st.Diagnostics = cmp.Or(st.Diagnostics, &cairn.EnvelopeCounts{})
				st.Diagnostics.Add(*s.Diagnostics)
			}
		}
	}
	st.Failed += r.Failed
	if st.Failed == 0 {
		st.LastSuccessfulSyncAt = st.CompletedAt
	}
	_ = e.saveStatus(st)
}

func (e *Engine) saveStatus(st *SyncStatus) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(e.opts.Dir, StatusFile), data)
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }

// writeFileAtomic writes through a temporary file (fsync, rename, 0600:
// atomicfile.Write), naming the file in its error.
func writeFileAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}
