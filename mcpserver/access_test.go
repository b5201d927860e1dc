package mcpserver

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestWritesDetectsWriteCalls: which requests writes() takes for writes,
// the check that keeps a read-only token from them. A tool name under
// another spelling of "name" (which the SDK does not read, matching
// member names exactly) must not hide the write tool's name; before,
// encoding/json's case-insensitive match read the later "NAME" and let
// the call through to the tool.
func TestWritesDetectsWriteCalls(t *testing.T) {
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`
	}
	for _, tc := range []struct {
		name, method, path, body string
		want                     bool
	}{
		{"remember", "POST", "/mcp", call(`{"name":"memory_remember","arguments":{"kind":"fact","summary":"x"}}`), true},
		{"search", "POST", "/mcp", call(`{"name":"memory_search","arguments":{"query":"memory_remember"}}`), false},
		{"a later NAME", "POST", "/mcp", call(`{"name":"memory_remember","NAME":"memory_search","arguments":{}}`), true},
		{"an earlier Name", "POST", "/mcp", call(`{"Name":"memory_search","name":"memory_sync_sessions"}`), true},
		{"escaped name", "POST", "/agents/a/mcp", call(`{"name":"memory\u005frecluster"}`), true},
		{"batch", "POST", "/mcp", `[` + call(`{"name":"memory_search"}`) + `,` + call(`{"name":"memory_update_maintenance_task"}`) + `]`, true},
		{"tools/list", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false},
		{"not JSON", "POST", "/mcp", `{"method":"tools/call"`, false},
		{"GET", "GET", "/mcp", "", false},
		{"POST /v1/memories", "POST", "/v1/memories", `{}`, true},
		{"POST /v1/search", "POST", "/v1/search", `{"query":"x"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			got, err := writes(r)
			if err != nil || got != tc.want {
				t.Errorf("writes = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
