package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/schema"
)

func TestTransportError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"dns", &net.DNSError{Err: "no such host", Name: "h", IsNotFound: true}, cairn.ErrUnavailable},
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, cairn.ErrUnavailable},
		{"connect timed out", &net.OpError{Op: "dial", Net: "tcp", Err: context.DeadlineExceeded}, cairn.ErrUnavailable},
		{"answer timed out", fmt.Errorf("read: %w", context.DeadlineExceeded), cairn.ErrBusy},
		{"reset mid-answer", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, cairn.ErrBusy},
		{"closed mid-answer", io.ErrUnexpectedEOF, cairn.ErrBusy},
	}
	for _, tt := range tests {
		err := transportError(context.Background(), "http://h", time.Second, tt.err)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := transportError(ctx, "http://h", time.Second, context.Canceled); !errors.Is(err, context.Canceled) || errors.Is(err, cairn.ErrBusy) {
		t.Errorf("caller cancel: %v", err)
	}
}

func TestErrorMessageAndRetryAfter(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"Rate limit reached","type":"requests"}}`:                "Rate limit reached",
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: "Overloaded",
		`{"error":"model not found"}`:                                                 "model not found",
		`{"message":"bad gateway"}`:                                                   "bad gateway",
		"<html>502 Bad Gateway</html>\n":                                              "<html>502 Bad Gateway</html>",
		strings.Repeat("x", 400):                                                      strings.Repeat("x", 300) + "...",
	} {
		if got := errorMessage([]byte(body)); got != want {
			t.Errorf("errorMessage(%.40q) = %q, want %q", body, got, want)
		}
	}
	for _, tt := range []struct {
		header map[string]string
		want   time.Duration
	}{
		{map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "3"}, 250 * time.Millisecond},
		{map[string]string{"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0}, // a date in the past
		{map[string]string{"Retry-After": "soon"}, 0},
		{nil, 0},
	} {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		if got := retryAfter(h); got != tt.want {
			t.Errorf("retryAfter(%v) = %s, want %s", tt.header, got, tt.want)
		}
	}
}

// Schema compiles a request's schema once and keeps it by its text; a
// bad one is the caller's error and is not kept.
func TestSchemaCompiledOnce(t *testing.T) {
	text := `{"type":"object","properties":{"n":{"type":"integer"}}}`
	a, name, err := Schema(&cairn.LLMRequest{Schema: []byte(text)})
	if err != nil || name != DefaultSchemaName {
		t.Fatalf("schema %q, %v", name, err)
	}
	b, _, err := Schema(&cairn.LLMRequest{Schema: []byte(text), SchemaName: "count"})
	if err != nil || a != b {
		t.Fatalf("second compile: %p, %p, %v", a, b, err)
	}
	if _, err := schema.Answer(`{"n":"1"}`, b); err == nil {
		t.Fatal("the kept schema does not check")
	}
	for _, bad := range []string{`{"type":"objet"}`, `{"properties":{"n":{"minimun":1}}}`} {
		if _, _, err := Schema(&cairn.LLMRequest{Schema: []byte(bad)}); !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("%s: %v, want invalid", bad, err)
		}
		if compiled.m[bad] != nil {
			t.Errorf("%s kept", bad)
		}
	}
}

func TestRetry(t *testing.T) {
	busy := &HTTPError{URL: "u", Status: 503, Err: cairn.ErrBusy}
	tests := []struct {
		name  string
		errs  []error
		calls int
		want  error
	}{
		{"success", []error{nil}, 1, nil},
		{"busy then success", []error{busy, nil}, 2, nil},
		{"busy exhausted", []error{busy, busy, busy, busy}, 3, cairn.ErrBusy},
		{"unavailable is not retried", []error{&HTTPError{Status: 401, Err: cairn.ErrUnavailable}}, 1, cairn.ErrUnavailable},
		{"timeout is not retried", []error{&TimeoutError{URL: "u", Timeout: time.Second}}, 1, cairn.ErrBusy},
		{"retry-after within bounds is waited for", []error{&HTTPError{Status: 429, RetryAfter: time.Millisecond, Err: cairn.ErrBusy}, nil}, 2, nil},
		{"retry-after over the bound ends the call", []error{&HTTPError{Status: 429, RetryAfter: time.Hour, Err: cairn.ErrBusy}, nil}, 1, cairn.ErrBusy},
	}
	for _, tt := range tests {
		calls := 0
		err := Retry(context.Background(), Policy{Retries: 2, Backoff: time.Microsecond, MaxWait: time.Second}, func() error {
			calls++
			return tt.errs[calls-1]
		})
		if calls != tt.calls || (tt.want == nil) != (err == nil) || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("%s: %d calls, %v; want %d, %v", tt.name, calls, err, tt.calls, tt.want)
		}
	}
}
