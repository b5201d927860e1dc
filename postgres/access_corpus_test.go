package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/mcpserver"
)

// leaks are the words only the corpora outside the notes grant hold.
var leaks = []string{"secretplan", "sessiontalk", "memoryfact", "secrettask"}

// corpusAccess: one agent, four corpora that all hold the word zebraword
// (notes: opennote; secret: secretplan; sessions: sessiontalk; memories:
// memoryfact), behind a server whose "docs" token reads notes alone. No
// route, tool, filter or path of that token returns a word of the other
// three (search in every filter form, get by cairn:// path and by file,
// gather, explore, whisper, the MCP tools, the maintenance tasks); naming
// another corpus is 403 naming corpus and token; "docs-writer" (notes and
// memories, writes notes) may not remember or sync sessions. The admin
// token, with every corpus, sees all four, which shows the fixture holds
// what the others must not see.
func corpusAccess(t *testing.T, b Backend) {
	ctx := context.Background()
	b.Agent = "team"
	notes, secret := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(notes, "open.md"), []byte("# Open\n\nzebraword opennote for everyone\n"), 0o600)
	os.WriteFile(filepath.Join(secret, "plan.md"), []byte("# Plan\n\nzebraword secretplan for a few\n"), 0o600)
	eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir(), Backend: b, Corpora: []cairn.Corpus{
		{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: "**/*.md"},
		{Name: "secret", Kind: cairn.KindFiles, Paths: []string{secret}, Glob: "**/*.md"},
		{Name: "sessions", Kind: cairn.KindSessions}}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	if _, err := eng.ImportSessions(ctx, "sessions", "fixture", []cairn.Session{{Source: cairn.SourceCodex, ID: "s1", Cwd: "/work/secret",
		StartedAt: at, Messages: []cairn.Message{{Role: cairn.RoleUser, Text: "zebraword sessiontalk in a session", Time: at}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Remember(ctx, &cairn.RememberRequest{Kind: "fact", Title: "zebraword fact", Summary: "zebraword memoryfact remembered", Agent: "team"}); err != nil {
		t.Fatal(err)
	}
	st, err := b.Open(ctx, t.TempDir(), cairn.StorageOptions{FeatureVersion: engine.FeatureVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, c := range []struct{ corpus, path string }{{"notes", "opennote-task.md"}, {"secret", "secrettask.md"}} {
		if _, err := st.PutMaintenanceTask(ctx, cairn.MaintenanceTask{ID: "task-" + c.corpus, Type: cairn.TaskQualityReview, Corpus: c.corpus, Path: c.path,
			Reason: "r", Fingerprint: c.corpus, Detail: "{}", CreatedAt: time.Now(), UpdatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	access, err := mcpserver.NewAccess(map[string]mcpserver.Grant{
		sum("docs-token"):   {Name: "docs", Agents: []string{"team"}, Corpora: []string{"notes"}},
		sum("writer-token"): {Name: "docs-writer", Agents: []string{"team"}, Corpora: []string{"notes", "memories"}, Write: true, WriteCorpora: []string{"notes"}},
		sum("admin-token"):  {Name: "admin", Agents: []string{"*"}, Write: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := mcpserver.NewHandler(mcpserver.HTTPOptions{Agents: []*mcpserver.Agent{mcpserver.NewAgent("team", eng)}, Access: access})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	do := func(token, method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	mcpCall := func(tool string, args any) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
		return string(b)
	}
	leaked := func(out string) string {
		for _, w := range leaks {
			if strings.Contains(out, w) {
				return w
			}
		}
		return ""
	}
	search := func(extra string) string {
		return `{"query": "zebraword", "mode": "lexical", "maxResults": 20, "minScore": 0` + extra + `}`
	}

	// The admin token sees every corpus: the fixture holds all four words.
	code, all := do("admin-token", "POST", "/v1/search", search(""))
	for _, w := range []string{"opennote", "secretplan", "sessiontalk", "memoryfact"} {
		if code != http.StatusOK || !strings.Contains(all, w) {
			t.Fatalf("admin search: %d, %q missing from %s", code, w, all)
		}
	}
	var paths struct {
		Results []struct{ Path, Corpus string }
	}
	json.Unmarshal([]byte(all), &paths)

	// Reads that must answer with the notes alone.
	for _, r := range []struct{ name, path, body string }{
		{"search", "/v1/search", search("")},
		{"search all", "/v1/search", search(`, "corpora": ["all"]`)},
		{"search notes", "/v1/search", search(`, "corpora": ["Notes"]`)},
		{"session filter", "/v1/search", search(`, "sessionFilter": {"cwd": "/work/secret"}`)},
		{"memory filter", "/v1/search", search(`, "memoryFilter": {"kinds": ["fact"]}`)},
		{"mcp search", "/mcp", mcpCall("memory_search", map[string]any{"query": "zebraword", "mode": "lexical", "maxResults": 20, "minScore": 0})},
		{"mcp tasks", "/mcp", mcpCall("memory_list_maintenance_tasks", map[string]any{})},
		{"tasks", "/v1/tasks", `{}`},
	} {
		code, out := do("docs-token", "POST", r.path, r.body)
		if w := leaked(strings.ReplaceAll(out, "zebraword secretplan?", "")); w != "" || code != http.StatusOK {
			t.Errorf("docs token, %s: %d, %q leaked in %s", r.name, code, w, out)
		}
		if strings.HasPrefix(r.name, "search") || r.name == "mcp search" {
			if !strings.Contains(out, "opennote") {
				t.Errorf("docs token, %s: %s; want the notes hit", r.name, out)
			}
		}
		if strings.HasSuffix(r.name, "tasks") && !strings.Contains(out, "opennote-task") {
			t.Errorf("docs token, tasks: %s; want the notes task", out)
		}
	}
	// Naming another corpus, or reaching one by path: 403 naming both.
	refused := []struct{ name, path, body, corpus string }{
		{"search secret", "/v1/search", search(`, "corpora": ["notes", "secret"]`), "secret"},
		{"search memories", "/v1/search", search(`, "corpora": ["memories"]`), "memories"},
		{"search sessions", "/v1/search", search(`, "corpora": ["sessions"]`), "sessions"},
		{"search unknown", "/v1/search", search(`, "corpora": ["nosuch"]`), "nosuch"},
		{"get secret", "/v1/get", `{"path": "cairn://secret/plan.md"}`, "secret"},
		{"gather", "/v1/gather", `{"question": "zebraword?"}`, "memories"},
		{"explore", "/v1/explore", `{"topic": "zebraword"}`, "memories"},
	}
	for _, p := range paths.Results {
		if p.Corpus != "notes" {
			refused = append(refused, struct{ name, path, body, corpus string }{"get " + p.Path, "/v1/get", fmt.Sprintf(`{"path": %q}`, p.Path), p.Corpus})
		}
	}
	for _, r := range refused {
		code, out := do("docs-token", "POST", r.path, r.body)
		if code != http.StatusForbidden || leaked(out) != "" || !strings.Contains(out, `\"`+r.corpus+`\"`) || !strings.Contains(out, `\"docs\"`) {
			t.Errorf("docs token, %s: %d %s; want 403 naming corpus %q and token \"docs\"", r.name, code, out, r.corpus)
		}
	}
	// The same over MCP: a tool error naming both, nothing of the corpus.
	for _, r := range []struct{ name, body, corpus string }{
		{"mcp search secret", mcpCall("memory_search", map[string]any{"query": "zebraword", "corpora": []string{"secret"}}), "secret"},
		{"mcp get secret", mcpCall("memory_get", map[string]any{"path": "cairn://secret/plan.md"}), "secret"},
		{"mcp explore", mcpCall("memory_explore", map[string]any{"topic": "zebraword"}), "memories"},
		{"mcp gather", mcpCall("memory_gather", map[string]any{"question": "zebraword?"}), "memories"},
		{"mcp audit secret", mcpCall("memory_audit_quality", map[string]any{"corpora": []string{"secret"}}), "secret"},
	} {
		code, out := do("docs-token", "POST", "/mcp", r.body)
		if code != http.StatusOK || leaked(out) != "" || !strings.Contains(out, `"isError":true`) || !strings.Contains(out, r.corpus) || !strings.Contains(out, "docs") {
			t.Errorf("docs token, %s: %d %s; want a tool error naming %q and \"docs\"", r.name, code, out, r.corpus)
		}
	}
	// The whisperers run past the request over every corpus: refused.
	if code, out := do("docs-token", "POST", "/v1/whisper", `{"agentId": "team", "sessionId": "s", "runId": "r", "trigger": "user", "prompt": "zebraword?"}`); code != http.StatusForbidden || !strings.Contains(out, `\"docs\"`) {
		t.Errorf("docs token, whisper: %d %s; want 403 naming the token", code, out)
	}
	if code, out := do("docs-token", "POST", "/v1/get", fmt.Sprintf(`{"path": %q}`, filepath.Join(secret, "plan.md"))); code != http.StatusOK || leaked(out) != "" || !strings.Contains(out, "not_found") {
		t.Errorf("docs token, get of the secret file by its absolute path: %d %s; want not found", code, out)
	}
	// Writes: the writer changes notes only.
	for _, r := range []struct{ name, path, body string }{
		{"remember", "/v1/memories", `{"kind": "fact", "title": "x", "summary": "y"}`},
		{"sync sessions", "/v1/sync", `{}`},
		{"mcp remember", "/mcp", mcpCall("memory_remember", map[string]any{"kind": "fact", "title": "x", "summary": "y"})},
		{"mcp task of secret", "/mcp", mcpCall("memory_update_maintenance_task", map[string]any{"taskId": "task-secret", "action": "defer"})},
		{"task of secret", "/v1/tasks/update", `{"taskId": "task-secret", "action": "defer"}`},
	} {
		code, out := do("writer-token", "POST", r.path, r.body)
		refusedAPI := code == http.StatusForbidden && strings.Contains(out, "docs-writer")
		notFound := strings.Contains(out, `{\"status\":\"not_found\"}`) || strings.Contains(out, `{"status":"not_found"}`) // another corpus's task
		refusedTool := code == http.StatusOK && (strings.Contains(out, `"isError":true`) || notFound)
		if !refusedAPI && !refusedTool || leaked(out) != "" {
			t.Errorf("writer token, %s: %d %s; want it refused", r.name, code, out)
		}
	}
	if code, out := do("writer-token", "POST", "/mcp", mcpCall("memory_update_maintenance_task", map[string]any{"taskId": "task-notes", "action": "defer"})); code != http.StatusOK || strings.Contains(out, `"isError":true`) {
		t.Errorf("writer token, the notes task: %d %s; want it deferred", code, out)
	}
	if ms, err := eng.Memories(ctx, cairn.MemoryFilter{}); err != nil || len(ms) != 1 {
		t.Errorf("memories after the refused writes = %d, %v; want the one told", len(ms), err)
	}
}
