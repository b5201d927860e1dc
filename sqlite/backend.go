package sqlite

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

// IndexFile is the index database in a data directory.
const IndexFile = "index.db"

// Backend opens the SQLite storage of a data directory: IndexFile, with
// the durable store (DurableFile) attached beside it. It is the value
// cmd/cairn, the benchmarks and the tests pass as engine.Options.Backend.
type Backend struct{}

var (
	_ cairn.Backend            = Backend{}
	_ cairn.IndexPather        = Backend{}
	_ cairn.WriteAccessChecker = Backend{}
)

// IndexPath is dir's index file (IndexFile in dir).
func (Backend) IndexPath(dir string) string { return filepath.Join(dir, IndexFile) }

// UnwritableFiles names dir, when this user may not write it, and the
// files of the pair and their -wal and -shm this user may not write
// (cairn.WriteAccessChecker; readOnlyFiles).
func (Backend) UnwritableFiles(dir string) []string {
	var out []string
	if isDir(dir) && !writableDir(dir) {
		out = append(out, dir)
	}
	return append(out, readOnlyFiles(filepath.Join(dir, IndexFile), writableFile)...)
}

// Open opens (creating and migrating) dir's index.
func (Backend) Open(ctx context.Context, dir string, o cairn.StorageOptions) (cairn.Storage, error) {
	st := newStore(dir, o)
	if err := st.Open(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

func newStore(dir string, o cairn.StorageOptions) *Store {
	st := New(filepath.Join(dir, IndexFile), o.FeatureVersion)
	st.Mmap = !o.OneShot
	st.Ident = o.Ident
	st.Logf = o.Logf
	return st
}

// OpenMemories opens dir's durable store alone, read only
// (OpenDurableAlone).
func (Backend) OpenMemories(ctx context.Context, dir string) (cairn.MemoryReader, error) {
	st, err := OpenDurableAlone(ctx, filepath.Join(dir, IndexFile))
	if err != nil {
		return nil, err
	}
	return st, nil
}

// kept is what a rebuild of the index keeps.
const kept = "memories are kept in " + DurableFile

// CheckIndex opens dir's index and runs the full integrity_check. A file
// that is not a database, or fails the check, is damaged; findings in the
// full-text index alone are not (the fulltext check repairs them).
func (Backend) CheckIndex(ctx context.Context, dir string, o cairn.StorageOptions) (cairn.Storage, cairn.IndexHealth, error) {
	o.OneShot = true
	st := newStore(dir, o)
	h := cairn.IndexHealth{Kept: kept}
	start := time.Now()
	if err := st.Open(ctx); err != nil {
		if !IsDamaged(err) {
			return nil, h, err
		}
		h.Damaged, h.Detail = true, fmt.Sprintf("%s cannot be read: %v", st.Path, errors.Unwrap(err))
		return nil, h, nil
	}
	problems, err := st.Integrity(ctx, false)
	switch {
	case err != nil:
		st.Close()
		if !IsDamaged(err) {
			return nil, h, err
		}
		h.Damaged, h.Detail = true, err.Error()
		return nil, h, nil
	case len(problems) > 0 && !fullTextOnly(problems):
		st.Close()
		h.Damaged, h.Detail = true, fmt.Sprintf("integrity_check found %d problems, first: %s", len(problems), problems[0])
		return nil, h, nil
	case len(problems) > 0:
		// SQLite's integrity_check runs FTS5's check too; damage there
		// alone is the fulltext check's to report and repair.
		h.Detail = fmt.Sprintf("%s: pages and tables sound; integrity_check's %d findings are in the full-text index (see fulltext)",
			filepath.Base(st.Path), len(problems))
	default:
		h.Detail = fmt.Sprintf("%s passed integrity_check in %.1f s", filepath.Base(st.Path), time.Since(start).Seconds())
	}
	return st, h, nil
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

// MoveAside renames a damaged index file, with its WAL and shared-memory
// files (a new file must not pick up the old WAL), to NAME.damaged-TIME.
// The durable store beside it is a file of its own and stays. A name
// already taken (two repairs in one second) gets a number, so an earlier
// copy the user was told to keep is never overwritten.
func (Backend) MoveAside(dir string) (string, error) {
	path := filepath.Join(dir, IndexFile)
	dst := freeName(path + ".damaged-" + time.Now().UTC().Format("20060102-150405"))
	for _, suffix := range []string{"", "-wal", "-shm"} {
		err := os.Rename(path+suffix, dst+suffix)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", &cairn.Error{Op: "move damaged index aside", Path: path + suffix, Err: err,
				Hint: "move it away by hand (keep " + DurableFile + "), then run cairn sync"}
		}
	}
	return dst, nil
}

// freeName is base, or base-2, base-3, ... the first that neither it nor
// its -wal or -shm names.
func freeName(base string) string {
	taken := func(p string) bool {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if _, err := os.Lstat(p + suffix); err == nil {
				return true
			}
		}
		return false
	}
	dst := base
	for n := 2; taken(dst); n++ {
		dst = base + "-" + strconv.Itoa(n)
	}
	return dst
}

