package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/cairnmemory/cairn"
)

// beginSync takes the data directory's sync lock (lock.go) and then
// finishes what a sync killed before its end left behind: the garbage
// collection its last commit made due (sqlite GCPending) and temporary
// files of its atomic writes. It returns the function that releases the
// lock.
func (e *Engine) beginSync(ctx context.Context) (func(), error) {
	l, err := e.lockDir(ctx)
	if err != nil {
		return nil, err
	}
	release := func() {
		if err := l.unlock(); err != nil && e.opts.Logf != nil {
			e.opts.Logf("cairn: release sync lock: %v", err)
		}
	}
	if err := e.recoverSync(ctx, l.interrupted); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

// recoverSync checks the index when the previous sync was killed
// (interrupted), collects orphaned content when a GC is due and removes
// stale temporary files. After a clean sync this costs one meta row read
// and a walk of the folders Cairn writes.
func (e *Engine) recoverSync(ctx context.Context, interrupted bool) error {
	if interrupted {
		// The backend's quick check (SQLite's quick_check takes 1.3 s at
		// 105k chunks, too much for every search or server start); cairn
		// doctor runs the full one.
		if err := e.store.QuickCheck(ctx); err != nil {
			return err
		}
	}
	pending, err := e.store.GCPending(ctx)
	if err != nil {
		return err
	}
	if pending {
		n, err := e.store.GC(context.WithoutCancel(ctx))
		if err != nil {
			return err
		}
		if n > 0 {
			// Chunks and their vectors went: the lane and its map reload.
			e.vec.mu.Lock()
			e.vec.loaded, e.vec.docs = false, nil
			e.vec.mu.Unlock()
		}
	}
	removed, err := e.removeStaleTemps(time.Now())
	if err != nil && e.opts.Logf != nil {
		e.opts.Logf("cairn: remove stale temporary files: %v", err)
	}
	if removed > 0 && e.opts.Logf != nil {
		e.opts.Logf("cairn: removed %d temporary files left by an interrupted write", removed)
	}
	return nil
}

// ErrDamaged matches the error of an index that failed its integrity
// check (cairn.ErrDamaged).
var ErrDamaged = cairn.ErrDamaged

// StaleTempAge is how old a temporary file of an atomic write must be
// before a sync removes it. The write that owns one takes milliseconds,
// and some writers (a memory written by consolidate, a session import)
// do not hold the sync lock, so age alone tells a dead writer's file from
// a live one.
const StaleTempAge = 15 * time.Minute

// Temporary file names, as os.CreateTemp makes them (the * becomes
// digits): ".NAME-123" from writeFileAtomic (projections, memories, the
// status file), "vectors.bin.tmp123" from vector.Index.Save and
// "vectors.bin.lists.tmp123" from vector.Index.SaveLists.
var (
	atomicTemp = regexp.MustCompile(`^\..+-[0-9]+$`)
	vectorTemp = regexp.MustCompile(`^` + regexp.QuoteMeta(VectorFile) + `(\.lists)?\.tmp[0-9]+$`)
)

// removeStaleTemps deletes the stale temporary files (staleTemps) and
// returns how many went.
func (e *Engine) removeStaleTemps(now time.Time) (int, error) {
	paths, err := e.staleTemps(now)
	errs := []error{err}
	removed := 0
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// countStaleTemps counts them without removing any.
func (e *Engine) countStaleTemps(now time.Time) (int, error) {
	paths, err := e.staleTemps(now)
	return len(paths), err
}

// staleTemps lists temporary files older than StaleTempAge at now: in the
// sessions and memories folders (Cairn's own, searched through) and at the
// top of the data directory.
func (e *Engine) staleTemps(now time.Time) ([]string, error) {
	var out []string
	var errs []error
	stale := func(path string, d fs.DirEntry) {
		info, err := d.Info()
		if err == nil && info.Mode().IsRegular() && now.Sub(info.ModTime()) >= StaleTempAge {
			out = append(out, path)
		}
	}
	for _, root := range []string{e.sessionsRoot(), e.memoriesRoot()} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, err)
				}
				return nil
			}
			if !d.IsDir() && atomicTemp.MatchString(d.Name()) {
				stale(path, d)
			}
			return nil
		})
		errs = append(errs, err)
	}
	top, err := os.ReadDir(e.opts.Dir)
	errs = append(errs, err)
	for _, d := range top {
		if !d.IsDir() && (vectorTemp.MatchString(d.Name()) || atomicTemp.MatchString(d.Name())) {
			stale(filepath.Join(e.opts.Dir, d.Name()), d)
		}
	}
	return out, errors.Join(errs...)
}
