package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/redact/redacttest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// memoryFound reports whether a search of the memories corpus finds id.
func memoryFound(t *testing.T, f *fixture, query, id string) bool {
	t.Helper()
	hits, err := f.eng.Search(context.Background(), query, &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Memory != nil && h.Memory.ID == id {
			return true
		}
	}
	return false
}

// TestRememberTool: memory_remember stores a redacted memory told by the
// MCP client (its clientInfo name), found by search at once; a bad field
// is a tool error naming it.
func TestRememberTool(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	cs := connect(t, f.agent)
	secret := redacttest.Samples()[5] // a GitHub token
	var out RememberOut
	callOK(t, cs, ToolRemember, map[string]any{"kind": "preference", "title": "Short design notes",
		"summary": "Marguerite wants design notes under a page; token " + secret.Secret, "importance": 4,
		"cues": []string{"how long should design notes be?"}, "concepts": []string{"design notes"}}, &out)
	if !out.Created || !strings.HasPrefix(out.Provenance, "told by test at ") || out.Kind != "preference" ||
		out.Path != "cairn://memories/preference/"+out.ID+".md" || out.Embedded != 0 {
		t.Fatalf("out %+v", out)
	}
	m, err := f.eng.Memory(context.Background(), out.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(m); len(redacttest.Leaked(string(b))) > 0 || m.Importance != 4 {
		t.Fatalf("stored %s", b)
	}
	if !memoryFound(t, f, "how long design notes", out.ID) {
		t.Fatal("search does not find the remembered memory")
	}
	var got GetOut
	callOK(t, cs, ToolGet, map[string]any{"path": out.Path}, &got)
	if got.Status != cairn.StatusOK || got.Text == nil || !strings.Contains(*got.Text, out.Provenance) {
		t.Fatalf("memory_get %s: %+v", out.Path, got)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"kind": "episode", "summary": "x"}, "kind"},
		{map[string]any{"kind": "fact", "summary": "x"}, "title is required for a fact"},
		{map[string]any{"kind": "observation", "summary": "x", "eventDate": "June"}, `eventDate`},
		{map[string]any{"kind": "fact", "title": "t", "summary": "x", "importance": 1}, "importance"},
		{map[string]any{"kind": "fact", "title": "t", "summary": "x", "told": "me"}, `unknown field "told"`},
	} {
		text, isErr := call(t, cs, ToolRemember, c.args)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: error %v, %s; want one with %q", c.args, isErr, text, c.want)
		}
	}
}

// TestRememberObservationTool: an observation told over MCP, without an
// importance, is stored (ux U15: the schema's importance default 3 was
// filled into every call, and each observation was refused with
// "importance is for items"); a fact left without one gets 3.
func TestRememberObservationTool(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	cs := connect(t, f.agent)
	for _, args := range []map[string]any{
		{"kind": "observation", "about": "Dana", "summary": "Dana moved to Lisbon in 2025.", "eventDate": "2025"},
		{"kind": "observation", "summary": "The team switched to weekly releases.", "phase": "state"},
	} {
		var out RememberOut
		callOK(t, cs, ToolRemember, args, &out)
		if out.Kind != cairn.MemoryObservation || !out.Created {
			t.Errorf("%v: out %+v", args, out)
		}
	}
	var out RememberOut
	callOK(t, cs, ToolRemember, map[string]any{"kind": "fact", "title": "Okapi", "summary": "The okapi review is on Fridays."}, &out)
	if m, err := f.eng.Memory(context.Background(), out.ID); err != nil || m.Importance != 3 {
		t.Errorf("a fact without importance: %+v, %v; want importance 3", m, err)
	}
}

// TestRememberNoMemoriesCorpus: a server opened without memories or a
// sessions corpus stores the memory and finds it at once (before, it
// warned that search would see it after a restart).
func TestRememberNoMemoriesCorpus(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	var out RememberOut
	callOK(t, connect(t, f.agent), ToolRemember, map[string]any{"kind": "fact", "title": "Okapi", "summary": "The okapi review is on Fridays."}, &out)
	if out.Warning != "" {
		t.Errorf("warning %q: the memory is searchable at once", out.Warning)
	}
	if !memoryFound(t, f, "okapi review", out.ID) {
		t.Fatal("a server started without a memories corpus does not find the memory it was told")
	}
}

// TestRememberHTTP: POST /v1/memories is memory_remember's input, told by
// the agent the request selects.
func TestRememberHTTP(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true, name: "work"})
	srv := serve(t, HTTPOptions{Agents: []*Agent{f.agent}})
	status, body := do(t, srv, request{"POST", "/v1/memories", `{"kind":"observation","about":"Marguerite","summary":"Marguerite took over the billing service in March.","startDate":"2026-03"}`, nil})
	var out RememberOut
	if status != 200 || json.Unmarshal([]byte(body), &out) != nil || !strings.HasPrefix(out.Provenance, "told by work at ") {
		t.Fatalf("status %d: %s", status, body)
	}
	if !memoryFound(t, f, "billing service Marguerite", out.ID) {
		t.Fatal("search does not find the remembered memory")
	}
	for _, c := range []struct{ body, want string }{
		{`{"kind":"observation","summary":"x","startDate":"2026-04","endDate":"2026-03"}`, "startDate 2026-04 is after endDate 2026-03"},
		{`{"kind":"fact","summary":"x"}`, "title is required"},
		{`{"summary":"x"}`, "kind is required"},
		{`{"kind":"fact","title":"t","summary":"x","agent":"mallory"}`, `unknown field \"agent\"`},
	} {
		if status, body := do(t, srv, request{"POST", "/v1/memories", c.body, nil}); status != 400 || !strings.Contains(body, c.want) {
			t.Errorf("%s: status %d %s, want 400 with %s", c.body, status, body, c.want)
		}
	}
}

// TestRememberToolCLIName: an MCP client that names itself "cli" does not
// get the provenance of cairn remember ("told by cli"): it is told by the
// agent's id; another name is kept (ux F28).
func TestRememberToolCLIName(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	ctx := context.Background()
	for _, c := range []struct{ client, want string }{{"cli", "told by default at "}, {" CLI ", "told by default at "}, {"claude-code", "told by claude-code at "}} {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := NewMCPServer(f.agent, nil).Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: c.client, Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out RememberOut
		callOK(t, cs, ToolRemember, map[string]any{"kind": "fact", "title": "Told by " + c.client, "summary": "A fact told by a client named " + c.client + "."}, &out)
		if !strings.HasPrefix(out.Provenance, c.want) {
			t.Errorf("client %q: provenance %q, want %q...", c.client, out.Provenance, c.want)
		}
		cs.Close()
		ss.Wait()
	}
}
