package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/mcpserver"
)

func sum(token string) string {
	s := sha256.Sum256([]byte(token))
	return hex.EncodeToString(s[:])
}

// TestAccessControl: two agents in one database behind one server with an
// access file. Alice's token reaches alice only, read only: every route
// and the MCP endpoint refuse bob by path and by header, writes are
// refused, and what alice may ask (a search for bob's words, a get of
// bob's path, bob's memory id, a session filter naming bob's sessions)
// finds nothing of bob's, because every query of alice's store names
// alice. Bob's write token writes bob.
// The second part, corpusAccess, limits tokens to corpora of one agent.
// Both run on PostgreSQL and on the Citus cluster.
func TestAccessControl(t *testing.T) {
	for _, c := range []struct{ name, env, schema string }{
		{"postgres", "CAIRN_TEST_POSTGRES_URL", "cairn_access"},
		{"citus", "CAIRN_TEST_CITUS_URL", "cairn_access_citus"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := testBackend(t, c.env, c.schema)
			t.Run("agents", func(t *testing.T) { agentAccess(t, b) })
			t.Run("corpora", func(t *testing.T) { corpusAccess(t, b) })
		})
	}
}

func agentAccess(t *testing.T, b Backend) {
	ctx := context.Background()
	agents := map[string]*mcpserver.Agent{}
	stores := map[string]*Store{}
	var served []*mcpserver.Agent
	for _, name := range []string{"alice", "bob"} {
		notes := t.TempDir()
		os.WriteFile(filepath.Join(notes, name+".md"), []byte("# "+name+"\n\nsecret word "+name+"word kept by "+name+"\n"), 0o600)
		os.WriteFile(filepath.Join(notes, "shared.md"), []byte("# shared path\n\n"+name+"'s own text at the same path\n"), 0o600)
		ab := b
		ab.Agent = name
		eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir(), Backend: ab,
			Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: "**/*.md"}}})
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close(ctx)
		if _, err := eng.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Remember(ctx, &cairn.RememberRequest{Kind: "fact", Title: name + " fact", Summary: name + "word is " + name + "'s own fact", Agent: name}); err != nil {
			t.Fatal(err)
		}
		agents[name] = mcpserver.NewAgent(name, eng)
		served = append(served, agents[name])
		st, err := ab.Open(ctx, t.TempDir(), cairn.StorageOptions{FeatureVersion: engine.FeatureVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		stores[name] = st.(*Store)
	}
	access, err := mcpserver.NewAccess(map[string]mcpserver.Grant{
		sum("alice-token"): {Name: "alice", Agents: []string{"alice"}},
		sum("bob-token"):   {Name: "bob", Agents: []string{"bob"}, Write: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := mcpserver.NewHandler(mcpserver.HTTPOptions{Agents: served, Access: access})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	do := func(token, method, path, agentHeader, body string) (int, string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if agentHeader != "" {
			req.Header.Set(mcpserver.AgentHeader, agentHeader)
		}
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
	search := `{"query": "bobword", "mode": "lexical"}`
	mcpCall := func(tool string, args any) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
		return string(b)
	}
	routes := []struct{ method, path, body string }{
		{"POST", "/v1/search", search}, {"POST", "/v1/get", `{"path": "cairn://notes/bob.md"}`}, {"POST", "/v1/sync", `{}`},
		{"GET", "/v1/sync/status", ""}, {"GET", "/v1/diagnostics", ""}, {"POST", "/v1/memories", `{"kind": "fact", "title": "x", "summary": "y"}`},
		{"POST", "/v1/gather", `{"query": "bobword"}`}, {"POST", "/v1/explore", `{"query": "bobword"}`},
		{"POST", "/v1/whisper", `{"prompt": "bobword"}`}, {"POST", "/mcp", mcpCall("memory_search", map[string]any{"query": "bobword"})},
		{"POST", "/v1/clusters", `{}`}, {"POST", "/v1/clusters/recluster", `{}`}, {"POST", "/v1/clusters/fetch", `{"clusterId": "0123456789"}`},
		{"POST", "/v1/tasks", `{}`}, {"POST", "/v1/tasks/update", `{"taskId": "0000000000000000", "action": "defer"}`}, {"POST", "/v1/audit", `{}`},
	}
	for _, r := range routes {
		if code, out := do("alice-token", r.method, "/agents/bob"+r.path, "", r.body); code != http.StatusForbidden {
			t.Errorf("alice's token, %s /agents/bob%s: %d %s; want 403", r.method, r.path, code, out)
		}
		if code, out := do("alice-token", r.method, r.path, "bob", r.body); code != http.StatusForbidden {
			t.Errorf("alice's token, %s %s as bob by header: %d %s; want 403", r.method, r.path, code, out)
		}
		if code, _ := do("", r.method, "/agents/alice"+r.path, "", r.body); code != http.StatusUnauthorized {
			t.Errorf("no token, %s %s: %d; want 401", r.method, r.path, code)
		}
		if code, _ := do("wrong-token", r.method, "/agents/alice"+r.path, "", r.body); code != http.StatusUnauthorized {
			t.Errorf("an unknown token, %s %s: %d; want 401", r.method, r.path, code)
		}
	}
	// Read only: alice's writes are refused, on the API and over MCP.
	for _, r := range []struct{ path, body string }{{"/v1/sync", `{}`}, {"/v1/memories", `{"kind": "fact", "title": "x", "summary": "y"}`},
		{"/v1/clusters/recluster", `{}`}, {"/v1/tasks/update", `{"taskId": "0000000000000000", "action": "defer"}`},
		{"/mcp", mcpCall("memory_remember", map[string]any{"kind": "fact", "title": "x", "summary": "y"})}} {
		if code, out := do("alice-token", "POST", "/agents/alice"+r.path, "", r.body); code != http.StatusForbidden || !strings.Contains(out, "read only") {
			t.Errorf("alice's read-only token writing %s: %d %s; want 403", r.path, code, out)
		}
	}
	// A whisper turn naming bob in its body, sent to the default agent.
	if code, out := do("alice-token", "POST", "/v1/whisper", "", `{"agentId": "bob", "sessionId": "s", "runId": "r", "trigger": "user", "prompt": "bobword"}`); code != http.StatusForbidden {
		t.Errorf("alice's token, a whisper turn whose agentId is bob: %d %s; want 403", code, out)
	}
	if code, out := do("bob-token", "POST", "/agents/bob/v1/memories", "", `{"kind": "fact", "title": "bob again", "summary": "bobword twice"}`); code != http.StatusOK {
		t.Errorf("bob's write token remembering for bob: %d %s", code, out)
	}
	// What alice may ask never reaches bob's rows.
	for _, q := range []string{"bobword", "bob", "secret word"} {
		code, out := do("alice-token", "POST", "/agents/alice/v1/search", "", fmt.Sprintf(`{"query": %q, "mode": "lexical", "maxResults": 20}`, q))
		if code != http.StatusOK || strings.Contains(out, "bobword") || strings.Contains(out, "kept by bob") {
			t.Errorf("alice searching %q: %d %s; want none of bob's text", q, code, out)
		}
	}
	if st, err := stores["alice"].DocStates(ctx, "notes"); err != nil || len(st) != 2 {
		t.Fatalf("alice's documents = %v, %v", st, err)
	}
	if code, out := do("alice-token", "POST", "/agents/alice/v1/get", "", `{"path": "cairn://notes/shared.md"}`); code != http.StatusOK || strings.Contains(out, "bob's") || !strings.Contains(out, "alice's") {
		t.Errorf("alice's get of the path both agents hold: %d %s; want alice's text", code, out)
	}
	if code, out := do("alice-token", "POST", "/agents/alice/v1/get", "", `{"path": "cairn://notes/bob.md"}`); !strings.Contains(out, "not_found") || strings.Contains(out, "bobword") {
		t.Errorf("alice's get of bob's path: %d %s; want not found", code, out)
	}
	// The store itself: alice's handle, given bob's ids and paths.
	bob, alice := stores["bob"], stores["alice"]
	bobMems, err := bob.Memories(ctx, cairn.MemoryFilter{})
	if err != nil || len(bobMems) == 0 {
		t.Fatalf("bob's memories = %v, %v", bobMems, err)
	}
	for _, m := range bobMems {
		if _, err := alice.Memory(ctx, m.ID); err == nil {
			t.Errorf("alice's store read bob's memory %s", m.ID)
		}
	}
	if got, _ := alice.MemoriesByID(ctx, []string{bobMems[0].ID}); len(got) != 0 {
		t.Errorf("alice's MemoriesByID found bob's: %v", got)
	}
	var bobIDs []int64
	bob.ChunkDocs(ctx, func(id int64, _, _ string) { bobIDs = append(bobIDs, id) })
	if got, err := alice.Chunks(ctx, bobIDs); err != nil || len(got) != 0 {
		t.Errorf("alice's Chunks of bob's %d ids = %v, %v", len(bobIDs), got, err)
	}
	if got, err := alice.ChunkTexts(ctx, bobIDs); err != nil || len(got) != 0 {
		t.Errorf("alice's ChunkTexts of bob's ids = %v, %v", got, err)
	}
	if err := bob.PutSession(ctx, cairn.SessionRecord{Corpus: "sessions", Path: "bob/s1.md", Info: cairn.SessionInfo{SessionID: "s1", Source: "codex", Cwd: "/home/bob"},
		Transcript: "/home/bob/t.jsonl", ProjectionHash: "h", Spans: "[]"}); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Session(ctx, "sessions", "bob/s1.md"); err == nil {
		t.Error("alice's store read bob's session")
	}
	if got, err := alice.FilterSessions(ctx, nil, cairn.SessionFilter{Cwd: "/home/bob"}); err != nil || len(got) != 0 {
		t.Errorf("alice's session filter naming bob's folder = %v, %v", got, err)
	}
}
