package mcpserver

import (
	"encoding/json"
	"testing"
)

// numberCases are numeric arguments that do not fit their field, written
// as raw JSON so the literal reaches the server unchanged, with the error
// each must give. maxFrom is MaxGetFrom spelled out: the largest from
// parses exactly, and so meets long.md's end (3000 lines) and the
// past-the-end error naming it.
const maxFrom = "9007199254740991"

// memoriesMax ends the maxResults range error of a search of every corpus.
const memoriesMax = ` (up to 200 when corpora is ["memories"])`

var numberCases = []struct {
	tool, args, want string
}{
	{ToolGet, `"from":9007199254740993`, "from 9007199254740993 out of range: allowed 1 to " + maxFrom},
	{ToolGet, `"from":9223372036854775807`, "from 9223372036854775807 out of range: allowed 1 to " + maxFrom},
	{ToolGet, `"from":9223372036854775808`, "from 9223372036854775808 out of range: allowed 1 to " + maxFrom},
	{ToolGet, `"from":1e400`, "from 1e400 out of range: allowed 1 to " + maxFrom},
	{ToolGet, `"from":-1`, "from -1 out of range: allowed 1 to " + maxFrom},
	{ToolGet, `"from":1.5`, "from 1.5 is not an integer: want an integer from 1 to " + maxFrom},
	{ToolGet, `"from":2.0`, "from 2.0: write an integer from 1 to " + maxFrom + " without a fraction or exponent"},
	{ToolGet, `"from":"3"`, "from: got a JSON string, want an integer from 1 to " + maxFrom},
	{ToolGet, `"lines":9007199254740993`, "lines 9007199254740993 out of range: allowed 1 to 1000"},
	{ToolGet, `"lines":9223372036854775807`, "lines 9223372036854775807 out of range: allowed 1 to 1000"},
	{ToolGet, `"lines":1e400`, "lines 1e400 out of range: allowed 1 to 1000"},
	{ToolGet, `"lines":-1`, "lines -1 out of range: allowed 1 to 1000"},
	{ToolGet, `"lines":1.5`, "lines 1.5 is not an integer: want an integer from 1 to 1000"},
	{ToolGet, `"lines":"3"`, "lines: got a JSON string, want an integer from 1 to 1000"},
	{ToolSearch, `"maxResults":9007199254740993`, "maxResults 9007199254740993 out of range: allowed 1 to 20" + memoriesMax},
	{ToolSearch, `"maxResults":9223372036854775807`, "maxResults 9223372036854775807 out of range: allowed 1 to 20" + memoriesMax},
	{ToolSearch, `"maxResults":1e400`, "maxResults 1e400 out of range: allowed 1 to 200"}, // the schema's bound, memories alone
	{ToolSearch, `"maxResults":-1`, "maxResults -1 out of range: allowed 1 to 20" + memoriesMax},
	{ToolSearch, `"maxResults":1.5`, "maxResults 1.5 is not an integer: want an integer from 1 to 200"},
	{ToolSearch, `"maxResults":"3"`, "maxResults: got a JSON string, want an integer from 1 to 200"},
	{ToolSearch, `"minScore":1e400`, "minScore 1e400 out of range: allowed 0 to 1"},
	{ToolSearch, `"minScore":-1`, "minScore -1 out of range: allowed 0 to 1"},
	{ToolSearch, `"minScore":"3"`, "minScore: got a JSON string, want a number from 0 to 1"},
	{ToolSearch, `"sessionFilter":{"startedFrom":9223372036854775807}`, "sessionFilter.startedFrom: got a JSON number, want a string"},
}

// numberArgs completes a case's arguments with the tool's required field.
func numberArgs(tool, args string) string {
	if tool == ToolGet {
		return `{"path":"cairn://notes/long.md",` + args + `}`
	}
	return `{"query":"ledger",` + args + `}`
}

// pastEnd are memory_get arguments that parse and pass the schema but
// start past long.md's end: the error the engine gives, the same text
// over MCP (no tool prefix: it is the handler's, as for a bad line range)
// and HTTP.
var pastEnd = []struct{ args, want string }{
	{`"from":` + maxFrom, "from " + maxFrom + " is past the end of cairn://notes/long.md (3000 lines): from must be 1..3000"},
	{`"from":3001,"lines":1000`, "from 3001 is past the end of cairn://notes/long.md (3000 lines): from must be 1..3000"},
}

// lastLine is long.md's last line read from there with the most lines
// allowed: in range, the window runs past the end and returns that line.
const lastLine = `"from":3000,"lines":1000`

// TestNumberArgumentsMCP: over MCP every case is a tool error with the
// range message, and from at the last line reads it.
func TestNumberArgumentsMCP(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	cs := connect(t, f.agent)
	for _, tt := range numberCases {
		text, isErr := call(t, cs, tt.tool, json.RawMessage(numberArgs(tt.tool, tt.args)))
		if !isErr || text != tt.tool+": "+tt.want {
			t.Errorf("%s {%s}: error %v %q, want %q", tt.tool, tt.args, isErr, text, tt.tool+": "+tt.want)
		}
	}
	for _, tt := range pastEnd {
		text, isErr := call(t, cs, ToolGet, json.RawMessage(numberArgs(ToolGet, tt.args)))
		if !isErr || text != tt.want {
			t.Errorf("%s {%s}: error %v %q, want %q", ToolGet, tt.args, isErr, text, tt.want)
		}
	}
	var out GetOut
	callOK(t, cs, ToolGet, json.RawMessage(numberArgs(ToolGet, lastLine)), &out)
	if out.Status != "ok" || out.From == nil || *out.From != 3000 || out.Lines == nil || *out.Lines != 1 ||
		out.Text == nil || *out.Text != "line 3000 of the long ledger document\n" || out.NextFrom != 0 {
		t.Errorf("{%s}: %+v, want the last line alone", lastLine, out)
	}
}

// TestNumberArgumentsHTTP: the /v1 API gives the same messages with 400.
func TestNumberArgumentsHTTP(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	srv := serve(t, HTTPOptions{Agents: []*Agent{f.agent}})
	for _, tt := range numberCases {
		path := "/v1/get"
		if tt.tool == ToolSearch {
			path = "/v1/search"
		}
		status, body := do(t, srv, request{"POST", path, numberArgs(tt.tool, tt.args), nil})
		var e struct{ Error string }
		if err := json.Unmarshal([]byte(body), &e); status != 400 || err != nil || e.Error != tt.want {
			t.Errorf("POST %s {%s}: %d %s, want 400 %q", path, tt.args, status, body, tt.want)
		}
	}
	for _, tt := range pastEnd {
		status, body := do(t, srv, request{"POST", "/v1/get", numberArgs(ToolGet, tt.args), nil})
		var e struct{ Error string }
		if err := json.Unmarshal([]byte(body), &e); status != 400 || err != nil || e.Error != tt.want {
			t.Errorf("POST /v1/get {%s}: %d %s, want 400 %q", tt.args, status, body, tt.want)
		}
	}
	status, body := do(t, srv, request{"POST", "/v1/get", numberArgs(ToolGet, lastLine), nil})
	var out GetOut
	if err := json.Unmarshal([]byte(body), &out); status != 200 || err != nil || out.Status != "ok" || out.From == nil || *out.From != 3000 ||
		out.Lines == nil || *out.Lines != 1 || out.Text == nil || *out.Text != "line 3000 of the long ledger document\n" || out.NextFrom != 0 {
		t.Errorf("{%s}: %d %s, want the last line alone", lastLine, status, body)
	}
}
