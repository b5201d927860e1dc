package mcpserver

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestDecodeTurnErrors: a whisper request that is not a turn is an
// invalid-input error naming the field and what it wants, in the whisper
// API's words (not an MCP tool's, not Go's types).
func TestDecodeTurnErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"agentId":"a","messages":"oops"}`, "messages: got a string, want an array of {role, content} objects"},
		{`{"agentId":"a","messages":{"role":"user"}}`, "messages: got an object, want an array of {role, content} objects"},
		{`{"agentId":"a","messages":[1]}`, "messages[0] is not a message"},
		{`not json`, "turn is not valid JSON: want a JSON object {agentId, sessionId, runId, trigger, prompt, messages"},
		{`"x"`, "turn is a string, want a JSON object"},
		{``, "turn is empty"},
		{`{"trigger":"bogus"}`, `trigger "bogus" is unknown: allowed user, session_end, heartbeat, cron, memory`},
		{`{"prompt":1}`, "prompt: got a JSON number, want a string"},
	} {
		_, err := DecodeTurn([]byte(tc.body))
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "arguments") {
			t.Errorf("%s: %v, want %q", tc.body, err, tc.want)
		}
	}
	turn, err := DecodeTurn([]byte(`{"agentId":"a","sessionId":"s","runId":"r","trigger":"session_end","messages":null}`))
	if err != nil || turn.Trigger != "session_end" || turn.Messages != nil {
		t.Errorf("session_end turn: %+v, %v", turn, err)
	}
}

// TestTypeNameRawMessage: a field of raw JSON values reads as JSON, not
// as Go's bytes ("array of array of uint8ss").
func TestTypeNameRawMessage(t *testing.T) {
	if got := typeName(reflect.TypeFor[[]json.RawMessage]()); got != "an array of JSON values" {
		t.Errorf("typeName([]json.RawMessage) = %q", got)
	}
}
