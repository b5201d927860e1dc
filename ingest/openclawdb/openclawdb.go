// Package openclawdb reads OpenClaw's SQLite-era transcripts (OpenClaw ≥
// 2026.7.2, spec transcript-formats §3.3–3.6): one agent's
// agents/<agentId>/agent/openclaw-agent.sqlite, opened read-only through
// mattn/go-sqlite3 (cgo), its zstd-compressed events decoded in Go. Event
// decoding and projection are shared with the JSONL era in package ingest
// (ingest.OpenClawSession); this package only gets rows out of the store.
//
// Quick start:
//
//	sessions, err := openclawdb.ReadDB(ctx, "/home/me/.openclaw/agents/main/agent/openclaw-agent.sqlite", ingest.ParseOptions{})
//	var failed *openclawdb.FailedSessions
//	if errors.As(err, &failed) { ... } // mark failed.Sessions failed, keep their projections; use sessions
//	else if err != nil { ... }          // the store is unusable (missing, locked, unknown schema)
package openclawdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
	_ "github.com/mattn/go-sqlite3" // registers "sqlite3"
)

// DefaultBusyTimeoutMs is how long a read waits on OpenClaw's write lock.
const DefaultBusyTimeoutMs = 5000

// SessionFailure is one session that could not be read: its header names a
// version Cairn does not read, or its cold archive cannot be read. A bad
// event (JSON that does not parse, an unknown content block, a compressed
// event that does not decode to its recorded length) is skipped and counted
// instead, as in every other source.
type SessionFailure = ingest.SessionFailure

// FailedSessions is ReadDB's error when some sessions failed and the rest
// were read (ingest.FailedSessions, which the engine tells without linking
// this package's SQLite driver).
type FailedSessions = ingest.FailedSessions

// ReadDB reads every session window of one agent store with live events, in
// one read transaction. A store without the tables and columns Cairn reads
// is refused (an error wrapping cairn.ErrInvalid); sessions whose events are
// unusable are left out and reported by a *FailedSessions error alongside
// the sessions read. o.Path, when empty, is set to path.
func ReadDB(ctx context.Context, path string, o ingest.ParseOptions) ([]cairn.Session, error) {
	if o.Path == "" {
		o.Path = path
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open openclaw store: %w", err)
	}
	db, err := sql.Open("sqlite3", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("open openclaw store: %w", err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("open openclaw store %s: %w", path, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA query_only=ON"); err != nil {
		return nil, fmt.Errorf("open openclaw store %s: %w", path, err)
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("begin read of openclaw store %s: %w", path, err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	r := &reader{ctx: ctx, tx: tx, path: path}
	if err := r.checkSchema(); err != nil {
		return nil, err
	}
	return r.readAll(ocAgentID(r, path))
}

func dsn(path string) string {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", fmt.Sprint(DefaultBusyTimeoutMs))
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// ocAgentID names the agent from the primary schema_meta row, else from the
// path (agents/<agentId>/agent/openclaw-agent.sqlite).
func ocAgentID(r *reader, path string) string {
	if r.agentID != "" {
		return r.agentID
	}
	agentDir := filepath.Dir(filepath.Dir(path))
	if filepath.Base(filepath.Dir(agentDir)) == "agents" {
		return filepath.Base(agentDir)
	}
	return ""
}

// ParseFile reads one OpenClaw transcript file of either era: a store
// (ingest.OpenClawDBName) through ReadDB, else a JSONL transcript through
// ingest.ParseOpenClaw. It fits ingest.SourceReader.ParseFile.
func ParseFile(path string, o ingest.ParseOptions) ([]cairn.Session, error) {
	if o.Path == "" {
		o.Path = path
	}
	if filepath.Base(path) == ingest.OpenClawDBName {
		return ReadDB(context.Background(), path, o)
	}
	f, _, err := ingest.OpenTranscript(filepath.Dir(path), path)
	if err != nil {
		return nil, fmt.Errorf("read openclaw transcript: %w", err)
	}
	defer f.Close()
	bd, err := ingest.ReadTranscript(f, path)
	if err != nil {
		return nil, fmt.Errorf("read openclaw transcript: %w", err)
	}
	return ingest.ParseOpenClaw(bd.Data, o)
}

// Find lists both eras' files under an OpenClaw state directory: the JSONL
// transcripts (ingest.FindOpenClaw), then the agent stores.
func Find(root string) ([]string, error) {
	files, err := ingest.FindOpenClaw(root)
	if err != nil {
		return nil, err
	}
	dbs, err := ingest.OpenClawDBPaths(root)
	return sortedPaths(append(files, dbs...)), err
}

// Reader is the OpenClaw source reader for both eras, for the engine to use
// in place of the JSONL-only one package ingest registers.
func Reader() ingest.SourceReader {
	return ingest.SourceReader{ID: cairn.SourceOpenClaw, Find: Find, Parse: ingest.ParseOpenClaw, ParseFile: ParseFile}
}

var errSchema = errors.New("unsupported openclaw store schema")
