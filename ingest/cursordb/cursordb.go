// Package cursordb reads Cursor's IDE chats (spec transcript-formats.md
// §6) out of its SQLite key/value stores, opened read-only through
// mattn/go-sqlite3 (cgo). The JSON values become sessions in package ingest
// (ingest.CursorSession); this package only gets them out of the stores,
// with targeted key lookups (the stores grow to gigabytes) and a byte
// budget.
//
// Quick start:
//
//	r := cursordb.Reader() // an ingest.SourceReader for the engine
//	files, _ := r.Find("/home/me/.config/Cursor")
//	sessions, err := r.ParseFile(files[0], ingest.ParseOptions{})
package cursordb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
	_ "github.com/mattn/go-sqlite3" // registers "sqlite3"
)

// Bounds of one read.
const (
	DefaultBusyTimeoutMs = 5000
	MaxValueBytes        = 8 << 20   // a composer or bubble value larger is skipped and counted
	MaxStoreBytes        = 256 << 20 // values read from one store; composers past it are not read
	MaxWorkspaces        = 4096      // workspace stores read for composer folders
)

// Reader is the Cursor source reader.
func Reader() ingest.SourceReader {
	return ingest.SourceReader{ID: cairn.SourceCursor, Find: ingest.FindCursor, ParseFile: ParseFile}
}

// ParseFile reads every composer of a global state.vscdb. It fits
// ingest.SourceReader.ParseFile. A store without the cursorDiskKV table is
// an error; bad values are counted in the sessions' stats and skipped.
func ParseFile(path string, o ingest.ParseOptions) ([]cairn.Session, error) {
	ctx := context.Background()
	db, err := open(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	r := &reader{ctx: ctx, db: db, budget: MaxStoreBytes}
	if err := r.check(); err != nil {
		return nil, err
	}
	folders := workspaceFolders(ctx, filepath.Dir(filepath.Dir(path)))
	return r.sessions(folders)
}

func open(path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open cursor store: %w", err)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", fmt.Sprint(DefaultBusyTimeoutMs))
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open cursor store: %w", err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA query_only=ON"); err != nil {
		db.Close()
		return nil, fmt.Errorf("open cursor store %s: %w", path, err)
	}
	return db, nil
}

type reader struct {
	ctx    context.Context
	db     *sql.DB
	budget int64
	stats  cairn.ParseStats // store-level: values skipped before a session exists
}

var errSchema = errors.New("not a cursor chat store: no cursorDiskKV table")

func (r *reader) check() error {
	var n int
	err := r.db.QueryRowContext(r.ctx, `SELECT count(*) FROM sqlite_master WHERE type='table' AND name='cursorDiskKV'`).Scan(&n)
	if err != nil {
		return fmt.Errorf("read cursor store: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("read cursor store: %w", cairn.Invalidf("%v", errSchema))
	}
	return nil
}

// sessions reads the composers in key order (a range over the key's
// unique index, not a scan of the table), each with its bubbles.
func (r *reader) sessions(folders map[string]string) ([]cairn.Session, error) {
	rows, err := r.db.QueryContext(r.ctx, `SELECT key, length(value), CASE WHEN length(value) <= ? THEN value END
		FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;' ORDER BY key`, MaxValueBytes)
	if err != nil {
		return nil, fmt.Errorf("read cursor composers: %w", err)
	}
	type composer struct {
		key  string
		data []byte
	}
	var composers []composer
	for rows.Next() {
		var c composer
		var size int64
		if err := rows.Scan(&c.key, &size, &c.data); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read cursor composers: %w", err)
		}
		if c.data == nil {
			r.stats.Skip("value over limit")
			continue
		}
		if r.budget -= size; r.budget < 0 {
			r.stats.Truncated = map[string]int{cairn.CutOverBudget: 1}
			break
		}
		composers = append(composers, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read cursor composers: %w", err)
	}
	var out []cairn.Session
	for _, c := range composers {
		id := ingest.CursorComposerID(c.data)
		if id == "" {
			r.stats.Skip("malformed composer")
			continue
		}
		s, ok := ingest.CursorSession(c.data, func(b string) []byte { return r.bubble(id, b) }, folders[id])
		if !ok {
			r.stats.Skip("malformed composer")
			continue
		}
		out = append(out, s)
	}
	if len(out) > 0 {
		mergeInto(&out[0].Stats, r.stats)
	} else if len(r.stats.Skipped)+len(r.stats.Truncated) > 0 {
		return nil, fmt.Errorf("read cursor store: no composer readable (%v)", r.stats.Skipped)
	}
	return out, nil
}

// bubble looks one bubble up by its key, nil when it is missing, over
// MaxValueBytes or past the store's budget.
func (r *reader) bubble(composer, bubble string) []byte {
	if r.budget < 0 {
		return nil
	}
	var size int64
	var data []byte
	err := r.db.QueryRowContext(r.ctx, `SELECT length(value), CASE WHEN length(value) <= ? THEN value END FROM cursorDiskKV WHERE key = ?`,
		MaxValueBytes, "bubbleId:"+composer+":"+bubble).Scan(&size, &data)
	if err != nil || data == nil {
		return nil
	}
	if r.budget -= size; r.budget < 0 {
		return nil
	}
	return data
}

// mergeInto adds store-level counts to a session's stats, where the sync
// reports them.
func mergeInto(dst *cairn.ParseStats, s cairn.ParseStats) {
	for k, v := range s.Skipped {
		for range v {
			dst.Skip(k)
		}
	}
	for k, v := range s.Truncated {
		if dst.Truncated == nil {
			dst.Truncated = map[string]int{}
		}
		dst.Truncated[k] += v
	}
}

// workspaceFolders maps composer ids to their workspace folder, read from
// user/workspaceStorage/*/ (workspace.json and the ItemTable key
// composer.composerData). Unreadable workspaces are passed over: the
// folder is then unknown, never guessed.
func workspaceFolders(ctx context.Context, user string) map[string]string {
	out := map[string]string{}
	dirs, err := filepath.Glob(filepath.Join(user, "workspaceStorage", "*"))
	if err != nil {
		return out
	}
	sort.Strings(dirs)
	if len(dirs) > MaxWorkspaces {
		dirs = dirs[:MaxWorkspaces]
	}
	for _, dir := range dirs {
		meta, err := readSmall(filepath.Join(dir, "workspace.json"))
		if err != nil {
			continue
		}
		folder := ingest.CursorWorkspaceFolder(meta)
		if folder == "" {
			continue
		}
		for _, id := range workspaceComposers(ctx, filepath.Join(dir, ingest.CursorDBName)) {
			if _, taken := out[id]; !taken {
				out[id] = folder
			}
		}
	}
	return out
}

func workspaceComposers(ctx context.Context, path string) []string {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	db, err := open(path)
	if err != nil {
		return nil
	}
	defer db.Close()
	var data []byte
	err = db.QueryRowContext(ctx, `SELECT CASE WHEN length(value) <= ? THEN value END FROM ItemTable WHERE key = 'composer.composerData'`, MaxValueBytes).Scan(&data)
	if err != nil {
		return nil
	}
	return ingest.CursorWorkspaceComposers(data)
}

// readSmall reads a workspace.json: a regular file of at most 64 KiB.
func readSmall(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 64<<10 {
		return nil, fmt.Errorf("read %s: not a small regular file", path)
	}
	return os.ReadFile(path)
}
