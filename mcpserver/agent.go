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
	eng  *engine.Engine // nil when the index could not be opened (openErr)

	// ConfigPath is the configuration file the corpora came from; messages
	// that say no corpus is configured name it. Set before serving.
	ConfigPath string
	// EmbedderError, when set, is why the configured embedder could not be
	// loaded: the agent serves lexical search and says so in search
	// results and diagnostics. Set before serving.
	EmbedderError string
	// FastModel, when set, is the fast model ([llm.fast]) memory_gather
	// reads candidates with; nil: gathers come back unjudged. Set before
	// serving.
	FastModel cairn.LLM
	// Curation, when set, gates and serves the judged curation tools
	// (curation_judged.go); nil: they answer status disabled. Set before
	// serving.
	Curation *Curation
	// Enhanced, when set, is the agent's judged search and whisperers
	// (judged.go, whisper.go). Set before serving.
	Enhanced *Enhanced

	openErr error          // why the index is unavailable
	corpora []cairn.Corpus // the configured corpora when eng is nil

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

	first firstSync // firstsync.go
}

// NewAgent returns the tools of agent name over eng. The agent does not own
// eng: the caller closes it after Agent.Close.
func NewAgent(name string, eng *engine.Engine) *Agent {
	base, cancel := context.WithCancel(context.Background())
	a := &Agent{name: name, eng: eng, base: base, cancel: cancel, stop: make(chan struct{})}
	a.sessions.agent = a
	a.first.init()
	return a
}

// NewUnavailableAgent returns the tools of an agent whose index (or
// configuration) could not be opened: err says why. The server still
// starts, so a client sees the reason instead of a closed connection:
// memory_search answers {results: [], error}, memory_get and
// memory_sync_sessions status unavailable, memory_sync_status failed, and
// memory_diagnostics reports the index unavailable with err (which names
// the file, e.g. a damaged index.db and the command that repairs it).
// corpora are the configured ones, nil when the configuration itself
// failed. The agent does not retry: restart it after the repair.
func NewUnavailableAgent(name string, corpora []cairn.Corpus, err error) *Agent {
	a := NewAgent(name, nil)
	a.openErr, a.corpora = err, corpora
	return a
}

// unavailable returns why the agent has no index, nil when it has one.
func (a *Agent) unavailable() error {
	if a.eng != nil {
		return nil
	}
	if a.openErr == nil {
		return fmt.Errorf("index unavailable: %w", cairn.ErrUnavailable)
	}
	return a.openErr
}

// configured returns the configured corpora.
func (a *Agent) configured() []cairn.Corpus {
	if a.eng == nil {
		return a.corpora
	}
	return a.eng.Corpora()
}

// noCorpus is the error of a search or get when no corpus is configured:
// it names the configuration file that was read.
func (a *Agent) noCorpus() error {
	where := ""
	if a.ConfigPath != "" {
		where = " in " + a.ConfigPath
	}
	return cairn.Invalidf("no corpus configured%s: add one with cairn corpus add NAME PATH", where)
}

// Name returns the agent id.
func (a *Agent) Name() string { return a.name }

// Engine returns the engine the tools call, nil for an unavailable agent.
func (a *Agent) Engine() *engine.Engine { return a.eng }

// Close stops the background work and waits for running syncs (a session
// sync, a watcher sync) to finish, or for ctx to end; then it cancels what
// is left and waits for it to stop (a sync checks its context between
// files and batches), so no goroutine of the agent outlives Close. A
// session sync asked for after Close does not start. It does not close the
// engine.
func (a *Agent) Close(ctx context.Context) error {
	a.stopOnce.Do(func() { close(a.stop) })
	a.sessions.close()
	a.first.mu.Lock()
	if a.first.cancel != nil {
		a.first.cancel()
	}
	a.first.mu.Unlock()
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
	a.bg.Wait()
	a.sessions.wg.Wait()
	return err
}

// searchable returns the names of the corpora a search can select.
func (a *Agent) searchable() []string {
	var out []string
	for _, c := range a.configured() {
		if c.Kind != cairn.KindSkills {
			out = append(out, c.Name)
		}
	}
	return out
}

// sessionsCorpus returns the name of the sessions corpus, if any.
func (a *Agent) sessionsCorpus() (string, bool) {
	for _, c := range a.configured() {
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
	first := a.first.snapshot()
	if a.periodic == nil && a.watcher == nil && first == nil {
		return nil
	}
	b := &Background{FirstSync: first}
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
