package cairn_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestErrorMessage(t *testing.T) {
	cause := fmt.Errorf("read header: %w", cairn.ErrUnavailable)
	for _, tc := range []struct {
		err  *cairn.Error
		want string
	}{
		{&cairn.Error{Op: "open store"}, "open store"},
		{&cairn.Error{Op: "open store", Path: "/d/index.db"}, "open store /d/index.db"},
		{&cairn.Error{Op: "open store", Path: "/d/index.db", Err: cause}, "open store /d/index.db: read header: unavailable"},
		{&cairn.Error{Op: "open store", Err: cause, Hint: "run cairn doctor"}, "open store: read header: unavailable (run cairn doctor)"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	wrapped := fmt.Errorf("sync: %w", &cairn.Error{Op: "open store", Err: cause})
	if !errors.Is(wrapped, cairn.ErrUnavailable) {
		t.Error("errors.Is does not see the sentinel through *Error")
	}
	var ce *cairn.Error
	if !errors.As(wrapped, &ce) || ce.Op != "open store" {
		t.Errorf("errors.As: %v", ce)
	}
}

func TestInvalidf(t *testing.T) {
	err := cairn.Invalidf("limit %d out of range: allowed 1 to %d", 0, 100)
	if err.Error() != "limit 0 out of range: allowed 1 to 100" {
		t.Errorf("message %q: Invalidf must not add a prefix", err)
	}
	if !errors.Is(err, cairn.ErrInvalid) || errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("errors.Is: invalid %t, not found %t", errors.Is(err, cairn.ErrInvalid), errors.Is(err, cairn.ErrNotFound))
	}
	out := &cairn.InvalidOutputError{Reason: "missing field items"}
	if !errors.Is(out, cairn.ErrInvalid) || out.Error() != "invalid model output: missing field items" {
		t.Errorf("InvalidOutputError: %v", out)
	}
}
