package mcpserver

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// gateEmbedder embeds documents only once open is closed (queries at
// once): the vectors of a first sync "take minutes" until the test says.
type gateEmbedder struct {
	open chan struct{}
}

func (g *gateEmbedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "test", Model: "gate", Dimension: 4, Normalized: true}
}

func (g *gateEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	if kind == cairn.EmbedDocument {
		select {
		case <-g.open:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := []float32{1, float32(len(t) % 7), float32(strings.Count(t, "e")), 1}
		var n float32
		for _, x := range v {
			n += x * x
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(float64(n)))
		}
		out[i] = v
	}
	return out, nil
}

// A server started on a never-synced index builds it: the first search
// finds a note without any sync call, while the embedder still holds the
// vectors back (lexical answers, and says so), and a note written after
// the start is found through the watcher. Before the first sync existed,
// the search found nothing.
func TestFirstSyncBuildsIndexLexicalFirst(t *testing.T) {
	notes, data := t.TempDir(), t.TempDir()
	for name, text := range topics {
		write(t, filepath.Join(notes, name), text)
	}
	ctx := context.Background()
	emb := &gateEmbedder{open: make(chan struct{})}
	eng, err := local.Open(ctx, engine.Options{Dir: data, Embedder: emb,
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}}})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAgent("claude", eng)
	defer eng.Close(ctx)
	released := false
	defer func() {
		if !released {
			close(emb.open)
		}
		if err := a.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	if err := a.StartBackground(BackgroundOptions{FirstSync: true, Watch: true, Debounce: 20 * time.Millisecond,
		FirstSyncWait: time.Minute}); err != nil {
		t.Fatal(err)
	}
	out, err := a.Search(ctx, SearchIn{Query: "busy timeout"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) == 0 || out.Results[0].Path != "cairn://notes/db.md" {
		t.Fatalf("first search = %+v; want the note, indexed by the first sync", out)
	}
	if !strings.Contains(out.Warning, "waiting for vectors") || !strings.Contains(out.Warning, "first sync is embedding") {
		t.Errorf("first search warning %q; want the vectors still coming", out.Warning)
	}
	// The search is answered once the index is committed; the phase moves
	// to embedding a moment later, on the sync's goroutine, and stays there
	// while the embedder is held.
	eventually(t, "diagnostics say the first sync is embedding", func() bool {
		d, _ := a.Diagnostics(ctx, Empty{})
		fs := d.Background.FirstSync
		return fs != nil && fs.Status == firstRunning && fs.Phase == phaseEmbedding
	})
	close(emb.open)
	released = true
	eventually(t, "the first sync completes", func() bool {
		st, _ := a.SyncStatus(ctx, Empty{})
		return st.Background.FirstSync.Status == firstCompleted
	})
	out, _ = a.Search(ctx, SearchIn{Query: "busy timeout"})
	if out.Warning != "" || out.Notice != "" {
		t.Errorf("search after the first sync: warning %q notice %q; want none", out.Warning, out.Notice)
	}
	write(t, filepath.Join(notes, "later.md"), "# Later\n\nThe quokka census ends in March.\n")
	eventually(t, "a note written after the start is found", func() bool {
		out, err := a.Search(ctx, SearchIn{Query: "quokka census", MinScore: ptr(0.0)})
		return err == nil && len(out.Results) > 0 && out.Results[0].Path == "cairn://notes/later.md"
	})
}

// Close ends a first sync that is still embedding instead of waiting for
// it, and the engine closes after it.
func TestCloseCancelsFirstSync(t *testing.T) {
	notes, data := t.TempDir(), t.TempDir()
	write(t, filepath.Join(notes, "a.md"), "# A\n\nSome text to embed.\n")
	ctx := context.Background()
	emb := &gateEmbedder{open: make(chan struct{})} // never opened
	eng, err := local.Open(ctx, engine.Options{Dir: data, Embedder: emb,
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}}})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAgent("default", eng)
	if err := a.StartBackground(BackgroundOptions{FirstSync: true}); err != nil {
		t.Fatal(err)
	}
	a.waitFirstSync(ctx) // the lexical index is built; embedding waits on the gate
	if err := a.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := eng.Close(ctx); err != nil {
		t.Fatalf("close engine: %v", err)
	}
	if fs := a.first.snapshot(); fs.Status != firstFailed || !strings.Contains(fs.Error, "canceled") {
		t.Errorf("first sync after Close: %+v; want failed, canceled", fs)
	}
}

