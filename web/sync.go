package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
)

// syncRunner runs at most one sync started from the pages and keeps its
// progress for the long polls that follow it. Its goroutine is owned:
// close cancels it and waits.
type syncRunner struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	state   syncState
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	closed  bool
}

// syncState is what the progress poll returns. JSON names are the
// script's.
type syncState struct {
	Seq       int             `json:"seq"`    // grows with every change
	Status    string          `json:"status"` // idle, running, completed, failed
	StartedAt string          `json:"startedAt,omitempty"`
	EndedAt   string          `json:"endedAt,omitempty"`
	Corpus    string          `json:"corpus,omitempty"` // the corpus being synced
	Done      int             `json:"done"`
	Total     int             `json:"total"`
	Error     string          `json:"error,omitempty"`
	Results   []corpusOutcome `json:"results,omitempty"`
}

// corpusOutcome is one corpus's part of a finished sync.
type corpusOutcome struct {
	Name      string              `json:"name"`
	Scanned   int                 `json:"scanned"`
	Added     int                 `json:"added"`
	Updated   int                 `json:"updated"`
	Unchanged int                 `json:"unchanged"`
	Removed   int                 `json:"removed"`
	Failed    int                 `json:"failed"`
	Failures  []cairn.FileFailure `json:"failures,omitempty"`
}

func (s *syncRunner) init() {
	s.changed = make(chan struct{})
	s.state.Status = "idle"
}

// update changes the state under the lock and wakes the polls.
func (s *syncRunner) update(fn func(st *syncState)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(&s.state)
	s.state.Seq++
	close(s.changed)
	s.changed = make(chan struct{})
}

// snapshot returns the state and the channel closed at its next change.
func (s *syncRunner) snapshot() (syncState, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state
	st.Results = append([]corpusOutcome(nil), st.Results...)
	return st, s.changed
}

// start begins a sync of the given corpora (nil: all) with run, unless
// one is running; it reports whether it started one.
func (s *syncRunner) start(corpora []string, run func(context.Context, *cairn.SyncOptions) (*cairn.SyncResult, error)) bool {
	s.mu.Lock()
	if s.closed || s.state.Status == "running" {
		s.mu.Unlock()
		return false
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.wg.Add(1)
	s.mu.Unlock()
	s.update(func(st *syncState) {
		*st = syncState{Seq: st.Seq, Status: "running", StartedAt: time.Now().UTC().Format(time.RFC3339)}
	})
	go func() {
		defer s.wg.Done()
		defer cancel()
		res, err := run(ctx, &cairn.SyncOptions{Corpora: corpora, Progress: func(ev cairn.ProgressEvent) {
			s.update(func(st *syncState) { st.Corpus, st.Done, st.Total = ev.Corpus, ev.Done, ev.Total })
		}})
		s.update(func(st *syncState) {
			st.EndedAt, st.Status = time.Now().UTC().Format(time.RFC3339), "completed"
			if err != nil {
				st.Status, st.Error = "failed", err.Error()
			}
			if res != nil {
				for _, c := range res.Corpora {
					st.Results = append(st.Results, corpusOutcome{Name: c.Name, Scanned: c.Scanned, Added: c.Added, Updated: c.Updated,
						Unchanged: c.Unchanged, Removed: c.Removed, Failed: c.Failed, Failures: c.Failures})
				}
			}
		})
	}()
	return true
}

// close stops new syncs and waits for the running one; past ctx it is
// cancelled and still awaited.
func (s *syncRunner) close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	cancel := s.cancel
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		if cancel != nil {
			cancel()
		}
		<-done
		return fmt.Errorf("wait for the pages' sync: %w", ctx.Err())
	}
}

// pollWait bounds one long poll: the script asks again after it.
const pollWait = 20 * time.Second

// startSync serves POST /ui/sync (header X-Cairn-UI, optional corpus):
// 202 when a sync started, 409 when one from the pages is running.
func (h *Handler) startSync(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(UIHeader) == "" {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "missing " + UIHeader + " header: start a sync from the corpora page"})
		return
	}
	eng, err := h.eng()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
		return
	}
	var corpora []string
	if c := r.URL.Query().Get("corpus"); c != "" {
		corpora = []string{c}
	}
	if !h.syncs.start(corpora, eng.Sync) {
		st, _ := h.syncs.snapshot()
		writeJSON(w, http.StatusConflict, st)
		return
	}
	st, _ := h.syncs.snapshot()
	writeJSON(w, http.StatusAccepted, st)
}

// progress serves GET /ui/sync/progress?after=SEQ: the state as soon as
// its seq passes after (at once when it already has, or when no sync is
// running, so none will change it), or the same state after pollWait, or
// when the request ends. A malformed after is a 400.
func (h *Handler) progress(w http.ResponseWriter, r *http.Request) {
	after := 0
	if s := r.URL.Query().Get("after"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("after %q is not a sequence number: give a whole number from 0 (the seq last seen)", s)})
			return
		}
		after = n
	}
	st, changed := h.syncs.snapshot()
	if st.Seq <= after && st.Status == "running" {
		t := time.NewTimer(pollWait)
		defer t.Stop()
		select {
		case <-changed:
			st, _ = h.syncs.snapshot()
		case <-t.C:
		case <-r.Context().Done():
			return
		}
	}
	writeJSON(w, http.StatusOK, st)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
