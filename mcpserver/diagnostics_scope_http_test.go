package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shutEmbedder embeds like topicEmbedder under one identity, and refuses
// documents when shut (queries pass): chunks synced meanwhile wait for
// vectors.
type shutEmbedder struct{ shut bool }

func (shutEmbedder) Identity() cairn.EmbedderIdentity { return topicEmbedder{}.Identity() }

func (e shutEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	if e.shut && kind == cairn.EmbedDocument {
		return nil, errors.New("embedder shut for the test")
	}
	return topicEmbedder{}.Embed(ctx, kind, texts)
}

// TestDiagnosticsAndSyncStatusScopedHTTP: over MCP on HTTP with an access
// file, on SQLite, memory_diagnostics' needsEmbedding counts only the
// chunks of the corpora the token reads, and memory_sync_status tells a
// token that does not read the sessions corpus whether and when the
// session sync ran, not its counts. Before, the notes-only token was told
// the todo corpus's waiting chunks (and warned of them) and the session
// sync's counts.
func TestDiagnosticsAndSyncStatusScopedHTTP(t *testing.T) {
	ctx := context.Background()
	notes, data := t.TempDir(), t.TempDir()
	for name, text := range topics {
		write(t, filepath.Join(notes, name), text)
	}
	todo := t.TempDir()
	write(t, filepath.Join(todo, "todo.md"), "# Todo\n\nRenew the okapi licence.\n\nCall the plumber about the boiler.\n")
	sessRoot := t.TempDir()
	copyTree(t, "../ingest/testdata/transcripts/claude-code", sessRoot)
	corpora := []cairn.Corpus{
		{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob},
		{Name: "sessions", Kind: cairn.KindSessions, MaxExpandedTokens: 500,
			Sources: []cairn.SourceSpec{{ID: cairn.SourceClaudeCode, Roots: []string{sessRoot}}}, ChatTypes: []string{"direct", "group", "channel"}},
	}
	// Notes and sessions get their vectors; then a todo corpus is synced
	// while the embedder refuses, so only todo's chunks wait.
	eng, err := local.Open(ctx, engine.Options{Dir: data, Embedder: shutEmbedder{}, Corpora: corpora})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(ctx); err != nil {
		t.Fatal(err)
	}
	corpora = append(corpora, cairn.Corpus{Name: "todo", Kind: cairn.KindFiles, Paths: []string{todo}, Glob: cairn.DefaultGlob})
	eng, err = local.Open(ctx, engine.Options{Dir: data, Embedder: shutEmbedder{shut: true}, Corpora: corpora})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(ctx) })
	_, _ = eng.Sync(ctx, &cairn.SyncOptions{Corpora: []string{"todo"}}) // fails embedding, by design
	waiting, err := eng.PendingEmbeddings(ctx)
	if err != nil || waiting == 0 {
		t.Fatalf("chunks waiting after the shut sync: %d, %v; want some", waiting, err)
	}
	agent := NewAgent("default", eng)
	t.Cleanup(func() { agent.Close(ctx) })

	access, err := NewAccess(map[string]Grant{
		sha("all"):      {Name: "all", Agents: []string{"*"}},
		sha("notes"):    {Name: "notes", Agents: []string{"*"}, Corpora: []string{"notes"}},
		sha("todo"):     {Name: "todo", Agents: []string{"*"}, Corpora: []string{"todo"}},
		sha("sessions"): {Name: "sessions", Agents: []string{"*"}, Corpora: []string{"sessions"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, HTTPOptions{Agents: []*Agent{agent}, Access: access})
	connect := func(token string) *mcp.ClientSession {
		t.Helper()
		transport := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp",
			HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, transport, nil)
		if err != nil {
			t.Fatalf("connect as %s: %v", token, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	for _, tt := range []struct {
		token     string
		waiting   int  // needsEmbedding
		counts    bool // the session sync's counts in memory_sync_status
		warnsWait bool
	}{
		{"all", waiting, true, true},
		{"todo", waiting, false, true},
		{"notes", 0, false, false},
		{"sessions", 0, true, false},
	} {
		cs := connect(tt.token)
		var d DiagnosticsOut
		callOK(t, cs, ToolDiagnostics, map[string]any{}, &d)
		if d.Index.NeedsEmbedding != tt.waiting || d.Index.EmbeddingReady != (tt.waiting == 0) {
			t.Errorf("%s: needsEmbedding %d, embeddingReady %v; want %d", tt.token, d.Index.NeedsEmbedding, d.Index.EmbeddingReady, tt.waiting)
		}
		warned := strings.Contains(strings.Join(d.Index.Warnings, "; "), "wait for vectors")
		if warned != tt.warnsWait {
			t.Errorf("%s: warnings %q; want the waiting-vectors warning: %v", tt.token, d.Index.Warnings, tt.warnsWait)
		}
		// memory_search's warning: the lexical lane answered alone for
		// every token (the vector lane waits for the whole agent), but
		// only a token that reads the waiting corpus hears how many wait.
		var so SearchOut
		callOK(t, cs, ToolSearch, map[string]any{"query": "okapi licence", "mode": "hybrid"}, &so)
		counted := strings.HasPrefix(so.Warning, fmt.Sprintf("%d chunks are still waiting", waiting))
		if !strings.Contains(so.Warning, "still waiting for vectors") || counted != tt.warnsWait {
			t.Errorf("%s: search warning %q; want the lexical-lane warning, with the count: %v", tt.token, so.Warning, tt.warnsWait)
		}
		var st SyncStatusOut
		callOK(t, cs, ToolSyncStatus, map[string]any{}, &st)
		if st.Status != "completed" || st.CompletedAt == "" {
			t.Errorf("%s: sync status %+v; want the completed session sync", tt.token, st)
		}
		if got := st.Scanned != nil && st.Updated != nil; got != tt.counts {
			t.Errorf("%s: session sync counts shown: %v (scanned %v, updated %v); want %v", tt.token, got, st.Scanned, st.Updated, tt.counts)
		}
		if !tt.counts && (st.LastIndexedAt != "" || st.Diagnostics != nil || st.SkipReason != "") {
			t.Errorf("%s: sync status %+v tells of the sessions it may not read", tt.token, st)
		}
	}
}
