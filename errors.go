package cairn

import (
	"errors"
	"fmt"
)

// Sentinel errors. Wrap them with fmt.Errorf("verb object: %w", ...) or
// *Error and test with errors.Is.
var (
	// ErrNotFound: the thing asked for is not indexed.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable: a dependency (model, endpoint, store) cannot serve now.
	ErrUnavailable = errors.New("unavailable")
	// ErrBusy: the dependency is overloaded or another run holds the lock.
	ErrBusy = errors.New("busy")
	// ErrInvalid: the request or configuration is malformed. Callers map it
	// to a usage error (CLI exit status 2, MCP tool error).
	ErrInvalid = errors.New("invalid")
	// ErrForbidden: the caller's grant does not cover what it asked for
	// (a team server's access file: engine.Scope). HTTP answers 403.
	ErrForbidden = errors.New("forbidden")
)

// Error is a structured error: what was being done (Op), to what (Path),
// why (Err) and what the user can do about it (Hint).
type Error struct {
	Op   string // "open store", "read config"
	Path string // file, field or cairn:// path; may be empty
	Err  error
	Hint string // one sentence saying what to do; may be empty
}

func (e *Error) Error() string {
	msg := e.Op
	if e.Path != "" {
		msg += " " + e.Path
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Invalidf returns an error that matches ErrInvalid with a formatted message
// that should name the field and the allowed values. The message is shown
// as is, without an "invalid" prefix.
func Invalidf(format string, args ...any) error {
	return invalidError(fmt.Sprintf(format, args...))
}

type invalidError string

func (e invalidError) Error() string { return string(e) }
func (e invalidError) Unwrap() error { return ErrInvalid }

// Forbiddenf returns an error that matches ErrForbidden with a formatted
// message that should name what was refused and the grant that refused it.
func Forbiddenf(format string, args ...any) error {
	return forbiddenError(fmt.Sprintf(format, args...))
}

type forbiddenError string

func (e forbiddenError) Error() string { return string(e) }
func (e forbiddenError) Unwrap() error { return ErrForbidden }