// A never-synced index says so in search results and diagnostics (the
// documented `cairn mcp --agent claude` read an index `cairn sync` never
// filled, and answered {"results":[]} with no word).
func TestEmptyIndexNotice(t *testing.T) {
	f := newFixture(t, fixtureOpts{name: "claude", noSync: true})
	ctx := context.Background()
	out, err := f.agent.Search(ctx, SearchIn{Query: "busy timeout"})
	if err != nil {
		t.Fatal(err)
	}
	want := "index is empty: nothing synced yet for agent claude"
	if len(out.Results) != 0 || !strings.Contains(out.Notice, want) {
		t.Errorf("search of a never-synced index: %+v; want no results and notice %q", out, want)
	}
	d, _ := f.agent.Diagnostics(ctx, Empty{})
	if !slices.ContainsFunc(d.Index.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
		t.Errorf("diagnostics warnings %q; want %q", d.Index.Warnings, want)
	}
	// A synced index with hits has no notice; one without hits neither,
	// as long as it holds documents.
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"busy timeout", "xyzzyplugh"} {
		out, _ = f.agent.Search(ctx, SearchIn{Query: q})
		if out.Notice != "" {
			t.Errorf("search %q of a synced index: notice %q", q, out.Notice)
		}
	}
	if d, _ := f.agent.Diagnostics(ctx, Empty{}); len(d.Index.Warnings) != 0 {
		t.Errorf("diagnostics of a synced index: warnings %q", d.Index.Warnings)
	}
}

// With the embedder unable to load, the agent serves lexical search and
// says why vectors are off in results and diagnostics; vector mode names
// the reason.
func TestEmbedderErrorServesLexical(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	f.agent.EmbedderError = "load onnx runtime: libonnxruntime.so: cannot open shared object file"
	ctx := context.Background()
	out, err := f.agent.Search(ctx, SearchIn{Query: "busy timeout"})
	if err != nil || len(out.Results) == 0 {
		t.Fatalf("search: %+v, %v", out, err)
	}
	if !strings.Contains(out.Warning, "vectors are off") || !strings.Contains(out.Warning, "libonnxruntime.so") {
		t.Errorf("warning %q; want vectors off and the reason", out.Warning)
	}
	d, _ := f.agent.Diagnostics(ctx, Empty{})
	if d.Index.Retrieval.VectorsOff != f.agent.EmbedderError || d.Index.Retrieval.Mode != cairn.ModeLexical ||
		!slices.ContainsFunc(d.Index.Warnings, func(w string) bool { return strings.Contains(w, "vectors are off") }) {
		t.Errorf("diagnostics: %+v", d.Index)
	}
	_, err = f.agent.Search(ctx, SearchIn{Query: "busy", Mode: cairn.ModeVector})
	if !IsInvalid(err) || !strings.Contains(err.Error(), "could not load") {
		t.Errorf("vector mode: %v; want an invalid-input error naming the load failure", err)
	}
}

