package judge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/cairnmemory/cairn"
)

// Code says why a judgment failed (C24; C29 adds credentials).
type Code string

// Error codes.
const (
	CodeTimeout     Code = "timeout"          // no answer within the per-request timeout
	CodeCancelled   Code = "cancelled"        // the caller's context ended first
	CodeHTTP        Code = "http_error"       // the endpoint answered a status other than 2xx (Status says which; a redirect is one)
	CodeNetwork     Code = "network_error"    // no answer came: refused, DNS, TLS, a dropped connection
	CodeInvalid     Code = "invalid_response" // an answer came but cannot be read as the questions' answers
	CodeCredentials Code = "credentials"      // the key could not be had (missing or unreadable); nothing was sent
)

// Error is a failed judgment. Its message holds the code, the status and
// a reason in Cairn's words, never a provider's body or a model's text
// (they may quote the state back); the client's error stays reachable
// through Unwrap for errors.Is.
type Error struct {
	Code   Code
	Status int    // CodeHTTP: the answer's status
	Policy string // the policy id of the judgment
	Reason string // CodeInvalid: what is wrong with the answer
	err    error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("judge %s: %s", e.Policy, e.Code)
	if e.Status != 0 {
		msg += fmt.Sprintf(" %d", e.Status)
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

func (e *Error) Unwrap() error { return e.err }

// CodeOf returns the code of a judge error, "" for any other error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// errTimeout is the cause of a judgment's own deadline.
var errTimeout = errors.New("judge request timed out")

// errCredentials marks a key that could not be had.
var errCredentials = errors.New("judge credentials")

// observed is what the judge's transport saw of one judgment's HTTP
// answers; it travels in the request's context.
type observed struct {
	mu     sync.Mutex
	status int // the last answer's status; 0: none came
}

func (o *observed) set(status int) {
	o.mu.Lock()
	o.status = status
	o.mu.Unlock()
}

func (o *observed) last() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.status
}

type observedKey struct{}

// transport records each answer's status for the judgment that asked, and
// discards the body of a non-2xx answer unread, except 400 and 422, whose
// message tells the client which parameter the server refuses (JSON
// schemas, logprobs) so it can ask without it. Even those never reach a
// judge's error message.
type transport struct{ base http.RoundTripper }

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if o, ok := req.Context().Value(observedKey{}).(*observed); ok {
		o.set(res.StatusCode)
	}
	ok := res.StatusCode >= 200 && res.StatusCode < 300
	if !ok && res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusUnprocessableEntity {
		res.Body.Close()
		res.Body = io.NopCloser(http.NoBody)
	}
	return res, nil
}

// httpClient is the judge's HTTP client: no redirects followed (a 3xx is
// answered as is and is an http_error), statuses observed.
func httpClient() *http.Client {
	return &http.Client{
		Transport:     transport{base: http.DefaultTransport},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// classify turns a model call's failure into a judge Error. caller is the
// caller's context, jctx the judgment's (the caller's with the timeout).
func classify(caller, jctx context.Context, obs *observed, policy string, err error) *Error {
	e := &Error{Policy: policy, err: err}
	var ioe *cairn.InvalidOutputError
	status := obs.last()
	switch {
	case caller.Err() != nil:
		e.Code = CodeCancelled
	case context.Cause(jctx) == errTimeout:
		e.Code = CodeTimeout
	case errors.Is(err, errCredentials):
		e.Code = CodeCredentials
	case status != 0 && (status < 200 || status > 299):
		e.Code, e.Status = CodeHTTP, status
	case errors.As(err, &ioe) || errors.Is(err, cairn.ErrInvalid):
		e.Code, e.Reason = CodeInvalid, "the answer cannot be read or does not fit the answer schema"
	case status != 0:
		e.Code = CodeInvalid // a 2xx that the client could not use
	default:
		e.Code = CodeNetwork
	}
	return e
}
