package mcpserver

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolListPerGrant: over MCP on HTTP with an access file, each token is
// offered the tools it may call. A read-only token listed all 16 before,
// memory_remember and the other write tools included, whose calls answer
// 403; a token that writes only notes is not offered memory_remember (the
// memories corpus) or memory_sync_sessions (the sessions corpus).
func TestToolListPerGrant(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	access, err := NewAccess(map[string]Grant{
		sha("writer"):      {Name: "writer", Agents: []string{"*"}, Write: true},
		sha("reader"):      {Name: "reader", Agents: []string{"*"}},
		sha("notesreader"): {Name: "notesreader", Agents: []string{"*"}, Corpora: []string{"notes"}},
		sha("noteswriter"): {Name: "noteswriter", Agents: []string{"*"}, Write: true, WriteCorpora: []string{"notes"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, HTTPOptions{Agents: []*Agent{f.agent}, Access: access})
	ctx := context.Background()
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
	names := func(cs *mcp.ClientSession) []string {
		t.Helper()
		var out []string
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tool.Name)
		}
		return out
	}
	all := names(connect("writer"))
	if len(all) != 17 || !slices.Contains(all, ToolRemember) || !slices.Contains(all, ToolForget) {
		t.Fatalf("the writer's tools: %d %v; want all 17", len(all), all)
	}
	without := func(drop ...string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(n string) bool { return slices.Contains(drop, n) })
	}
	readOnly := without(ToolRemember, ToolForget, ToolSyncSessions, ToolRecluster, ToolUpdateTask)
	for _, c := range []struct {
		token string
		want  []string
	}{
		{"reader", readOnly},
		{"notesreader", readOnly},
		{"noteswriter", without(ToolRemember, ToolForget, ToolSyncSessions)},
	} {
		cs := connect(c.token)
		if got := names(cs); !slices.Equal(got, c.want) {
			t.Errorf("%s lists %d tools %v;\nwant %d %v", c.token, len(got), got, len(c.want), c.want)
		}
	}
	// The list agrees with what a call gets: the reader's memory_remember is
	// refused with 403.
	_, err = connect("reader").CallTool(ctx, &mcp.CallToolParams{Name: ToolRemember,
		Arguments: map[string]any{"kind": "fact", "title": "t", "summary": "s"}})
	if err == nil || !strings.Contains(err.Error(), "Forbidden") { // the SDK client reports the status, not the body
		t.Errorf("the reader's memory_remember: %v; want 403 Forbidden", err)
	}
}
