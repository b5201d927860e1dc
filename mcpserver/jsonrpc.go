package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The SDK ends a stdio session on the first message it cannot decode, and
// drops a message with an id but no method without a word. Cairn checks
// each message before the SDK sees it and answers a bad one itself, as
// JSON-RPC 2.0 says: -32700 when it is not JSON, -32600 when it is JSON but
// not a request, notification or response; with the message's id when it
// has a usable one, else id null. Whatever passes the check is a message
// the SDK decodes without error.

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// maxMessageDepth bounds the nesting of a message's objects and arrays. The
// SDK refuses (and on stdio hangs up on) messages nested deeper than 1,000
// levels; no MCP message needs more than a few.
const maxMessageDepth = 100

// maxExactInt is the largest integer a JSON number carries exactly through
// a float64 (2^53-1): the SDK decodes ids and tool arguments that way.
const maxExactInt = 1<<53 - 1

// rpcError is a JSON-RPC error answer to one message.
type rpcError struct {
	id      json.RawMessage // nil: null
	code    int
	message string
}

// line returns the error response as one line of JSON, newline included.
func (e *rpcError) line() []byte {
	id := e.id
	if id == nil {
		id = json.RawMessage("null")
	}
	type errObj struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   errObj          `json:"error"`
	}{"2.0", id, errObj{e.code, e.message}})
	return append(b, '\n')
}

func parseError(format string, args ...any) *rpcError {
	return &rpcError{code: codeParseError, message: "parse error: " + fmt.Sprintf(format, args...)}
}

func invalidRequest(id json.RawMessage, format string, args ...any) *rpcError {
	return &rpcError{id: id, code: codeInvalidRequest, message: "invalid request: " + fmt.Sprintf(format, args...)}
}

// checkPayload checks one JSON-RPC payload: a message or, when batch is
// true, an array of them. It returns nil when the SDK can take it as is.
func checkPayload(data []byte, batch bool) *rpcError {
	data = bytes.TrimSpace(data)
	if !utf8.Valid(data) {
		return parseError("the message is not UTF-8 text")
	}
	if !json.Valid(data) {
		if d := depth(data); d > maxMessageDepth {
			// encoding/json stops at 10,000 levels: valid JSON that deep
			// is not "not JSON" to the sender.
			return invalidRequest(nil, "the message nests %d levels deep, over the %d allowed", d, maxMessageDepth)
		}
		return parseError("the message is not one JSON value")
	}
	if d := depth(data); d > maxMessageDepth {
		return invalidRequest(nil, "the message nests %d levels deep, over the %d allowed", d, maxMessageDepth)
	}
	if data[0] != '[' {
		return checkMessage(data)
	}
	if !batch {
		return invalidRequest(nil, "a batch (JSON array) is not accepted on stdio: MCP 2025-06-18 dropped batching; send one message per line")
	}
	var msgs []json.RawMessage
	_ = json.Unmarshal(data, &msgs) // valid JSON starting with '['
	if len(msgs) == 0 {
		return invalidRequest(nil, "an empty batch")
	}
	for i, m := range msgs {
		if err := checkMessage(m); err != nil {
			err.message = fmt.Sprintf("%s (batch item %d)", err.message, i)
			return err
		}
	}
	return nil
}

// depth returns the deepest nesting of objects and arrays in valid JSON.
func depth(data []byte) int {
	d, most, inString, escaped := 0, 0, false, false
	for _, b := range data {
		switch {
		case escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case b == '"':
			inString = !inString
		case inString:
		case b == '{' || b == '[':
			d++
			most = max(most, d)
		case b == '}' || b == ']':
			d--
		}
	}
	return most
}

// rpcMembers are the members of a JSON-RPC message, spelled as the SDK
// matches them (exactly, case included).
var rpcMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// checkMessage checks one valid JSON value as a JSON-RPC 2.0 message.
func checkMessage(data []byte) *rpcError {
	var m map[string]json.RawMessage
	if data[0] != '{' || json.Unmarshal(data, &m) != nil {
		return invalidRequest(nil, "a message is a JSON object, got %s", jsonKind(data[0]))
	}
	id, idErr := checkID(m)
	for k := range m {
		for _, name := range rpcMembers {
			if k != name && strings.EqualFold(k, name) {
				return invalidRequest(id, "member %q: JSON-RPC member names are lowercase (%s)", k, name)
			}
		}
	}
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return invalidRequest(id, `"jsonrpc" must be "2.0"`)
	}
	if idErr != "" {
		return invalidRequest(nil, "%s", idErr)
	}
	if raw, ok := m["method"]; ok {
		var method string
		if err := json.Unmarshal(raw, &method); err != nil {
			return invalidRequest(id, `"method" must be a string`)
		}
		if p, ok := m["params"]; ok && !isStructured(p) {
			return invalidRequest(id, `"params" must be an object or an array`)
		}
		return nil
	}
	return checkResponse(m, id)
}

// checkResponse checks a message without a method: a response to one of
// the server's requests, which needs an id and a result or an error.
func checkResponse(m map[string]json.RawMessage, id json.RawMessage) *rpcError {
	_, hasResult := m["result"]
	rawErr, hasError := m["error"]
	switch {
	case id == nil:
		return invalidRequest(nil, `no "method": a request needs a method, a response an id`)
	case !hasResult && !hasError:
		return invalidRequest(id, `no "method": a request needs a method (a response needs a result or an error)`)
	case hasError && !bytes.Equal(bytes.TrimSpace(rawErr), []byte("null")):
		var e struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		}
		if err := json.Unmarshal(rawErr, &e); err != nil || e.Code == nil || e.Message == nil {
			return invalidRequest(id, `"error" must be an object with an integer "code" and a string "message"`)
		}
	}
	return nil
}

var plainInt = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// checkID returns the message's id as given when it is one the SDK echoes
// exactly: a string, or an integer of at most 2^53-1 in magnitude (the SDK
// keeps numbers as float64, so a larger or fractional id would come back
// changed). An absent id is nil with no error; anything else is a reason.
func checkID(m map[string]json.RawMessage) (json.RawMessage, string) {
	raw, ok := m["id"]
	if !ok {
		return nil, ""
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case raw[0] == '"':
		return raw, ""
	case bytes.Equal(raw, []byte("null")):
		return nil, `id null: give a string or an integer id, or leave "id" out for a notification`
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if !plainInt.Match(raw) || err != nil || n > maxExactInt || n < -maxExactInt {
			return nil, fmt.Sprintf("id %s: a number id must be an integer from %d to %d (or use a string)", clip(raw), -maxExactInt, maxExactInt)
		}
		return raw, ""
	}
	return nil, fmt.Sprintf("id %s: must be a string or an integer", clip(raw))
}

// clip shortens a JSON value quoted in a message.
func clip(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "..."
	}
	return string(raw)
}

func isStructured(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && (raw[0] == '{' || raw[0] == '[')
}