// A damaged index.db does not stop the server: every tool answers, and
// diagnostics name the file and the remedy.
func TestUnavailableAgentDamagedIndex(t *testing.T) {
	data := t.TempDir()
	garbage := []byte(strings.Repeat("this is not a database ", 400))
	if err := os.WriteFile(filepath.Join(data, engine.DBFile), garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	corpora := []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{t.TempDir()}, Glob: cairn.DefaultGlob}}
	_, openErr := local.Open(ctx, engine.Options{Dir: data, Corpora: corpora})
	if openErr == nil {
		t.Fatal("opening a damaged index.db succeeded")
	}
	a := NewUnavailableAgent("claude", corpora, openErr)
	if err := a.StartBackground(BackgroundOptions{FirstSync: true, Watch: true}); err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	cs := connect(t, a)
	var d DiagnosticsOut
	callOK(t, cs, ToolDiagnostics, map[string]any{}, &d)
	path := filepath.Join(data, engine.DBFile)
	if d.Status != "ok" || d.Index.Status != "unavailable" || !strings.Contains(d.Index.Error, path) {
		t.Errorf("diagnostics index %+v; want unavailable naming %s", d.Index, path)
	}
	var s SearchOut
	callOK(t, cs, ToolSearch, map[string]any{"query": "anything"}, &s)
	if len(s.Results) != 0 || !strings.Contains(s.Error, path) {
		t.Errorf("search: %+v; want no results and the error", s)
	}
	var g GetOut
	callOK(t, cs, ToolGet, map[string]any{"path": "cairn://notes/a.md"}, &g)
	var ss SyncSessionsOut
	callOK(t, cs, ToolSyncSessions, map[string]any{}, &ss)
	var st SyncStatusOut
	callOK(t, cs, ToolSyncStatus, map[string]any{}, &st)
	if g.Status != "unavailable" || ss.Status != "unavailable" || st.Status != "failed" || !strings.Contains(st.Error, path) {
		t.Errorf("get %+v, sync %+v, status %+v; want unavailable, unavailable, failed", g, ss, st)
	}
	var ce *cairn.Error
	if !errors.As(openErr, &ce) || ce.Hint == "" {
		t.Logf("open error carries no hint: %v", openErr)
	}
}

// No corpus configured: the error names the configuration file read.
func TestNoCorpusNamesConfigFile(t *testing.T) {
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	a := NewAgent("default", eng)
	a.ConfigPath = "/home/u/.config/cairn/config.toml"
	_, err = a.Search(ctx, SearchIn{Query: "x"})
	if !IsInvalid(err) || !strings.Contains(err.Error(), "no corpus configured in /home/u/.config/cairn/config.toml") {
		t.Errorf("search without corpora: %v; want the config file named", err)
	}
	d, _ := a.Diagnostics(ctx, Empty{})
	if !slices.ContainsFunc(d.Index.Warnings, func(w string) bool { return strings.Contains(w, a.ConfigPath) }) {
		t.Errorf("diagnostics warnings %q; want the config file named", d.Index.Warnings)
	}
}

// memory_get matches the corpus name ignoring case, as memory_search's
// corpora do (issue 14 item 16); the path inside stays case-sensitive.
func TestGetCorpusCaseInsensitive(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	ctx := context.Background()
	for _, tt := range []struct{ in, status, path string }{
		{"cairn://NOTES/db.md", cairn.StatusOK, "cairn://notes/db.md"},
		{"cairn://Notes/db.md", cairn.StatusOK, "cairn://notes/db.md"},
		{"cairn://notes/DB.md", cairn.StatusNotFound, "cairn://notes/DB.md"},
		{"cairn://other/db.md", cairn.StatusNotFound, "cairn://other/db.md"},
	} {
		out, err := f.agent.Get(ctx, GetIn{Path: tt.in})
		if err != nil || out.Status != tt.status || out.Path != tt.path {
			t.Errorf("get %s = %+v, %v; want %s at %s", tt.in, out, err, tt.status, tt.path)
		}
	}
	if s, _ := f.agent.Search(ctx, SearchIn{Query: "busy timeout", Corpora: []string{"NOTES"}}); len(s.Results) == 0 {
		t.Errorf("search with corpora [NOTES] found nothing")
	}
}
