package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cairnmemory/cairn/redact/redacttest"
)

func githubToken(t *testing.T) string {
	t.Helper()
	for _, s := range redacttest.Samples() {
		if s.Kind == "github-token" {
			return s.Secret
		}
	}
	t.Fatal("no github-token sample")
	return ""
}

// tokenProject moves a session written by claudeSession into a project
// folder named, as Claude Code names it, after a cwd holding secret, with a
// FIFO named like a transcript beside it; it returns the folder.
func (c *claudeRoot) tokenProject(secret, id string) string {
	c.t.Helper()
	dir := filepath.Join(c.root, "projects", "-home-dev-"+secret+"-proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.t.Fatal(err)
	}
	p := c.claudeSession(id, "/home/dev/"+secret+"/proj", "which port does the staging proxy use?", "Port 8443, set in proxy.toml.")
	if err := os.Rename(p, filepath.Join(dir, filepath.Base(p))); err != nil {
		c.t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "00000000-0000-4000-8000-0000000000f9.jsonl"), 0o644); err != nil {
		c.t.Skipf("mkfifo: %v", err)
	}
	return dir
}

func (c *claudeRoot) noSecretIn(what string, v any, secret string) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	if strings.Contains(string(b), secret) {
		c.t.Errorf("%s holds the token: %s", what, b)
	}
}

// TestTranscriptPathSecretNeverStored: a token in a Claude Code project
// folder's name (the cwd it is named after) is neither stored nor reported:
// the session record, the transcript state, the failure of a FIFO beside it
// and the sync status name the transcript by its key (redacted path, "#",
// hash); nothing under the data directory holds the token; a second sync
// finds every state by the same key and reads nothing again.
func TestTranscriptPathSecretNeverStored(t *testing.T) {
	c := newClaudeRoot(t)
	secret := githubToken(t)
	c.tokenProject(secret, "00000000-0000-4000-8000-000000000007")
	st := c.sync()
	if st.Projected != 1 || st.Failed != 1 {
		t.Fatalf("projected %d, failed %d (%+v): want the session and the FIFO", st.Projected, st.Failed, st.Failures)
	}
	if p := st.Failures[0].Path; !strings.Contains(p, "-home-dev-[REDACTED:github-token]-proj/") || !strings.Contains(p, ".jsonl#") {
		t.Errorf("failure path %q: want the redacted path and a hash", p)
	}
	c.noSecretIn("sync stats", st, secret)
	c.noSecretIn("sync status", c.status(), secret)
	recs, err := c.eng.store.SessionsOf(context.Background(), "sessions", "")
	if err != nil || len(recs) != 1 {
		t.Fatalf("SessionsOf = %v, %v", recs, err)
	}
	c.noSecretIn("session record", recs[0], secret)
	if !strings.Contains(recs[0].Path, "claude-code/") {
		t.Errorf("projection path %q", recs[0].Path)
	}
	states, err := c.eng.store.TranscriptStates(context.Background(), "sessions")
	if err != nil || len(states) != 1 {
		t.Fatalf("TranscriptStates = %v, %v", states, err)
	}
	c.noSecretIn("transcript states", states, secret)
	if _, ok := states[recs[0].Transcript]; !ok {
		t.Errorf("session's transcript %q has no state", recs[0].Transcript)
	}

	again := c.sync()
	if again.FilesChanged != 0 || again.Projected != 0 || again.Unchanged != 0 || again.Failed != 1 {
		t.Errorf("second sync read %d files, projected %d, failed %d: want nothing read again, the FIFO failing", again.FilesChanged, again.Projected, again.Failed)
	}
	if again.Failures[0].Path != st.Failures[0].Path {
		t.Errorf("failure key moved: %q then %q", st.Failures[0].Path, again.Failures[0].Path)
	}
	c.noSecretIn("second sync status", c.status(), secret)
	if err := c.eng.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertNotUnder(t, c.dir, secret)
}

