package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixture is a real engine over a small notes corpus (and, with sessions,
// the Claude Code transcript fixtures), synced once.
type fixture struct {
	notes    string
	sessRoot string // Claude Code root of the sessions corpus
	data     string
	eng      *engine.Engine
	agent    *Agent
}

type fixtureOpts struct {
	name     string // agent id, default "default"
	sessions bool   // add a sessions corpus
	noSync   bool
	// todo, when set, adds a corpus "todo" of this one file (relative to
	// the notes folder).
	todo string
}

// topics fill the notes corpus: one distinctive note per topic plus
// fillers, so BM25 has enough documents to give clear scores.
var topics = map[string]string{
	"db.md":      "# Database\n\nSet busy_timeout to 5000 ms so writers wait instead of failing.\n\nDecision: WAL mode stays on.\n",
	"deploy.md":  "# Deploy\n\nThe staging cluster deploys from the release branch every night.\n",
	"people.md":  "# People\n\nMarguerite owns the billing service and prefers short design notes.\n",
	"sub/api.md": "# API\n\nThe parseConfig loader reads config.toml and rejects unknown keys.\n",
}

func newFixture(t testing.TB, o fixtureOpts) *fixture {
	t.Helper()
	f := &fixture{notes: t.TempDir(), data: t.TempDir()}
	for name, text := range topics {
		write(t, filepath.Join(f.notes, name), text)
	}
	for i := range 16 {
		write(t, filepath.Join(f.notes, fmt.Sprintf("filler-%02d.md", i)),
			fmt.Sprintf("# Filler %d\n\nRoutine entry number %d about weather, lunch and the garden.\n", i, i))
	}
	write(t, filepath.Join(f.notes, "long.md"), longDoc(3000))
	corpora := []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{f.notes}, Glob: cairn.DefaultGlob}}
	if o.todo != "" {
		corpora = append(corpora, cairn.Corpus{Name: "todo", Kind: cairn.KindFiles, Paths: []string{filepath.Join(f.notes, o.todo)}, Glob: cairn.DefaultGlob})
	}
	if o.sessions {
		root := t.TempDir()
		f.sessRoot = root
		copyTree(t, "../ingest/testdata/transcripts/claude-code", root)
		corpora = append(corpora, cairn.Corpus{Name: "sessions", Kind: cairn.KindSessions, MaxExpandedTokens: 500,
			Sources: []cairn.SourceSpec{{ID: cairn.SourceClaudeCode, Roots: []string{root}}}, ChatTypes: []string{"direct", "group", "channel"}})
	}
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: f.data, Corpora: corpora})
	if err != nil {
		t.Fatal(err)
	}
	f.eng = eng
	if o.name == "" {
		o.name = "default"
	}
	f.agent = NewAgent(o.name, eng)
	t.Cleanup(func() {
		f.agent.Close(ctx)
		eng.Close(ctx)
	})
	if !o.noSync {
		if _, err := eng.Sync(ctx, nil); err != nil {
			t.Fatalf("sync: %v", err)
		}
	}
	return f
}

func longDoc(lines int) string {
	b := make([]byte, 0, lines*40)
	for i := 1; i <= lines; i++ {
		b = fmt.Appendf(b, "line %04d of the long ledger document\n", i)
	}
	return string(b)
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// connect serves a's tools over the SDK's in-memory transports and returns
// a connected client session.
func connect(t *testing.T, a *Agent) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewMCPServer(a, nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// call calls a tool and returns its text content and whether it is a tool
// error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("CallTool %s: %d content blocks, want 1", name, len(res.Content))
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// callOK calls a tool that must succeed and decodes its result into out.
func callOK(t *testing.T, cs *mcp.ClientSession, name string, args, out any) string {
	t.Helper()
	text, isErr := call(t, cs, name, args)
	if isErr {
		t.Fatalf("%s(%v): tool error %s", name, args, text)
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		t.Fatalf("%s: decode %s: %v", name, text, err)
	}
	return text
}
