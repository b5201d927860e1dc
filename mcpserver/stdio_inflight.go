package mcpserver

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"
)

// DefaultDrainTimeout is how long StdioTransport waits, once its input has
// ended, for the requests it already read to be answered. A search waits
// at most 15 s for a first sync's full-text index, so 20 s lets one finish.
const DefaultDrainTimeout = 20 * time.Second

// inflight tracks the client's calls that the SDK has been given and not
// yet answered, so that the end of the input can wait for their replies
// (the SDK cancels every running request, and writes nothing more, as soon
// as its reader reports io.EOF), and whether initialize has been answered.
type inflight struct {
	mu          sync.Mutex
	calls       map[string]string // id (as the SDK writes it) -> method
	initialized bool              // an initialize call got a result
	idle        chan struct{}     // closed and replaced when calls empties
}

func newInflight() *inflight {
	return &inflight{calls: map[string]string{}, idle: make(chan struct{})}
}

// idKey is the id as the SDK echoes it: a number in its shortest form
// (ids were checked to be exact integers), a string with its quotes.
func idKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			b, _ := json.Marshal(s)
			return string(b)
		}
		return string(raw)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if f, err := n.Float64(); err == nil {
			b, _ := json.Marshal(f)
			return string(b)
		}
	}
	return string(raw)
}

// sent records a checked line handed to the SDK when it is a call.
func (f *inflight) sent(line []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == nil || m.ID == nil {
		return
	}
	f.mu.Lock()
	f.calls[idKey(m.ID)] = *m.Method
	f.mu.Unlock()
}

// answered notes a response the SDK writes and returns the line to write:
// the same line, or one with a proper error code where the SDK's has code
// 0, which is no JSON-RPC error code. The SDK answers a call made before
// initialize (other than ping and a few others it allows) with code 0;
// Cairn sends -32600 invalid request naming initialize, as the request is
// not valid at that point. MCP's -32002 was not chosen: MCP uses it for
// resource not found. Any other code 0 becomes -32603 internal error.
func (f *inflight) answered(line []byte) []byte {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != nil || m.ID == nil {
		return line
	}
	f.mu.Lock()
	key := idKey(m.ID)
	method, known := f.calls[key]
	delete(f.calls, key)
	wasInitialized := f.initialized
	if known && method == "initialize" && m.Error == nil {
		f.initialized = true
	}
	if known && len(f.calls) == 0 {
		close(f.idle)
		f.idle = make(chan struct{})
	}
	f.mu.Unlock()
	if m.Error == nil || m.Error.Code != 0 {
		return line
	}
	e := &rpcError{id: m.ID, code: codeInternalError, message: "internal error: " + m.Error.Message}
	if !wasInitialized {
		e.code, e.message = codeInvalidRequest, "invalid request: send initialize first: "+m.Error.Message
	}
	return e.line()
}

// wait returns when no call is unanswered, after timeout, or when done
// closes, whichever comes first.
func (f *inflight) wait(timeout time.Duration, done <-chan struct{}) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		f.mu.Lock()
		n, idle := len(f.calls), f.idle
		f.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-idle:
		case <-timer.C:
			return
		case <-done:
			return
		}
	}
}
