package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// badLines are malformed messages with the error each must get: the code
// and the id echoed ("null" when the line has no usable id). None may end
// the session.
var badLines = []struct {
	name, line string
	code       int
	id         string
}{
	{"not JSON", "garbage", codeParseError, "null"},
	{"empty object", "{}", codeInvalidRequest, "null"},
	{"binary bytes", "\x00\x01\xfe\xff\x80", codeParseError, "null"},
	{"id without method", `{"jsonrpc":"2.0","id":7}`, codeInvalidRequest, "7"},
	{"string id without method", `{"jsonrpc":"2.0","id":"s-1","params":{}}`, codeInvalidRequest, `"s-1"`},
	{"empty batch", `[]`, codeInvalidRequest, "null"},
	{"batch", `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, codeInvalidRequest, "null"},
	{"scalar", `42`, codeInvalidRequest, "null"},
	{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, codeInvalidRequest, "null"},
	{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, codeInvalidRequest, "null"},
	{"id over 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, codeInvalidRequest, "null"},
	{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, codeInvalidRequest, "null"},
	{"wrong version", `{"jsonrpc":"1.0","id":3,"method":"ping"}`, codeInvalidRequest, "3"},
	{"no version", `{"id":3,"method":"ping"}`, codeInvalidRequest, "3"},
	{"method not a string", `{"jsonrpc":"2.0","id":4,"method":5}`, codeInvalidRequest, "4"},
	{"params a string", `{"jsonrpc":"2.0","id":5,"method":"ping","params":"x"}`, codeInvalidRequest, "5"},
	{"member in capitals", `{"jsonrpc":"2.0","id":6,"Method":"ping"}`, codeInvalidRequest, "6"},
	{"two values on a line", `{"jsonrpc":"2.0","id":10,"method":"ping"} {"x":1}`, codeParseError, "null"},
	{"invalid UTF-8 in a string", "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}", codeParseError, "null"},
	{"deep nesting", `{"jsonrpc":"2.0","id":11,"method":"ping","params":{"a":` + strings.Repeat("[", 150) + strings.Repeat("]", 150) + `}}`, codeInvalidRequest, "null"},
	{"response with a bad error", `{"jsonrpc":"2.0","id":12,"error":"boom"}`, codeInvalidRequest, "12"},
	{"over the line limit", `{"jsonrpc":"2.0","id":14,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, codeInvalidRequest, "null"},
}

// rawSession serves f's agent over StdioTransport (lines at most 4096
// bytes) on pipes; send writes one line, recv returns the next reply.
type rawSession struct {
	t       testing.TB
	in      io.Writer
	replies <-chan []byte
	done    chan error
}

func newRawSession(t testing.TB, a *Agent) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &rawSession{t: t, in: inW, replies: readLines(outR), done: make(chan error, 1)}
	go func() {
		s.done <- NewMCPServer(a, nil).Run(context.Background(), &StdioTransport{Reader: inR, Writer: outW, MaxLineBytes: 4096})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); <-s.done })
	return s
}

// readLines reads r's lines on a goroutine, so the server never waits for
// the test to read; the channel closes with r.
func readLines(r io.Reader) <-chan []byte {
	ch := make(chan []byte, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			ch <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	return ch
}

func (s *rawSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("write %.60q: %v (the server stopped reading)", line, err)
	}
}

type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (s *rawSession) recv() reply {
	s.t.Helper()
	line, ok := <-s.replies
	if !ok {
		s.t.Fatalf("no reply: the server closed its output")
	}
	var r reply
	if err := json.Unmarshal(line, &r); err != nil {
		s.t.Fatalf("reply %q is not JSON: %v", line, err)
	}
	return r
}

