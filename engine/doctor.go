package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/sqlite"
)

// Check statuses in a DoctorReport.
const (
	CheckOK       = "ok"
	CheckProblem  = "problem"  // found and not repaired
	CheckRepaired = "repaired" // found and repaired
	CheckSkipped  = "skipped"  // could not run (the index is unreadable)
)

// DoctorCheck is one check of Doctor. JSON names are fixed.
type DoctorCheck struct {
	Name   string `json:"name"` // index, fulltext, strays, vectors, temp_files, lock, memories
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	// Fix says what --repair does about a problem, or what it did.
	Fix string `json:"fix,omitempty"`
}

// DoctorReport is what Doctor found and did.
type DoctorReport struct {
	Dir      string        `json:"dir"`
	Repair   bool          `json:"repair"`
	Checks   []DoctorCheck `json:"checks"`
	Problems int           `json:"problems"` // checks left with a problem
	// MovedAside is where a damaged index went before it was rebuilt.
	MovedAside string            `json:"movedAside,omitempty"`
	Sync       *cairn.SyncResult `json:"sync,omitempty"` // the rebuild's sync
}

func (r *DoctorReport) add(c DoctorCheck) {
	if c.Status == CheckProblem {
		r.Problems++
	}
	r.Checks = append(r.Checks, c)
}

// Doctor checks the data directory opts.Dir: the index file's integrity
// (PRAGMA integrity_check), the full-text index (FTS5 integrity-check),
// stray rows (orphaned content, full-text rows and vectors without a
// chunk, chunks missing from the full-text index), the vector index
// file's checksum, stale temporary files and the sync lock, and the
// durable store of memories (memory.db, checked and never changed).
// With repair it rebuilds what is derived: the full-text index from the
// chunks, stray rows away, vectors.bin from the vectors in SQLite, and an
// index file beyond repair is moved aside (index.db.damaged-TIME, with its
// -wal and -shm) and rebuilt by a sync of the corpora. It holds the sync
// lock meanwhile (waiting for a running sync, as a second sync would); a
// long-lived process (cairn serve, cairn mcp) that has the index open
// should be stopped before a rebuild, or it keeps the moved file.
func Doctor(ctx context.Context, opts Options, repair bool) (*DoctorReport, error) {
	opts.setDefaults()
	opts.OneShot = true
	rep := &DoctorReport{Dir: opts.Dir, Repair: repair}
	path := filepath.Join(opts.Dir, DBFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, &cairn.Error{Op: "check index", Path: path, Err: err, Hint: "nothing is indexed here yet: run cairn sync"}
	}
	e := &Engine{opts: opts}
	lock, err := e.lockDir(ctx)
	if err != nil {
		return nil, err
	}
	locked := true
	defer func() {
		if locked {
			lock.unlock()
		}
	}()
	rep.add(lockCheck(lock))
	st := sqlite.New(path, FeatureVersion)
	st.Ident = e.searchIdent()
	damaged, err := checkIndexFile(ctx, st, rep, repair)
	if err != nil {
		return nil, err
	}
	if damaged {
		rep.add(e.checkTemps(repair))         // needs no index
		rep.add(checkDurableAlone(ctx, path)) // memory.db is a file of its own
		if !repair {
			return rep, nil
		}
		if rep.MovedAside, err = moveAside(path); err != nil {
			return nil, err
		}
		// Sync takes the lock itself: release it for the rebuild.
		lock.unlock()
		locked = false
		return rep, rebuild(ctx, opts, rep)
	}
	defer st.Close()
	e.store = st
	if err := e.checkDerived(ctx, rep, repair); err != nil {
		return nil, err
	}
	return rep, nil
}

