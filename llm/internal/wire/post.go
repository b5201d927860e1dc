// Package wire holds what Cairn's chat clients share: one JSON POST whose
// failures map to Cairn's sentinel errors, bounded retries that honor
// Retry-After, and reading a JSON answer against the request's schema.
//
// Failures map as follows. Unavailable (a person must act; retrying now
// does not help): no connection (refused, DNS failure, no route, TLS
// failure, a connect that timed out), 401 and 403, and other 4xx answers
// (a wrong model id, a request the server will never accept). Busy (the
// endpoint is there but cannot serve now; a later run may succeed): 408,
// 409, 429, 5xx and 529 "overloaded", a connection dropped mid-answer, and
// an answer that did not come within the timeout.
//
// Why a timeout is busy and not unavailable: the connection was made and
// the server accepted the request, so the endpoint exists and the key
// works; a slow answer means load or a long generation, which a later run
// can get through. Why a timeout is not retried at once: the whole timeout
// (up to 300 s for a consolidation window) was already spent, and the same
// request right away would most likely spend it again; the caller pauses
// and the next run tries again.
package wire

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/internal/httpjson"
)

// HTTPError is an answer with a status other than 200.
type HTTPError struct {
	URL        string
	Status     int
	Message    string        // the body's error message, or its start
	RetryAfter time.Duration // from Retry-After or retry-after-ms; 0 when absent
	Err        error         // cairn.ErrBusy, cairn.ErrInvalid (400, 413, 422) or cairn.ErrUnavailable
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("%v: %s answered %d", e.Err, e.URL, e.Status)
	if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden {
		msg += " (check the API key)"
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

func (e *HTTPError) Unwrap() error { return e.Err }

// TimeoutError is an answer that did not come within the timeout. It is
// busy, and Retry does not retry it (see the package doc).
type TimeoutError struct {
	URL     string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("busy: %s sent no answer within %s", e.URL, e.Timeout)
}

func (e *TimeoutError) Unwrap() error { return cairn.ErrBusy }

// Post sends body with header to url within timeout and returns the body
// of a 200 answer, at most limit bytes. Errors wrap cairn.ErrBusy or
// cairn.ErrUnavailable as the package doc says, or the caller's own
// context error when ctx ended first.
func Post(ctx context.Context, hc *http.Client, url string, header http.Header, body []byte, timeout time.Duration, limit int64) ([]byte, error) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: build request for %q: %v", cairn.ErrUnavailable, url, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, transportError(ctx, url, timeout, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, transportError(ctx, url, timeout, err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, statusError(url, res, raw)
	}
	if int64(len(raw)) > limit {
		return nil, &cairn.InvalidOutputError{Reason: fmt.Sprintf("response from %s is over %d bytes", url, limit)}
	}
	return raw, nil
}

// transportError classifies a failure to get an answer at all.
func transportError(ctx context.Context, url string, timeout time.Duration, err error) error {
	url = shownURL(url)
	var ue *neturl.Error // its message repeats the full URL, query included
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if ctx.Err() != nil { // the caller gave up, not the endpoint
		return fmt.Errorf("post %s: %w", url, context.Cause(ctx))
	}
	var dns *net.DNSError
	var op *net.OpError
	var cert *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	switch {
	case errors.As(err, &dns):
		return fmt.Errorf("%w: look up %s: %v", cairn.ErrUnavailable, url, err)
	case errors.As(err, &op) && op.Op == "dial":
		return fmt.Errorf("%w: connect to %s: %v", cairn.ErrUnavailable, url, err)
	case errors.As(err, &cert) || errors.As(err, &unknown):
		return fmt.Errorf("%w: tls to %s: %v", cairn.ErrUnavailable, url, err)
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return &TimeoutError{URL: url, Timeout: timeout}
	}
	// A connection reset or closed mid-answer: the server is there but
	// dropped us, which load and restarts do.
	return fmt.Errorf("%w: post %s: %v", cairn.ErrBusy, url, err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func statusError(url string, res *http.Response, raw []byte) *HTTPError {
	url = shownURL(url)
	e := &HTTPError{URL: url, Status: res.StatusCode, Message: errorMessage(raw), RetryAfter: retryAfter(res.Header)}
	switch s := res.StatusCode; {
	case s == http.StatusRequestTimeout, s == http.StatusConflict, s == http.StatusTooManyRequests, s >= 500:
		e.Err = cairn.ErrBusy
	case s == http.StatusBadRequest, s == http.StatusRequestEntityTooLarge, s == http.StatusUnprocessableEntity:
		// The request is refused, not the endpoint (a prompt too long, a
		// content filter): another request may pass, so this one is
		// invalid and a consolidation run moves on to the next window
		// instead of pausing on it every time.
		e.Err = cairn.ErrInvalid
	default:
		e.Err = cairn.ErrUnavailable
	}
	return e
}

// errorMessage reads {"error":{"message":...}} (OpenAI, Anthropic),
// {"error":"..."} (Ollama, llama.cpp) or {"message":...}, else the body's
// first 300 bytes.
func errorMessage(raw []byte) string {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(raw, &body) == nil {
		var nested struct {
			Message string `json:"message"`
		}
		var flat string
		switch {
		case json.Unmarshal(body.Error, &nested) == nil && nested.Message != "":
			return cut(nested.Message, 300)
		case json.Unmarshal(body.Error, &flat) == nil && flat != "":
			return cut(flat, 300)
		case body.Message != "":
			return cut(body.Message, 300)
		}
	}
	return cut(strings.TrimSpace(string(raw)), 300)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// retryAfter reads retry-after-ms, then Retry-After in seconds or as an
// HTTP date; 0 when absent or unreadable.
func retryAfter(h http.Header) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// Endpoint is httpjson.Endpoint as a string, with the error the chat
// clients return for a base_url that is not an http(s) URL with a host.
func Endpoint(base, trim string, elem ...string) (string, error) {
	u, ok := httpjson.Endpoint(base, trim, elem...)
	if !ok {
		return "", fmt.Errorf("%w: base_url is not an http:// or https:// URL with a host", cairn.ErrUnavailable)
	}
	return u.String(), nil
}

// Shown is an endpoint as errors and messages show it: without a password
// or a query (either may hold a key).
func Shown(raw string) string { return shownURL(raw) }

// shownURL is an endpoint as errors show it: without a password or a query
// (some gateways take the key as ?key=), which errors must not carry into
// logs and results.
func shownURL(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.RawQuery, u.Fragment = "", ""
	return u.Redacted()
}
