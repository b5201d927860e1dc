package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

// Agent serves the tools of one agent over its engine. Each tool is a
// method taking and returning the types in types.go, so the MCP server and
// the HTTP API share validation and output. Its methods are safe for
// concurrent use.
type Agent struct {
	name string
	eng  *engine.Engine

	// base is the lifetime of background syncs: not a request's context,
	// so a sync started by a call outlives it; Close waits for them.
	base   context.Context
	cancel context.CancelFunc

	sessions sessionRunner
	tel      telemetry

	stop     chan struct{} // closed by Close: background loops end
	stopOnce sync.Once
	bg       sync.WaitGroup // background loops

	bgMu     sync.Mutex
	periodic *PeriodicStatus
	watcher  *WatcherStatus
}

// NewAgent returns the tools of agent name over eng. The agent does not own
// eng: the caller closes it after Agent.Close.
func NewAgent(name string, eng *engine.Engine) *Agent {
	base, cancel := context.WithCancel(context.Background())
	a := &Agent{name: name, eng: eng, base: base, cancel: cancel, stop: make(chan struct{})}
	a.sessions.agent = a
	return a
}

// Name returns the agent id.
func (a *Agent) Name() string { return a.name }

// Engine returns the engine the tools call.
func (a *Agent) Engine() *engine.Engine { return a.eng }

// Close stops the background work and waits for running syncs (a session
// sync, a watcher sync) to finish, or for ctx to end; then it cancels what
// is left. It does not close the engine.
func (a *Agent) Close(ctx context.Context) error {
	a.stopOnce.Do(func() { close(a.stop) })
	done := make(chan struct{})
	go func() { a.bg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("wait for background syncs: %w", ctx.Err())
	}
	if err == nil {
		err = a.sessions.wait(ctx)
	}
	a.cancel()
	return err
}

// searchable returns the names of the corpora a search can select.
func (a *Agent) searchable() []string {
	var out []string
	for _, c := range a.eng.Corpora() {
		if c.Kind != cairn.KindSkills {
			out = append(out, c.Name)
		}
	}
	return out
}

// sessionsCorpus returns the name of the sessions corpus, if any.
func (a *Agent) sessionsCorpus() (string, bool) {
	for _, c := range a.eng.Corpora() {
		if c.Kind == cairn.KindSessions {
			return c.Name, true
		}
	}
	return "", false
}

// IsInvalid reports whether err is bad input in a request.
func IsInvalid(err error) bool { return errors.Is(err, cairn.ErrInvalid) }

// background returns a copy of the background status, or nil outside a
// server.
func (a *Agent) background() *Background {
	a.bgMu.Lock()
	defer a.bgMu.Unlock()
	if a.periodic == nil && a.watcher == nil {
		return nil
	}
	b := &Background{}
	if a.periodic != nil {
		p := *a.periodic
		b.Periodic = &p
	}
	if a.watcher != nil {
		w := *a.watcher
		b.Watcher = &w
	}
	return b
}

// updateBackground changes the background status under its lock.
func (a *Agent) updateBackground(fn func(p **PeriodicStatus, w **WatcherStatus)) {
	a.bgMu.Lock()
	defer a.bgMu.Unlock()
	fn(&a.periodic, &a.watcher)
}
