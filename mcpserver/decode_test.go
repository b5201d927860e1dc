package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// numberCases are numeric arguments that do not fit their field, written
// as raw JSON so the literal reaches the server unchanged, with the error
// each must give. maxFrom is MaxGetFrom spelled out.
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

// TestNumberArgumentsMCP: over MCP every case is a tool error with the
// range message, and the largest allowed from comes back exactly.
func TestNumberArgumentsMCP(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	cs := connect(t, f.agent)
	for _, tt := range numberCases {
		text, isErr := call(t, cs, tt.tool, json.RawMessage(numberArgs(tt.tool, tt.args)))
		if !isErr || text != tt.tool+": "+tt.want {
			t.Errorf("%s {%s}: error %v %q, want %q", tt.tool, tt.args, isErr, text, tt.tool+": "+tt.want)
		}
	}
	var out GetOut
	callOK(t, cs, ToolGet, json.RawMessage(numberArgs(ToolGet, `"from":`+maxFrom)), &out)
	if out.Status != "ok" || out.From == nil || fmt.Sprint(*out.From) != maxFrom {
		t.Errorf("from %s: %+v, want it back exactly", maxFrom, out)
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
	status, body := do(t, srv, request{"POST", "/v1/get", numberArgs(ToolGet, `"from":`+maxFrom), nil})
	if status != 200 || !strings.Contains(body, `"from":`+maxFrom+`,`) {
		t.Errorf("from %s: %d %s, want it back exactly", maxFrom, status, body)
	}
}
