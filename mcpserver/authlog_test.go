package mcpserver

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log sink the server's goroutines may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAuthFailuresRateLimited: the first wrong token is logged with its
// remote address, the next ones within AuthLogEvery are counted, and the
// first after it logs the count (the clock is the test's).
func TestAuthFailuresRateLimited(t *testing.T) {
	var buf syncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	now := time.Date(2026, 12, 3, 13, 0, 0, 0, time.UTC)
	a := authFailures{now: func() time.Time { return now }}
	for i := range 200 {
		a.note(logger, "203.0.113.7:4000", "/v1/search")
		now = now.Add(time.Duration(i%2) * time.Millisecond)
	}
	if n := strings.Count(buf.String(), "refused a wrong bearer token"); n != 1 || !strings.Contains(buf.String(), "remote=203.0.113.7:4000") {
		t.Fatalf("200 refusals in a second: %d lines, want 1 naming the address:\n%s", n, buf.String())
	}
	now = now.Add(AuthLogEvery)
	a.note(logger, "203.0.113.8:4001", "/mcp")
	if lines := strings.Split(strings.TrimSpace(buf.String()), "\n"); len(lines) != 2 ||
		!strings.Contains(lines[1], "remote=203.0.113.8:4001") || !strings.Contains(lines[1], "refused_since_last_line=199") {
		t.Fatalf("after a minute: %q, want a second line with the 199 refusals counted since", lines)
	}
}

// TestHTTPLogsWrongTokens: a wrong bearer token is refused with 401 and
// logged once with the client's address however many are sent in a row;
// requests sending no token at all are refused without a log line.
func TestHTTPLogsWrongTokens(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	var buf syncBuffer
	srv := serve(t, HTTPOptions{Agents: []*Agent{f.agent}, Token: "s3cret-token-0123456789", Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	for range 5 {
		if status, _ := do(t, srv, request{"POST", "/v1/search", `{"query":"ledger"}`, nil}); status != 401 {
			t.Fatalf("no token: status %d", status)
		}
	}
	if strings.Contains(buf.String(), "bearer") {
		t.Fatalf("requests without a token were logged:\n%s", buf.String())
	}
	for i := range 50 {
		status, _ := do(t, srv, request{"POST", "/v1/search", `{"query":"ledger"}`, map[string]string{"Authorization": "Bearer guess" + string(rune('a'+i%26))}})
		if status != 401 {
			t.Fatalf("wrong token: status %d", status)
		}
	}
	if n := strings.Count(buf.String(), "refused a wrong bearer token"); n != 1 || !strings.Contains(buf.String(), "remote=127.0.0.1:") {
		t.Fatalf("50 wrong tokens: %d lines, want 1 naming the address:\n%s", n, buf.String())
	}
}
