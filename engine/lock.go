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
)

// LockFile is the sync lock in the agent's data directory. A sync holds an
// exclusive flock(2) on it for its whole run, so two processes (two
// `cairn sync`, or a CLI sync beside a server's periodic one) never index
// the same files twice: the second waits, then finds the work done. The
// kernel drops the lock when its holder dies, kill -9 included, so a
// crash never leaves it stuck; the file itself stays (removing it would
// let a third process lock a new file while the second holds the old one).
// The holder writes its process id into it for the waiting message.
const LockFile = "sync.lock"

// lockPoll bounds how long a waiting sync sleeps between tries. Polling
// (LOCK_NB) rather than a blocking flock keeps the wait cancellable.
const lockPoll = 200 * time.Millisecond

// dirLock is a held sync lock.
type dirLock struct{ f *os.File }

// lockDir takes the sync lock of the data directory, waiting while
// another process (or another Engine on the same directory: a flock
// belongs to an open file, not a process) holds it. It says once, through
// Logf, who it waits for. Long-lived processes call it around each sync,
// never for their lifetime.
func (e *Engine) lockDir(ctx context.Context) (*dirLock, error) {
	path := filepath.Join(e.opts.Dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open sync lock: %w", err)
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
	// Best effort: the pid only feeds the message another process prints.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dirLock{f: f}, nil
}

// holder names the process in the lock file, as the message shows it.
func holder(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "pid unknown"
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return "pid unknown"
	}
	return "pid " + strconv.Itoa(pid)
}

// unlock releases the lock (closing the file releases the flock).
func (l *dirLock) unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := errors.Join(unlockFile(l.f), l.f.Close())
	l.f = nil
	return err
}
