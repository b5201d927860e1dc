package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/sqlite"
)

// measureChecks times the integrity checks and the recovery probes on an
// existing agent data directory (for bench/RESULTS.md): what a check at
// every open or sync would cost.
func measureChecks(ctx context.Context, dir string) error {
	st := sqlite.New(filepath.Join(dir, engine.DBFile), engine.FeatureVersion)
	if err := st.Open(ctx); err != nil {
		return err
	}
	defer st.Close()
	stats, err := st.Stats(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("index: %d documents, %d chunks, %.0f MB\n", stats.Documents, stats.Chunks, float64(stats.Bytes)/1e6)
	for _, m := range []struct {
		name string
		fn   func() error
	}{
		{"gc marker read (GCPending)", func() error { _, err := st.GCPending(ctx); return err }},
		{"orphaned content scan (what GC looks for)", func() error { _, err := st.FindStrays(ctx); return err }},
		{"PRAGMA quick_check", func() error { _, err := st.Integrity(ctx, true); return err }},
		{"PRAGMA integrity_check", func() error { _, err := st.Integrity(ctx, false); return err }},
		{"FTS5 integrity-check", func() error { return st.CheckFTS(ctx) }},
	} {
		for run := range 2 { // the first run reads the file into the page cache
			start := time.Now()
			if err := m.fn(); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			if run == 1 {
				fmt.Printf("%-45s %8.1f ms\n", m.name, float64(time.Since(start).Microseconds())/1000)
			}
		}
	}
	return nil
}
