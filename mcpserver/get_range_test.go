package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestGetRangeInPath: memory_get (called directly and over an MCP client
// session) and POST /v1/get read the line range a
// search hit's path carries (cairn://notes/long.md:10-12: from 10, 3
// lines), as cairn get does; from or lines given explicitly win. Before,
// the tool's defaults (from 1, 120 lines) filled the options first, so
// the range was ignored and the top of the file came back (ux F6).
func TestGetRangeInPath(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	ctx := context.Background()
	for _, c := range []struct {
		in          GetIn
		from, lines int
	}{
		{GetIn{Path: "cairn://notes/long.md:10-12"}, 10, 3},
		{GetIn{Path: "cairn://notes/long.md:7"}, 7, 120}, // a line alone: from it on, as cairn get reads it
		{GetIn{Path: "cairn://notes/long.md:10-12", From: ptr(2)}, 2, 3},
		{GetIn{Path: "cairn://notes/long.md:10-12", Lines: ptr(5)}, 10, 5},
		{GetIn{Path: "cairn://notes/long.md"}, 1, 120},
	} {
		out, err := f.agent.Get(ctx, c.in)
		if err != nil || out.Status != "ok" || *out.From != c.from || *out.Lines != c.lines || out.Path != "cairn://notes/long.md" {
			t.Errorf("Get(%+v) = %+v, %v; want from %d, %d lines, the path without the range", c.in, out, err, c.from, c.lines)
			continue
		}
		if first := strings.SplitN(*out.Text, "\n", 2)[0]; !strings.Contains(first, fmt.Sprintf("line %04d of", c.from)) {
			t.Errorf("Get(%+v) starts %q, want line %d", c.in, first, c.from)
		}
	}
	// Through an MCP client session: the SDK applies the input schema's
	// defaults before Agent.Get, so the schema must have none for from
	// and lines (ux's re-check: over MCP the range was still ignored).
	cs := connect(t, f.agent)
	for _, c := range []struct {
		args        map[string]any
		from, lines int
	}{
		{map[string]any{"path": "cairn://notes/long.md:10-12"}, 10, 3},
		{map[string]any{"path": "cairn://notes/long.md:10-12", "lines": 2}, 10, 2},
		{map[string]any{"path": "cairn://notes/long.md"}, 1, 120},
	} {
		var out GetOut
		callOK(t, cs, ToolGet, c.args, &out)
		if out.Status != "ok" || out.From == nil || *out.From != c.from || *out.Lines != c.lines {
			t.Errorf("memory_get %v over MCP = %+v; want from %d, %d lines", c.args, out, c.from, c.lines)
		}
	}
	srv := serve(t, HTTPOptions{Agents: []*Agent{f.agent}})
	status, resp := do(t, srv, request{"POST", "/v1/get", `{"path":"cairn://notes/long.md:10-12"}`, nil})
	var out GetOut
	if err := json.Unmarshal([]byte(resp), &out); status != 200 || err != nil || out.From == nil || *out.From != 10 || *out.Lines != 3 {
		t.Errorf("POST /v1/get with :10-12: %d %s, want from 10 and 3 lines", status, resp)
	}
}
