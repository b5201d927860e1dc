package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/sqlite"
)

// syncCheckMaxBytes is the largest index file cairn sync checks with
// SQLite's quick_check after it synced. The check reads every page: the
// sqlite3 shell took 0.036 to 0.064 s at 26.6 MiB with the file in the
// page cache (load 7.2), and a no-op cairn sync of that index went from
// 0.53 to 0.69 s (medians of six, alternating, load 5.7 to 6.1); 1.3 s at
// 152 MB cold (QuickCheck's note). Up to this size it adds about 0.1 s. A
// larger index is checked by cairn doctor, and by the first sync after
// one that was killed; a sync still fails on any damage it reads.
const syncCheckMaxBytes = 16 << 20

// syncDamage is what cairn sync says about a damaged index (review
// finding F12: a sync over a garbled index.db said "done", or failed with
// SQLite's "database disk image is malformed" and no file or remedy).
// err, when it says the index is damaged without naming the file and
// what to do, comes back naming them; a failure of one file whose reason
// is damage makes the sync fail the same way; and a sync that went
// through over an SQLite index of at most syncCheckMaxBytes runs
// quick_check on it. Other errors come back as they are.
func (e *env) syncDamage(ctx context.Context, cfg *config.Config, res *cairn.SyncResult, err error) error {
	if cfg == nil || storeBackend(cfg, e.agent) != nil {
		return err // PostgreSQL: no index file
	}
	_, dataDir := e.paths()
	dir, derr := config.AgentDir(dataDir, e.agent)
	if derr != nil {
		return err
	}
	path := filepath.Join(dir, sqlite.IndexFile)
	if err != nil {
		return damagedIndex(path, err)
	}
	for _, c := range res.Corpora {
		for _, f := range c.Failures {
			if sqlite.IsDamaged(errors.New(f.Reason)) {
				return damagedIndex(path, fmt.Errorf("sync %s/%s: %s", c.Name, f.Path, f.Reason))
			}
		}
	}
	if fi, serr := os.Stat(path); serr == nil && fi.Size() <= syncCheckMaxBytes {
		return damagedIndex(path, sqlite.QuickCheckFile(ctx, path))
	}
	return nil
}

// damagedIndex names the index file and the repair in err when err says
// the index is damaged and does not name them already.
func damagedIndex(path string, err error) error {
	if err == nil || !sqlite.IsDamaged(err) && !errors.Is(err, engine.ErrDamaged) {
		return err
	}
	var ce *cairn.Error
	if errors.As(err, &ce) && ce.Path == path && ce.Hint != "" {
		return err
	}
	return &cairn.Error{Op: "sync: the index is damaged", Path: path, Err: err, Hint: sqlite.HintDamaged}
}