// CheckMemoriesAlone checks memory.db on its own, read only, when the
// index beside it cannot be opened (so the attached store cannot be
// reached): quick_check (the index is the one being rebuilt; the memories
// need only say whether they are readable) and the counts of what it
// holds.
func (Backend) CheckMemoriesAlone(ctx context.Context, dir string) cairn.Finding {
	st, err := OpenDurableAlone(ctx, filepath.Join(dir, IndexFile))
	if errors.Is(err, os.ErrNotExist) {
		return cairn.Finding{Detail: "no " + DurableFile + " yet: no memories stored"}
	}
	var problems []string
	var n DurableCounts
	if err == nil {
		defer st.Close()
		problems, n, err = st.DurableAlone(ctx)
	}
	switch {
	case err != nil:
		return cairn.Finding{Problem: true, Detail: err.Error(), Fix: durableFix}
	case len(problems) > 0:
		return cairn.Finding{Problem: true, Detail: fmt.Sprintf("quick_check found %d problems, first: %s", len(problems), problems[0]), Fix: durableFix}
	}
	return cairn.Finding{Detail: fmt.Sprintf("%s passed quick_check, read on its own: %d memories, %d links, %d consolidation windows",
		DurableFile, n.Memories, n.Links, n.Windows)}
}

// durableFix is the remedy for a damaged durable store: doctor never
// changes it, memories cost model calls and have no other source.
const durableFix = "not repaired: doctor never changes the memories; restore the file from a backup or copy what it still holds with sqlite3 .recover"

// FeatureChanged reports Reindexed.
func (s *Store) FeatureChanged() bool { return s.Reindexed }

// Diagnose is the package's Diagnose for this store's file.
func (s *Store) Diagnose(op string, err error) error { return Diagnose(op, s.Path, err) }

// QuickCheck runs SQLite's quick_check on the index and fails with the
// file and the remedy when it finds damage. It takes 1.3 s at 105k chunks
// (152 MB, measured with crashtest -measure-checks), too much for every
// search or every server start: the engine runs it at the first sync after
// one that was killed; cairn doctor runs the full integrity_check.
func (s *Store) QuickCheck(ctx context.Context) error {
	problems, err := s.Integrity(ctx, true)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return &cairn.Error{Op: "check index", Path: s.Path,
			Err:  fmt.Errorf("%w: quick_check found %d problems, first: %s", cairn.ErrDamaged, len(problems), problems[0]),
			Hint: HintDamaged}
	}
	return nil
}

// CheckDurable reads the attached durable store's integrity, changing
// nothing.
func (s *Store) CheckDurable(ctx context.Context) cairn.Finding {
	problems, err := s.DurableIntegrity(ctx)
	switch {
	case err != nil:
		return cairn.Finding{Problem: true, Detail: err.Error(), Fix: durableFix}
	case len(problems) > 0:
		return cairn.Finding{Problem: true, Detail: fmt.Sprintf("integrity_check found %d problems, first: %s", len(problems), problems[0]), Fix: durableFix}
	}
	return cairn.Finding{Detail: DurableFile + " passed integrity_check"}
}

var _ cairn.Storage = (*Store)(nil)
var _ cairn.MemoryReader = (*Store)(nil)
