package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// LockFile is the sync lock in the agent's data directory. A sync holds an
// exclusive flock(2) on it for its whole run, so two processes (two
// `cairn sync`, or a CLI sync beside a server's periodic one) never index
// the same files twice: the second waits, then finds the work done. The
// kernel drops the lock when its holder dies, kill -9 included, so a
// crash never leaves it stuck; the file itself stays (removing it would
// let a third process lock a new file while the second holds the old one).
// The holder writes "PID syncing" into it for the waiting message and
// empties it when done, so a sync that finds the words left behind knows
// the one before it was killed (then it checks the index, recover.go).
const LockFile = "sync.lock"

// lockPoll bounds how long a waiting sync sleeps between tries. Polling
// (LOCK_NB) rather than a blocking flock keeps the wait cancellable.
const lockPoll = 200 * time.Millisecond

// dirLock is a held sync lock. interrupted says the previous holder died
// during its sync (its "syncing" line was still there).
type dirLock struct {
	f           *os.File
	interrupted bool
	// store releases the storage's own sync lock (cairn.SyncLocker:
	// several servers on one database), nil when it has none.
	store func() error
}

// lockDir takes the sync lock of the data directory, waiting while
// another process (or another Engine on the same directory: a flock
// belongs to an open file, not a process) holds it. It says once, through
// Logf, who it waits for. Long-lived processes call it around each sync,
// never for their lifetime.
func (e *Engine) lockDir(ctx context.Context) (*dirLock, error) {
	path := filepath.Join(e.opts.Dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, &cairn.Error{Op: "open sync lock", Path: path, Err: err,
			Hint: "a sync writes in the data directory: make it writable by this user, or run cairn as the user who owns it"}
	}
	told := false
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, lockPoll) {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("take sync lock %s: %w", path, err)
		}
		if ok {
			break
		}
		if !told && e.opts.Logf != nil {
			e.opts.Logf("cairn: waiting for another sync of %s (%s)", e.opts.Dir, holder(path))
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("wait for sync lock %s: %w", path, ctx.Err())
		case <-time.After(delay):
		}
	}
	l := &dirLock{f: f}
	if sl, ok := e.store.(cairn.SyncLocker); ok {
		if l.store, err = sl.LockSync(ctx); err != nil {
			f.Close() // closing the file releases its flock
			return nil, fmt.Errorf("take the store's sync lock: %w", err)
		}
	}
	if prev, err := os.ReadFile(path); err == nil {
		_, l.interrupted = parseHolder(prev)
	}
	// Best effort: the line only feeds messages and the check above.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+" syncing\n"), 0)
	}
	return l, nil
}

// parseHolder reads a lock file's line: the holder's pid (0 when none)
// and whether it was syncing.
func parseHolder(data []byte) (int, bool) {
	f := strings.Fields(string(data))
	if len(f) < 2 || f[1] != "syncing" {
		return 0, false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// holder names the process in the lock file, as the message shows it.
func holder(path string) string {
	data, _ := os.ReadFile(path)
	pid, _ := parseHolder(data)
	if pid == 0 {
		return "pid unknown"
	}
	return "pid " + strconv.Itoa(pid)
}

// unlock marks the sync finished and releases the lock (closing the file
// releases the flock).
func (l *dirLock) unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	var serr error
	if l.store != nil {
		serr, l.store = l.store(), nil
	}
	err := errors.Join(serr, l.f.Truncate(0), unlockFile(l.f), l.f.Close())
	l.f = nil
	return err
}
