package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
)

// UsageFile is the usage file's name in the agent's data directory. Its
// shape:
//
//	{
//	  "version": 1,
//	  "updated": "2026-03-01T12:00:00Z",
//	  "purposes": {
//	    "consolidate": {"calls": 12, "invalid": 1, "tokens_in": 180000, "tokens_out": 41000},
//	    "fast": {"calls": 40, "invalid": 0, "tokens_in": 52000, "tokens_out": 3100}
//	  }
//	}
//
// Totals only grow; a purpose appears once it has been used; "updated" is
// the time of the last save (UTC, RFC 3339).
const UsageFile = "llm-usage.json"

// usageVersion is the version of the usage file's shape.
const usageVersion = 1

// Totals is what model calls of one purpose cost.
type Totals struct {
	Calls     int64 `json:"calls"`   // answers received, invalid ones included
	Invalid   int64 `json:"invalid"` // answers that did not parse, were cut short or violated the schema
	TokensIn  int64 `json:"tokens_in"`
	TokensOut int64 `json:"tokens_out"`
}

func (t *Totals) add(o Totals) {
	t.Calls += o.Calls
	t.Invalid += o.Invalid
	t.TokensIn += o.TokensIn
	t.TokensOut += o.TokensOut
}

// usageFile is the file's shape (see UsageFile).
type usageFile struct {
	Version  int               `json:"version"`
	Updated  string            `json:"updated"`
	Purposes map[string]Totals `json:"purposes"`
}

// Usage counts tokens per purpose and keeps the running totals in a JSON
// file (see UsageFile for its shape). Saves merge into what the file holds, under a lock file, so
// processes that share the file (a consolidation run, an MCP server) add
// up instead of overwriting each other. Safe for concurrent use.
type Usage struct {
	path    string
	mu      sync.Mutex
	saved   map[string]Totals // the file's totals when last read or written
	pending map[string]Totals // counted here and not yet saved
}

// OpenUsage reads the totals at path (a missing file is all zeros). An
// empty path counts in memory only.
func OpenUsage(path string) (*Usage, error) {
	u := &Usage{path: path, saved: map[string]Totals{}, pending: map[string]Totals{}}
	if path == "" {
		return u, nil
	}
	f, err := readUsage(path)
	if err != nil {
		return nil, err
	}
	u.saved = f.Purposes
	return u, nil
}

func readUsage(path string) (*usageFile, error) {
	f := &usageFile{Version: usageVersion, Purposes: map[string]Totals{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read usage file: %w", err)
	}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("read usage file %s: %w", path, err)
	}
	if f.Version != usageVersion {
		return nil, fmt.Errorf("read usage file %s: version %d; this build reads version %d", path, f.Version, usageVersion)
	}
	if f.Purposes == nil {
		f.Purposes = map[string]Totals{}
	}
	return f, nil
}

// Add counts t under purpose (an empty purpose counts as "unspecified").
// It is saved by the next Flush.
func (u *Usage) Add(purpose string, t Totals) {
	if purpose == "" {
		purpose = "unspecified"
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	p := u.pending[purpose]
	p.add(t)
	u.pending[purpose] = p
}

// Totals returns the totals per purpose: the file's as last read or
// written, plus what this Usage counted since.
func (u *Usage) Totals() map[string]Totals {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := map[string]Totals{}
	for _, m := range []map[string]Totals{u.saved, u.pending} {
		for k, t := range m {
			o := out[k]
			o.add(t)
			out[k] = o
		}
	}
	return out
}

// Flush adds what was counted since the last save to the file, written
// atomically (temp file, fsync, rename). On failure the counts stay
// pending for the next Flush.
func (u *Usage) Flush() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.path == "" || len(u.pending) == 0 {
		return nil
	}
	unlock, err := lockFile(u.path + ".lock")
	if err != nil {
		return fmt.Errorf("save usage: %w", err)
	}
	defer unlock()
	f, err := readUsage(u.path)
	if err != nil {
		return fmt.Errorf("save usage: %w", err)
	}
	for k, t := range u.pending {
		o := f.Purposes[k]
		o.add(t)
		f.Purposes[k] = o
	}
	f.Updated = time.Now().UTC().Format(time.RFC3339)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("save usage: %w", err)
	}
	if err := writeAtomic(u.path, append(data, '\n')); err != nil {
		return fmt.Errorf("save usage: %w", err)
	}
	u.saved, u.pending = f.Purposes, map[string]Totals{}
	return nil
}

// Counting returns an LLM that counts each call's tokens in u under the
// request's Purpose (else the purpose of a client from New, else
// "unspecified") and saves after every answer, so a killed process
// loses nothing it was billed for. Answers that failed as invalid still
// count (the tokens were spent). A failed save keeps the counts pending;
// call u.Flush when done to learn of it.
func Counting(inner cairn.LLM, u *Usage) cairn.LLM { return counting{inner, u} }

type counting struct {
	inner cairn.LLM
	u     *Usage
}

func (c counting) Complete(ctx context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	res, err := c.inner.Complete(ctx, req)
	purpose := req.Purpose
	if p, ok := c.inner.(interface{ Purpose() string }); ok && purpose == "" {
		purpose = p.Purpose()
	}
	var spent interface{ Tokens() (in, out int) }
	switch {
	case err == nil:
		c.u.Add(purpose, Totals{Calls: 1, TokensIn: int64(res.TokensIn), TokensOut: int64(res.TokensOut)})
	case errors.As(err, &spent):
		in, out := spent.Tokens()
		c.u.Add(purpose, Totals{Calls: 1, Invalid: 1, TokensIn: int64(in), TokensOut: int64(out)})
	case errors.As(err, new(*cairn.InvalidOutputError)): // an answer came, unreadable
		c.u.Add(purpose, Totals{Calls: 1, Invalid: 1})
	default:
		return res, err // no answer, nothing billed
	}
	c.u.Flush() // a failure stays pending; Flush reports it later
	return res, err
}

// lockFile takes an exclusive lock by creating path, waiting up to 5 s for
// another holder; a lock older than 30 s is left from a crash and taken
// over. It returns the release.
func lockFile(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", filepath.Base(path), err)
	}
	for start := time.Now(); ; {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", filepath.Base(path), err)
		}
		if st, serr := os.Stat(path); serr == nil && time.Since(st.ModTime()) > 30*time.Second {
			os.Remove(path)
			continue
		}
		if time.Since(start) > 5*time.Second {
			return nil, fmt.Errorf("lock %s: held by another process for over 5s", filepath.Base(path))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// writeAtomic writes data to path through a temporary file in the same
// directory (mode 0600, fsync, rename).
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := errors.Join(tmp.Chmod(0o600), tmp.Sync(), tmp.Close()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