// TestStdioBadLines feeds the stdio transport every kind of bad line: each
// gets its JSON-RPC error, and valid requests after them succeed.
func TestStdioBadLines(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	s := newRawSession(t, f.agent)
	for _, tt := range badLines {
		s.send(tt.line)
		r := s.recv()
		if r.Error == nil || r.Error.Code != tt.code || string(r.ID) != tt.id {
			t.Errorf("%s: reply id %s error %+v, want code %d id %s", tt.name, r.ID, r.Error, tt.code, tt.id)
		}
	}
	// Blank lines and a response to nothing get no reply: the next reply
	// is the ping's.
	s.send("")
	s.send("   \r")
	s.send(`{"jsonrpc":"2.0","id":"stray","result":{}}`)
	s.send(`{"jsonrpc":"2.0","id":"after-blank","method":"ping"}`)
	if r := s.recv(); string(r.ID) != `"after-blank"` || r.Error != nil {
		t.Errorf("ping after blank lines: id %s error %+v", r.ID, r.Error)
	}
	s.send(initializeLine)
	if r := s.recv(); string(r.ID) != "1" || r.Error != nil || !strings.Contains(string(r.Result), `"serverInfo"`) {
		t.Fatalf("initialize after bad lines: id %s error %+v result %.80s", r.ID, r.Error, r.Result)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r := s.recv()
	var tools struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(r.Result, &tools); err != nil || string(r.ID) != "2" || len(tools.Tools) != 17 {
		t.Fatalf("tools/list: id %s error %+v, %d tools (%v)", r.ID, r.Error, len(tools.Tools), err)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_get","arguments":{"path":"cairn://notes/db.md","from":9223372036854775807}}}`)
	if r := s.recv(); !strings.Contains(string(r.Result), "from 9223372036854775807 out of range: allowed 1 to 9007199254740991") {
		t.Errorf("memory_get from 2^63-1: %s", r.Result)
	}
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"busy timeout"}}}`)
	if r := s.recv(); !strings.Contains(string(r.Result), "cairn://notes/db.md") {
		t.Errorf("memory_search after bad lines: %s %+v", r.Result, r.Error)
	}
}

// endless is an input of n bytes of 'x' with no newline, then one.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	if e.n < 0 {
		return 0, io.EOF
	}
	if e.n == 0 {
		p[0], e.n = '\n', -1
		return 1, nil
	}
	k := min(len(p), e.n)
	for i := range k {
		p[i] = 'x'
	}
	e.n -= k
	return k, nil
}

// TestStdioLongLineBoundedMemory: a 256 MiB line is answered with an error
// while the reader never holds more than its limit.
func TestStdioLongLineBoundedMemory(t *testing.T) {
	var out strings.Builder
	const limit = 1 << 20
	l := &lineReader{src: &endless{n: 256 << 20}, max: limit, out: &lineWriter{w: &out, calls: newInflight()},
		calls: newInflight(), closed: make(chan struct{})}
	l.r = bufio.NewReaderSize(l.src, 64<<10)
	n, err := l.Read(make([]byte, 512))
	if n != 0 || err != io.EOF {
		t.Fatalf("read: %d bytes, %v; want the line dropped and EOF", n, err)
	}
	if cap(l.line) > limit+64<<10 {
		t.Errorf("the reader held %d bytes for one line, limit %d", cap(l.line), limit)
	}
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: the message is over %d bytes"}}`+"\n", limit)
	if out.String() != want {
		t.Errorf("answer %q, want %q", out.String(), want)
	}
}

