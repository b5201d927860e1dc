package mcpserver

import (
	"log/slog"
	"sync"
	"time"
)

// AuthLogEvery is the most often the server logs requests refused for a
// wrong bearer token: one line, then a count of the refusals since, so a
// client guessing tokens shows in the log without flooding it.
const AuthLogEvery = time.Minute

// authFailures logs refused bearer tokens with the remote address, at most
// one line per AuthLogEvery. Requests without an Authorization header (a
// browser opening the pages before it has the token) are not counted:
// only a token that was sent and is wrong.
type authFailures struct {
	mu      sync.Mutex
	now     func() time.Time // time.Now; tests move it
	last    time.Time        // when the last line was logged (zero: never)
	dropped int              // refusals since that line, not logged
}

// note records one refusal from remote for path and logs it when the last
// line is AuthLogEvery old or more.
func (a *authFailures) note(logger *slog.Logger, remote, path string) {
	a.mu.Lock()
	now := a.now()
	if !a.last.IsZero() && now.Sub(a.last) < AuthLogEvery {
		a.dropped++
		a.mu.Unlock()
		return
	}
	since := a.dropped
	a.last, a.dropped = now, 0
	a.mu.Unlock()
	logger.Warn("refused a wrong bearer token", "remote", remote, "path", path, "refused_since_last_line", since)
}
