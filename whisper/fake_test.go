package whisper

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/llm"
	"github.com/cairnmemory/cairn/local"
	wt "github.com/cairnmemory/cairn/whisper/whispertest"
)

// notes of the test corpus: each topic is found by its own words only.
var notes = map[string]string{
	"db.md":     "# Database\n\nWe set busy_timeout to 5000 ms so writers wait instead of failing with SQLITE_BUSY.\n",
	"deploy.md": "# Deploy\n\nThe staging cluster deploys from the release branch every night at 02:00 UTC.\n",
	"fence.md":  "# Garden fence\n\nOn 2 March we settled on cedar boards for the garden fence, stained grey.\n",
	"fence2.md": "# Fence again\n\nThe garden fence posts are set in concrete, one every two metres.\n",
	"angle.md":  "# Angles\n\nmarkup " + strings.Repeat("<", 1100) + "\n",
	"angle2.md": "# Angles two\n\nmarkup " + strings.Repeat(">", 1100) + "\n",
}

// newEngine is a real engine over the notes, synced.
func newEngine(t testing.TB) *engine.Engine {
	t.Helper()
	dir := t.TempDir()
	for i := range 12 {
		notes[fmt.Sprintf("filler-%02d.md", i)] = fmt.Sprintf("# Filler %d\n\nRoutine entry %d about weather and lunch.\n", i, i)
	}
	for name, text := range notes {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir(),
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{dir}, Glob: cairn.DefaultGlob}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(ctx) })
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return eng
}

// rig is a memory whisperer over a real engine, a fake judge and a fake
// query model, with its logs captured.
type rig struct {
	eng    *engine.Engine
	judge  *wt.Judge
	model  *wt.Model
	w      *MemoryWhisperer
	stats  *Stats
	logs   *bytes.Buffer
	cred   string
	logsMu *sync.Mutex
}

type rigOpts struct {
	cfg     config.MemoryWhisperer
	answer  func(c wt.Call) wt.Verdict
	query   func(n int) (string, time.Duration, int)
	timeout int // judge per-request timeout, ms
}

func newRig(t testing.TB, eng *engine.Engine, o rigOpts) *rig {
	t.Helper()
	r := &rig{eng: eng, stats: &Stats{}, logs: &bytes.Buffer{}, cred: CredentialAvailable, logsMu: &sync.Mutex{}}
	r.judge = wt.NewJudge(t, o.answer)
	if o.query == nil {
		o.query = func(int) (string, time.Duration, int) {
			return wt.Queries("busy_timeout", "how long writers wait"), 0, 0
		}
	}
	r.model = wt.NewModel(t, o.query)
	if o.timeout == 0 {
		o.timeout = 5000
	}
	j, err := judge.FromConfig(config.Judge{LLM: config.LLM{API: "openai", BaseURL: r.judge.URL, Model: "judge-m"}, From: "llm.judge", TimeoutMs: o.timeout}, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Cache = nil // every judgment reaches the endpoint
	qm, err := llm.New(config.LLM{API: "openai", BaseURL: r.model.URL, Model: "query-m"}, cairn.PurposeFast, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := o.cfg
	if cfg.MaxHints == 0 {
		def := config.DefaultMemoryWhisperer()
		def.Enabled, def.Corpora = true, []string{"notes"}
		if cfg.TimeoutMs != 0 {
			def.TimeoutMs = cfg.TimeoutMs
		}
		cfg = def
	}
	r.w = NewMemoryWhisperer(MemoryOptions{Config: cfg, Retriever: EngineRetriever{Engine: eng}, Judge: j,
		Credential: func() string { return r.cred }, QueryModel: qm, Stats: r.stats,
		Logger: slog.New(slog.NewJSONHandler(lockedWriter{r.logsMu, r.logs}, nil)),
		Now:    func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }})
	return r
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (r *rig) logText() string {
	r.logsMu.Lock()
	defer r.logsMu.Unlock()
	return r.logs.String()
}

// turn is a user turn of session s with a run id.
func turn(session, run, prompt string, msgs ...Message) *Turn {
	return &Turn{AgentID: "main", SessionID: session, RunID: run, Trigger: TriggerUser, Prompt: prompt, Messages: msgs}
}

func user(text string) Message      { return Message{Role: "user", Content: Content(text)} }
func assistant(text string) Message { return Message{Role: "assistant", Content: Content(text)} }

// useful answers the recall gate yes and each passage by whether its
// excerpt holds want.
func useful(want string) func(c wt.Call) wt.Verdict {
	return func(c wt.Call) wt.Verdict {
		switch c.Rubric {
		case judge.HistoricalRecall.ID:
			return wt.Verdict{P: 0.9}
		case judge.MemoryUsefulness.ID:
			if strings.Contains(wt.Excerpt(c), want) {
				return wt.Verdict{P: 0.95}
			}
			return wt.Verdict{P: 0.1}
		}
		return wt.Verdict{P: 0.1}
	}
}
