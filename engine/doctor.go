package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cairnmemory/cairn"
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
	Name   string `json:"name"` // index, fulltext, strays, text, vectors, temp_files, lock, memories, files; cairn doctor adds embedder, corpora
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
	// resync: a repair dropped damaged texts (doctor_text.go), which a
	// sync indexes again from their files.
	resync bool
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
// chunk, chunks missing from the full-text index), every stored text
// against the hash it was stored under (doctor_text.go), the vector index
// file's checksum, stale temporary files and the sync lock, and the
// durable store of memories (memory.db, checked and never changed).
// With repair it rebuilds what is derived: the full-text index from the
// chunks, stray rows away, damaged texts dropped and their files indexed
// again by a sync, vectors.bin from the vectors in SQLite, and an
// index file beyond repair is moved aside (index.db.damaged-TIME, with its
// -wal and -shm) and rebuilt by a sync of the corpora. It holds the sync
// lock meanwhile (waiting for a running sync, as a second sync would); a
// long-lived process (cairn serve, cairn mcp) that has the index open
// should be stopped before a rebuild, or it keeps the moved file.
func Doctor(ctx context.Context, opts Options, repair bool) (*DoctorReport, error) {
	opts.setDefaults()
	opts.OneShot = true
	rep := &DoctorReport{Dir: opts.Dir, Repair: repair}
	if opts.Backend == nil {
		return nil, errNoBackend
	}
	// Only a backend whose index is a file here can have nothing indexed
	// yet by that file's absence; PostgreSQL keeps no index.db (doctor of
	// a team store failed with "no such file" right after a sync).
	if ip, ok := opts.Backend.(cairn.IndexPather); ok {
		path := ip.IndexPath(opts.Dir)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, &cairn.Error{Op: "check index", Path: path, Err: err, Hint: "nothing is indexed here yet: run cairn sync"}
		}
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
	if wc, ok := opts.Backend.(cairn.WriteAccessChecker); ok {
		if files := wc.UnwritableFiles(opts.Dir); len(files) > 0 {
			rep.addUnwritable(files)
			return rep, nil
		}
	}
	st, health, err := opts.Backend.CheckIndex(ctx, opts.Dir, storageOptions(opts))
	if err != nil {
		return nil, err
	}
	if health.Damaged {
		rep.addDamaged(health, repair)
		rep.add(e.checkTemps(repair))                                          // needs no index
		rep.add(memoriesCheck(opts.Backend.CheckMemoriesAlone(ctx, opts.Dir))) // memory.db is a file of its own
		if !repair {
			return rep, nil
		}
		if rep.MovedAside, err = opts.Backend.MoveAside(opts.Dir); err != nil {
			return nil, err
		}
		// Sync takes the lock itself: release it for the rebuild.
		lock.unlock()
		locked = false
		return rep, rebuild(ctx, opts, rep)
	}
	rep.add(DoctorCheck{Name: "index", Status: CheckOK, Detail: health.Detail})
	e.store = st
	err = e.checkDerived(ctx, rep, repair)
	st.Close()
	if err != nil {
		return nil, err
	}
	if !rep.resync {
		return rep, nil
	}
	// Damaged texts were dropped: a sync reads their files again.
	lock.unlock()
	locked = false
	return rep, rebuild(ctx, opts, rep)
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

// addDamaged reports a damaged index and the checks that cannot run on
// it. Without --repair the fix says what --repair would do, not what it
// did.
func (r *DoctorReport) addDamaged(h cairn.IndexHealth, repair bool) {
	c := DoctorCheck{Name: "index", Status: CheckProblem, Detail: h.Detail,
		Fix: "run cairn doctor --repair to move it aside and rebuild it from the corpora (" + h.Kept + ")"}
	if repair {
		c.Status, c.Fix = CheckRepaired, "moved aside and rebuilt from the corpora ("+h.Kept+")"
	}
	r.add(c)
	for _, name := range []string{"fulltext", "strays", "text", "vectors"} {
		r.add(DoctorCheck{Name: name, Status: CheckSkipped, Detail: "the index is unreadable"})
	}
}

// addUnwritable reports files of the data directory this user may not
// write, and the checks that cannot run meanwhile: each of them writes,
// and a read-only file is not a damaged index, so nothing is rebuilt or
// moved aside, with --repair or without.
func (r *DoctorReport) addUnwritable(files []string) {
	r.add(DoctorCheck{Name: "files", Status: CheckProblem,
		Detail: "not writable by this user: " + strings.Join(files, ", "),
		Fix:    "make them writable (chmod u+w " + strings.Join(files, " ") + "), or run cairn as the user who owns them; then run cairn doctor again"})
	for _, name := range []string{"index", "fulltext", "strays", "text", "vectors", "memories"} {
		r.add(DoctorCheck{Name: name, Status: CheckSkipped, Detail: "not checked: files of the data directory are read-only"})
	}
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
