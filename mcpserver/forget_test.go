package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestForgetTool: memory_forget removes a memory memory_remember stored:
// search and memory_get no longer find it; forgetting it again, or an id
// never stored, is a tool error naming the id; a blank id is refused.
func TestForgetTool(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	cs := connect(t, f.agent)
	var told RememberOut
	callOK(t, cs, ToolRemember, map[string]any{"kind": "fact", "title": "Deploy key", "summary": "The deploy key lives in the ops vault under deploy-prod."}, &told)
	if !memoryFound(t, f, "deploy key ops vault", told.ID) {
		t.Fatal("search does not find the remembered memory")
	}
	var out ForgetOut
	callOK(t, cs, ToolForget, map[string]any{"id": told.ID}, &out)
	if out.ID != told.ID || out.Kind != "fact" || out.Title != "Deploy key" || out.Path != told.Path || len(out.Restored)+len(out.Reduced) != 0 {
		t.Fatalf("out %+v", out)
	}
	if memoryFound(t, f, "deploy key ops vault", told.ID) {
		t.Error("search still finds the forgotten memory")
	}
	var got GetOut
	callOK(t, cs, ToolGet, map[string]any{"path": told.Path}, &got)
	if got.Status != cairn.StatusNotFound {
		t.Errorf("memory_get of the forgotten memory: %+v", got)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"id": told.ID}, fmt.Sprintf("no memory %q", told.ID)},
		{map[string]any{"id": "m-0000000000000000"}, `no memory "m-0000000000000000"`},
		{map[string]any{"id": " "}, "id is required"},
	} {
		if text, isErr := call(t, cs, ToolForget, c.args); !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: %q (error %v), want an error with %s", c.args, text, isErr, c.want)
		}
	}
}

// TestForgetHTTP: POST /v1/memories/forget is memory_forget's input; an
// unknown id is 404, a bad body 400; a read-only token may not forget
// (403) and the memory stays.
func TestForgetHTTP(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true, name: "work"})
	access, err := NewAccess(map[string]Grant{
		sha("writer"): {Name: "writer", Agents: []string{"*"}, Write: true},
		sha("reader"): {Name: "reader", Agents: []string{"*"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, HTTPOptions{Agents: []*Agent{f.agent}, Access: access})
	as := func(token string) map[string]string { return map[string]string{"Authorization": "Bearer " + token} }
	status, body := do(t, srv, request{"POST", "/v1/memories", `{"kind":"fact","title":"Billing owner","summary":"Marguerite owns the billing service."}`, as("writer")})
	var told RememberOut
	if status != 200 || json.Unmarshal([]byte(body), &told) != nil {
		t.Fatalf("remember: status %d: %s", status, body)
	}
	forget := `{"id":"` + told.ID + `"}`
	if status, body := do(t, srv, request{"POST", "/v1/memories/forget", forget, as("reader")}); status != 403 {
		t.Errorf("the reader's forget: status %d %s, want 403", status, body)
	}
	if !memoryFound(t, f, "billing service Marguerite", told.ID) {
		t.Fatal("the reader's refused forget removed the memory")
	}
	status, body = do(t, srv, request{"POST", "/v1/memories/forget", forget, as("writer")})
	var out ForgetOut
	if status != 200 || json.Unmarshal([]byte(body), &out) != nil || out.ID != told.ID {
		t.Fatalf("forget: status %d: %s", status, body)
	}
	if memoryFound(t, f, "billing service Marguerite", told.ID) {
		t.Error("search still finds the forgotten memory")
	}
	for _, c := range []struct {
		body   string
		status int
		want   string
	}{
		{forget, 404, told.ID},
		{`{}`, 400, "id is required"},
		{`{"id":"x","kind":"fact"}`, 400, `unknown field \"kind\"`},
	} {
		if status, body := do(t, srv, request{"POST", "/v1/memories/forget", c.body, as("writer")}); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: status %d %s, want %d with %s", c.body, status, body, c.status, c.want)
		}
	}
}
