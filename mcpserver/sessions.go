package mcpserver

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

// sessionRunner runs at most one background session sync per agent.
type sessionRunner struct {
	agent *Agent

	mu        sync.Mutex
	running   bool
	startedAt string
	// failed is the error of the last run when it failed before the engine
	// could record it (another process's sync held the status, a store
	// error), with when it ended.
	failed, failedAt string
	wg               sync.WaitGroup
	closed           bool // set by close: no run starts after Agent.Close
}

// start begins a session sync of corpus unless one is running in this
// process; it returns when the run started and whether this call started it.
func (r *sessionRunner) start(corpus string, force bool) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running || r.closed {
		return r.startedAt, false
	}
	r.running, r.startedAt = true, time.Now().UTC().Format(time.RFC3339)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		// The engine records the outcome in its status file once it has
		// begun; an error before that is kept here for memory_sync_status.
		before, _ := r.agent.eng.SyncStatus()
		_, err := r.agent.eng.Sync(r.agent.base, &cairn.SyncOptions{Corpora: []string{corpus}, Force: force})
		after, _ := r.agent.eng.SyncStatus()
		r.mu.Lock()
		r.running, r.failed, r.failedAt = false, "", ""
		if err != nil && (after == nil || before != nil && after.StartedAt == before.StartedAt) {
			r.failed, r.failedAt = err.Error(), time.Now().UTC().Format(time.RFC3339)
		}
		r.mu.Unlock()
	}()
	return r.startedAt, true
}

// close keeps runs from starting; Agent.Close then waits for the one
// going.
func (r *sessionRunner) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
}

// state reports whether a run is going and when it started.
func (r *sessionRunner) state() (bool, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running, r.startedAt
}

// lastFailure returns the error of the last run that failed unrecorded.
func (r *sessionRunner) lastFailure() (startedAt, err, at string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.startedAt, r.failed, r.failedAt
}

// wait waits for a running sync or for ctx to end.
func (r *sessionRunner) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for session sync: %w", ctx.Err())
	}
}

// SyncSessions runs memory_sync_sessions (spec C14): it starts a session
// sync in the background and returns at once.
func (a *Agent) SyncSessions(ctx context.Context, in SyncSessionsIn) (*SyncSessionsOut, error) {
	if err := a.unavailable(); err != nil {
		return &SyncSessionsOut{Status: "unavailable", Error: err.Error()}, nil
	}
	corpus, ok := a.sessionsCorpus()
	if !ok {
		return &SyncSessionsOut{Status: "unavailable",
			Error: "no sessions corpus is configured: add one with cairn corpus add sessions --kind sessions --source claude-code"}, nil
	}
	if err := engine.CanWrite(ctx, corpus); err != nil { // the sync runs in the background, past the request's scope
		return nil, err
	}
	if st, err := a.eng.SyncStatus(); err == nil && st.Status == "running" && st.PID != os.Getpid() {
		return &SyncSessionsOut{Status: "already_running", StartedAt: st.StartedAt}, nil
	}
	startedAt, started := a.sessions.start(corpus, in.Force)
	if !started {
		return &SyncSessionsOut{Status: "already_running", StartedAt: startedAt}, nil
	}
	return &SyncSessionsOut{Status: "started", StartedAt: startedAt}, nil
}

// SyncStatus runs memory_sync_status (spec C15). A run this process started
// but the engine has not begun (it waits for another sync of the index) is
// running in phase queued. Under a grant that does not read the sessions
// corpus it says only whether and when the session sync ran
// (lifecycleOnly), without the periodic sync's status.
func (a *Agent) SyncStatus(ctx context.Context, _ Empty) (*SyncStatusOut, error) {
	if err := a.unavailable(); err != nil {
		return &SyncStatusOut{Status: "failed", Error: err.Error()}, nil
	}
	st, err := a.eng.SyncStatus()
	if err != nil {
		return nil, fmt.Errorf("read sync status: %w", err)
	}
	out := statusOut(st)
	if running, startedAt := a.sessions.state(); running && !(st.Status == "running" && st.PID == os.Getpid()) {
		out = &SyncStatusOut{Status: "running", Phase: "queued", StartedAt: startedAt}
	} else if startedAt, msg, at := a.sessions.lastFailure(); !running && msg != "" && st.Status != "running" && st.StartedAt < at {
		out = &SyncStatusOut{Status: "failed", StartedAt: startedAt, CompletedAt: at, Error: msg}
	}
	if !a.readsSessions(ctx) {
		out = lifecycleOnly(out)
	}
	out.Background = a.backgroundFor(ctx)
	return out, nil
}

// lifecycleOnly is a session sync's status for a grant that does not read
// the sessions corpus: whether a sync runs, when it started and ended,
// and whether it failed, without what it counted of the sessions or its
// error text (which names transcripts). Before, a token limited to the
// notes corpus was told the session sync's counts.
func lifecycleOnly(st *SyncStatusOut) *SyncStatusOut {
	return &SyncStatusOut{Status: st.Status, Phase: st.Phase, StartedAt: st.StartedAt, CompletedAt: st.CompletedAt}
}

func statusOut(st *engine.SyncStatus) *SyncStatusOut {
	switch st.Status {
	case "running":
		return &SyncStatusOut{Status: st.Status, Phase: st.Phase, StartedAt: st.StartedAt}
	case "failed":
		return &SyncStatusOut{Status: st.Status, StartedAt: st.StartedAt, CompletedAt: st.CompletedAt, Error: st.Error}
	case "completed":
		return &SyncStatusOut{Status: st.Status, StartedAt: st.StartedAt, CompletedAt: st.CompletedAt,
			Scanned: ptr(st.Scanned), Unchanged: ptr(st.Unchanged), Updated: ptr(st.Updated), Removed: ptr(st.Removed),
			Skipped: ptr(st.Skipped), Failed: ptr(st.Failed), Embedded: ptr(st.Embedded),
			LastSuccessfulSyncAt: st.LastSuccessfulSyncAt, LastCheckedAt: st.LastCheckedAt, LastIndexedAt: st.LastIndexedAt,
			SkipReason: st.SkipReason, Diagnostics: syncCounter(st.Diagnostics)}
	default:
		return &SyncStatusOut{Status: "idle"}
	}
}

// syncCounter is the sync's envelope cleaning, nil when nothing was counted.
func syncCounter(c *cairn.EnvelopeCounts) *SyncCounter {
	if c == nil {
		return nil
	}
	return &SyncCounter{InternalMessagesCleaned: c.InternalMessagesCleaned, AttachmentsCleaned: c.AttachmentsCleaned,
		AttachmentBudgetSkipped: c.AttachmentBudgetSkipped}
}