// lockCheck reports the lock's state: Doctor holds it now, so a sync that
// held it has ended; its line says whether that sync was killed.
func lockCheck(l *dirLock) DoctorCheck {
	c := DoctorCheck{Name: "lock", Status: CheckOK, Detail: "no sync running; the last one finished"}
	if l.interrupted {
		c.Detail = "the last sync was interrupted; the next sync finishes its work (checks below say what is left)"
	}
	return c
}

// checkIndexFile opens the index and runs the full integrity check. It
// reports damaged when the file is not a database or fails the check.
func checkIndexFile(ctx context.Context, st *sqlite.Store, rep *DoctorReport, repair bool) (bool, error) {
	c := DoctorCheck{Name: "index", Status: CheckOK}
	// Without --repair the fix says what --repair would do, not what it did.
	fix := "run cairn doctor --repair to move it aside and rebuild it from the corpora (memories are kept in " + sqlite.DurableFile + ")"
	if repair {
		fix = "moved aside and rebuilt from the corpora (memories are kept in " + sqlite.DurableFile + ")"
	}
	start := time.Now()
	if err := st.Open(ctx); err != nil {
		if !sqlite.IsDamaged(err) {
			return false, err
		}
		c.Status, c.Detail, c.Fix = CheckProblem, fmt.Sprintf("%s cannot be read: %v", st.Path, errors.Unwrap(err)), fix
	} else if problems, err := st.Integrity(ctx, false); err != nil {
		st.Close()
		if !sqlite.IsDamaged(err) {
			return false, err
		}
		c.Status, c.Detail, c.Fix = CheckProblem, err.Error(), fix
	} else if len(problems) > 0 && !fullTextOnly(problems) {
		st.Close()
		c.Status, c.Detail, c.Fix = CheckProblem, fmt.Sprintf("integrity_check found %d problems, first: %s", len(problems), problems[0]), fix
	} else if len(problems) > 0 {
		// SQLite's integrity_check runs FTS5's check too; damage there
		// alone is the fulltext check's to report and repair.
		c.Detail = fmt.Sprintf("%s: pages and tables sound; integrity_check's %d findings are in the full-text index (see fulltext)",
			filepath.Base(st.Path), len(problems))
	} else {
		c.Detail = fmt.Sprintf("%s passed integrity_check in %.1f s", filepath.Base(st.Path), time.Since(start).Seconds())
	}
	if c.Status == CheckProblem {
		if repair {
			c.Status = CheckRepaired
		}
		rep.add(c)
		for _, name := range []string{"fulltext", "strays", "vectors"} {
			rep.add(DoctorCheck{Name: name, Status: CheckSkipped, Detail: "the index is unreadable"})
		}
		return true, nil
	}
	rep.add(c)
	return false, nil
}

// fullTextOnly reports whether every integrity_check finding is about the
// full-text index, which a rebuild from the chunks repairs.
func fullTextOnly(problems []string) bool {
	for _, p := range problems {
		if !strings.HasPrefix(p, "fts5:") && !strings.Contains(p, `"chunks_fts`) {
			return false
		}
	}
	return true
}

// moveAside renames a damaged index file, with its WAL and shared-memory
// files (a new file must not pick up the old WAL), to NAME.damaged-TIME.
// The durable store beside it is a file of its own and stays.
func moveAside(path string) (string, error) {
	dst := path + ".damaged-" + time.Now().UTC().Format("20060102-150405")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		err := os.Rename(path+suffix, dst+suffix)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", &cairn.Error{Op: "move damaged index aside", Path: path + suffix, Err: err,
				Hint: "move it away by hand (keep " + sqlite.DurableFile + "), then run cairn sync"}
		}
	}
	return dst, nil
}

// rebuild opens a fresh index and syncs the corpora into it.
func rebuild(ctx context.Context, opts Options, rep *DoctorReport) error {
	opts.OneShot = true
	eng, err := Open(ctx, opts)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	rep.Sync, err = eng.Sync(ctx, nil)
	if err != nil {
		return fmt.Errorf("rebuild index: %w", err)
	}
	return nil
}
