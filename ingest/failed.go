package ingest

import (
	"fmt"
	"strings"
)

// SessionFailure is one session a reader could not read while it read the
// others of the same file or store.
type SessionFailure struct {
	SessionID string
	Err       error
}

// FailedSessions is a reader's error when some sessions of one file or
// store failed and the rest were read: the engine marks these failed and
// keeps their previous projections (spec C9). It lives here, not with the
// reader that returns it (ingest/openclawdb), so that the engine can tell
// it without linking that reader's SQLite driver.
type FailedSessions struct {
	Path     string
	Sessions []SessionFailure
}

func (e *FailedSessions) Error() string {
	msgs := make([]string, len(e.Sessions))
	for i, f := range e.Sessions {
		msgs[i] = f.SessionID + ": " + f.Err.Error()
	}
	return fmt.Sprintf("read openclaw store %s: %d sessions failed: %s", e.Path, len(e.Sessions), strings.Join(msgs, "; "))
}