// TestTranscriptRawPathRekeyed: an index from before transcript keys holds
// the raw path, token included, in transcript_files and sessions; the next
// sync renames it to the key with no manual step, finds the transcript
// unchanged under it, and leaves no byte of the token in the data
// directory.
func TestTranscriptRawPathRekeyed(t *testing.T) {
	c := newClaudeRoot(t)
	secret := githubToken(t)
	dir := c.tokenProject(secret, "00000000-0000-4000-8000-000000000008")
	raw := filepath.Join(dir, "00000000-0000-4000-8000-000000000008.jsonl")
	c.sync()
	ctx := context.Background()
	// The old layout: state and record under the raw path.
	if err := c.eng.store.RenameTranscript(ctx, "sessions", TranscriptKey(raw), raw); err != nil {
		t.Fatal(err)
	}
	if states, _ := c.eng.store.TranscriptStates(ctx, "sessions"); states[raw].Path != raw {
		t.Fatalf("old layout not set up: %v", states)
	}
	c.reopen(nil)
	st := c.sync()
	if st.FilesChanged != 0 || st.Projected != 0 || st.Removed != 0 {
		t.Errorf("after the rename: read %d, projected %d, removed %d; want the state found under its key", st.FilesChanged, st.Projected, st.Removed)
	}
	states, err := c.eng.store.TranscriptStates(ctx, "sessions")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := states[TranscriptKey(raw)]; !ok || len(states) != 1 {
		t.Errorf("states %v: want the one under its key", states)
	}
	recs, _ := c.eng.store.SessionsOf(ctx, "sessions", TranscriptKey(raw))
	if len(recs) != 1 {
		t.Errorf("sessions of the key: %v", recs)
	}
	if err := c.eng.Close(ctx); err != nil {
		t.Fatal(err)
	}
	assertNotUnder(t, c.dir, secret)
}

// TestTranscriptKey: a path without a secret is its own key; one with a
// secret is redacted and told apart by a hash; a key is its own key.
func TestTranscriptKey(t *testing.T) {
	secret := githubToken(t)
	if k := TranscriptKey("/r/projects/-home-dev-p/a.jsonl"); k != "/r/projects/-home-dev-p/a.jsonl" {
		t.Errorf("plain path keyed %q", k)
	}
	a, b := TranscriptKey("/r/-"+secret+"-x/a.jsonl"), TranscriptKey("/r/-"+secret[:len(secret)-1]+"Z-x/a.jsonl")
	if strings.Contains(a, secret) || a == b || !strings.Contains(a, "[REDACTED:") {
		t.Errorf("keys %q and %q: want redacted and distinct", a, b)
	}
	if TranscriptKey(a) != a {
		t.Errorf("key %q is not its own key", a)
	}
}

// TestSessionIDSecretNeverStored: a session id holding a token (Claude
// Code takes it from the file name when records carry none) is stored
// redacted with a hash, and the projection path hashes it: nothing under
// the data directory holds the token.
func TestSessionIDSecretNeverStored(t *testing.T) {
	c := newClaudeRoot(t)
	secret := githubToken(t)
	c.claudeSession(secret, "/home/dev/p", "where do the nightly backups go?", "To the cold bucket.")
	if st := c.sync(); st.Projected != 1 {
		t.Fatalf("projected %d: %+v", st.Projected, st)
	}
	recs, err := c.eng.store.SessionsOf(context.Background(), "sessions", "")
	if err != nil || len(recs) != 1 {
		t.Fatalf("SessionsOf = %v, %v", recs, err)
	}
	c.noSecretIn("session record", recs[0], secret)
	if hits := c.search("nightly backups"); len(hits) == 0 || hits[0].Session == nil || !strings.HasPrefix(hits[0].Session.SessionID, "[REDACTED:github-token]#") {
		t.Errorf("hits %+v: want the session with its id redacted", hits)
	}
	if err := c.eng.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertNotUnder(t, c.dir, secret)
}