// FuzzStdioLine: whatever one line holds, the session survives it, so a
// ping sent after it is answered.
func FuzzStdioLine(f *testing.F) {
	for _, tt := range badLines {
		f.Add(tt.line)
	}
	f.Add(initializeLine)
	f.Add(`{"jsonrpc":"2.0","id":"x","result":null}`)
	f.Add(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`)
	s := newRawSession(f, newFixture(f, fixtureOpts{noSync: true}).agent)
	n := 0
	f.Fuzz(func(t *testing.T, line string) {
		n++
		s.t = t
		s.send(strings.ReplaceAll(line, "\n", " "))
		ping := fmt.Sprintf(`"fuzz-ping-%d"`, n)
		s.send(`{"jsonrpc":"2.0","id":` + ping + `,"method":"ping"}`)
		for string(s.recv().ID) != ping {
		}
	})
}

// BenchmarkCheckPayload measures the check every stdio line and /mcp body
// goes through, on a typical tools/call.
func BenchmarkCheckPayload(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"busy timeout in the database layer","maxResults":5,"corpora":["notes","sessions"]}}}`)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if err := checkPayload(msg, false); err != nil {
			b.Fatal(err.message)
		}
	}
}

// serveAll serves input to the end over StdioTransport and returns every
// reply by id.
func serveAll(t *testing.T, a *Agent, input string) map[string]reply {
	t.Helper()
	var out strings.Builder
	err := NewMCPServer(a, nil).Run(context.Background(), &StdioTransport{Reader: strings.NewReader(input), Writer: &out})
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("run: %v", err)
	}
	got := map[string]reply{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("reply %q is not JSON: %v", line, err)
		}
		got[string(r.ID)] = r
	}
	return got
}

// TestStdioEndOfInputAnswersAll: the requests read before stdin closes
// are all answered (printf '...' | cairn mcp), and a last line without a
// newline counts as a line. Before: only initialize was answered.
func TestStdioEndOfInputAnswersAll(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	for _, last := range []string{"\n", ""} {
		input := initializeLine + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"busy timeout"}}}` + "\n" +
			`{"jsonrpc":"2.0","id":3,"method":"ping"}` + last
		got := serveAll(t, f.agent, input)
		if r, ok := got["2"]; !ok || !strings.Contains(string(r.Result), "cairn://notes/db.md") {
			t.Errorf("last line end %q: memory_search reply %+v (replies %d)", last, r, len(got))
		}
		if r, ok := got["3"]; !ok || r.Error != nil {
			t.Errorf("last line end %q: ping reply %+v, present %v", last, r.Error, ok)
		}
	}
}

// TestStdioBeforeInitialize: a call before initialize gets -32600 (the
// SDK sends code 0, which is no JSON-RPC error code); ping is allowed.
func TestStdioBeforeInitialize(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	s := newRawSession(t, f.agent)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	r := s.recv()
	if r.Error == nil || r.Error.Code != codeInvalidRequest || !strings.Contains(r.Error.Message, "initialize") || string(r.ID) != "1" {
		t.Fatalf("tools/list before initialize: %+v", r.Error)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if r := s.recv(); r.Error != nil {
		t.Errorf("ping before initialize: %+v", r.Error)
	}
	s.send(strings.Replace(initializeLine, `"id":1`, `"id":3`, 1))
	if r := s.recv(); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	if r := s.recv(); r.Error != nil {
		t.Errorf("tools/list after initialize: %+v", r.Error)
	}
}

// TestStdioDrainBounded: a call never answered holds the end of the input
// for DrainTimeout at most, and Close ends the wait at once.
func TestStdioDrainBounded(t *testing.T) {
	for _, closeIt := range []bool{false, true} {
		var out strings.Builder
		calls := newInflight()
		l := &lineReader{src: io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call"}`)),
			max: 4096, out: &lineWriter{w: &out, calls: calls}, calls: calls, drain: 50 * time.Millisecond, closed: make(chan struct{})}
		l.r = bufio.NewReader(l.src)
		if closeIt {
			l.drain = time.Hour
		}
		if n, err := l.Read(make([]byte, 4096)); n == 0 || err != nil {
			t.Fatalf("read the call: %d, %v", n, err)
		}
		if closeIt {
			go l.Close()
		}
		if _, err := l.Read(make([]byte, 4096)); err != io.EOF {
			t.Errorf("close %v: read after the unanswered call: %v, want io.EOF", closeIt, err)
		}
	}
}
