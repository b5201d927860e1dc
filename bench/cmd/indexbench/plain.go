package main

// The plain insert: -plain prepares every document of -dir as -writer does
// (the same chunks, shared content once, the same identifier text), then
// times one transaction of INSERTs into a bare FTS5 table made by the same
// CREATE statement as Cairn's chunks_fts (columns, contentless, tokenizer
// and its pair words), in a database file of its own with no other table.
// No content, chunks or documents rows, no batches, no bulk settings, no
// optimize: the floor a first index is measured against (issue 19 item 3:
// within 1.3x of it). The connection has the file settings of Cairn's
// writer (WAL, synchronous NORMAL, secure_delete, a 32 MB cache), so the
// two differ in what they write, not in how the file is kept. The insert
// runs on one locked OS thread; its thread CPU and the process's are
// reported.

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/cairnmemory/cairn/bench/procstat"
	"github.com/cairnmemory/cairn/sqlite"
)

// PlainFile is the database file -plain writes under -index.
const PlainFile = "plain.db"

// PlainResult is the JSON line of -plain.
type PlainResult struct {
	// InsertSeconds is the wall time of the transaction: BEGIN, every
	// INSERT, COMMIT. InsertCPU is the locked thread's user+sys over it,
	// ProcessCPU the whole process's (getrusage).
	InsertSeconds float64 `json:"insertSeconds"`
	InsertCPU     float64 `json:"insertCPUSeconds"`
	ProcessCPU    float64 `json:"processCPUSeconds"`
	// CloseSeconds and CloseCPU are the connection's Close after the
	// commit: the checkpoint of the WAL into the file.
	CloseSeconds float64 `json:"closeSeconds"`
	CloseCPU     float64 `json:"closeCPUSeconds"`
	// PrepareSeconds is reading, redacting, chunking and the identifier
	// text of every document on one goroutine, before the timing.
	PrepareSeconds float64 `json:"prepareSeconds"`
	Rows           int     `json:"rows"` // full-text rows inserted: the chunks but noise
	WrittenMB      float64 `json:"writtenMB"`
	Table          string  `json:"table"` // the CREATE statement used
	Load1          float64 `json:"load1"`
}

// cairnFTSTable is the CREATE statement of chunks_fts in a new Cairn index,
// read from one made for the purpose under dir (removed after).
func cairnFTSTable(ctx context.Context, dir string) (string, error) {
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, sqlite.IndexFile)
	st := sqlite.New(path, "indexbench-plain")
	if err := st.Open(ctx); err != nil {
		return "", err
	}
	if err := st.Close(); err != nil {
		return "", err
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return "", err
	}
	defer db.Close()
	var create string
	if err := db.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'chunks_fts'`).Scan(&create); err != nil {
		return "", fmt.Errorf("read chunks_fts schema: %w", err)
	}
	return create, nil
}

func runPlain(ctx context.Context, c *config) (*PlainResult, error) {
	r := &PlainResult{}
	p0 := time.Now()
	docs, err := prepareDocs(c)
	if err != nil {
		return nil, err
	}
	r.PrepareSeconds = time.Since(p0).Seconds()
	create, err := cairnFTSTable(ctx, filepath.Join(c.index, "schema"))
	if err != nil {
		return nil, err
	}
	r.Table = create
	type row struct{ title, body, ident string }
	var rows []row
	for _, d := range docs {
		for _, k := range d.Chunks {
			if !k.Noise {
				rows = append(rows, row{d.Title, d.Text[k.Pos : k.Pos+k.Len], k.Ident})
			}
		}
	}
	r.Rows = len(rows)
	if err := os.MkdirAll(c.index, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(c.index, PlainFile)
	os.Remove(path)
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=NORMAL&_secure_delete=on&_cache_size=-32000")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	closed := false
	defer func() {
		if !closed {
			db.Close()
		}
	}()
	// The FTS5 table is named as Cairn's, so the statement is used as read.
	if _, err := db.ExecContext(ctx, create); err != nil {
		return nil, fmt.Errorf("create plain table: %w", err)
	}
	runtime.GC()
	r.Load1 = procstat.Load1()
	ctx = context.Background() // no Done: statements run on the calling goroutine (writer.go)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return nil, fmt.Errorf("create profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, fmt.Errorf("start profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	w0 := wchar()
	u0, s0 := cpuTimes()
	t0 := threadCPU()
	start := time.Now()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO chunks_fts(rowid, title, body, ident) VALUES(?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	for i, x := range rows {
		if _, err := ins.ExecContext(ctx, int64(i+1), x.title, x.body, x.ident); err != nil {
			return nil, fmt.Errorf("insert row %d: %w", i+1, err)
		}
	}
	ins.Close()
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	r.InsertSeconds = time.Since(start).Seconds()
	t1 := threadCPU()
	u1, s1 := cpuTimes()
	r.InsertCPU, r.ProcessCPU = t1-t0, u1-u0+s1-s0
	closeStart := time.Now()
	closed = true
	if err := db.Close(); err != nil {
		return nil, err
	}
	r.CloseSeconds, r.CloseCPU = time.Since(closeStart).Seconds(), threadCPU()-t1
	r.WrittenMB = float64(wchar()-w0) / 1e6
	return r, nil
}
