package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
	"github.com/cairnmemory/cairn/redact/redacttest"
	"github.com/cairnmemory/cairn/transcript"
)

// claudeRoot is a Claude Code home with one project folder; sessions are
// written into it with claudeSession.
type claudeRoot struct {
	t    *testing.T
	root string
	eng  *Engine
	dir  string
}

func newClaudeRoot(t *testing.T) *claudeRoot {
	t.Helper()
	c := &claudeRoot{t: t, root: t.TempDir(), dir: t.TempDir()}
	if err := os.MkdirAll(c.project(), 0o755); err != nil {
		t.Fatal(err)
	}
	eng, err := Open(context.Background(), Options{Dir: c.dir, Corpora: []cairn.Corpus{{
		Name: "sessions", Kind: cairn.KindSessions, Sources: []cairn.SourceSpec{{ID: cairn.SourceClaudeCode, Roots: []string{c.root}}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	c.eng = eng
	return c
}

func (c *claudeRoot) project() string { return filepath.Join(c.root, "projects", "-home-dev-p") }

// claudeSession writes a session of alternating user and assistant
// messages with the given texts, its records in working directory cwd.
func (c *claudeRoot) claudeSession(id, cwd string, texts ...string) string {
	c.t.Helper()
	var b strings.Builder
	parent := any(nil)
	t0 := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	for i, text := range texts {
		uuid := fmt.Sprintf("%s-%04d", id, i)
		role := "user"
		var msg any = map[string]any{"role": "user", "content": text}
		if i%2 == 1 {
			role = "assistant"
			msg = map[string]any{"id": "msg_" + uuid, "type": "message", "role": "assistant", "model": "m",
				"content": []any{map[string]any{"type": "text", "text": text}}}
		}
		line, _ := json.Marshal(map[string]any{"parentUuid": parent, "isSidechain": false, "cwd": cwd, "sessionId": id,
			"type": role, "message": msg, "uuid": uuid, "timestamp": t0.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)})
		b.Write(line)
		b.WriteByte('\n')
		parent = uuid
	}
	p := filepath.Join(c.project(), id+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// syncHang ends a sync of these fixtures that hangs (a transcript read
// that blocks: a FIFO, a device), so a regression fails instead of
// hanging. It bounds a hang and measures no speed: the longest sync here
// (TestLongSessionInParts, 12 MB of transcript) takes seconds, and the
// 30 s this was failed it on a loaded machine. It stays under go test's
// default 10-minute timeout, so that its message, with the work the sync
// had done, is the one a hang prints.
const syncHang = 5 * time.Minute

// sync runs one sync; one still running after syncHang ends the test
// binary, naming the projections the sync had written by then.
func (c *claudeRoot) sync() cairn.SourceSyncStats {
	c.t.Helper()
	res := syncWithin(c.t, c.eng, syncHang, func() {
		// The cleanup's Close would wait for the blocked sync (even after a
		// panic): end the test binary now, so a regression fails instead of
		// hanging.
		files, size := 0, int64(0)
		filepath.WalkDir(c.eng.sessionsRoot(), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if fi, err := d.Info(); err == nil {
				files, size = files+1, size+fi.Size()
			}
			return nil
		})
		fmt.Fprintf(os.Stderr, "FAIL: %s: Sync did not return in %v (a transcript read blocked?); it had written %d projection files, %d bytes\n",
			c.t.Name(), syncHang, files, size)
		os.Exit(1)
	})
	return res.Corpora[0].Sessions.Sources[0]
}

func (c *claudeRoot) search(q string) []cairn.Hit {
	c.t.Helper()
	hits, err := c.eng.Search(context.Background(), q, &cairn.SearchOptions{Limit: 10})
	if err != nil {
		c.t.Fatalf("Search(%q): %v", q, err)
	}
	return hits
}

// TestTranscriptsOnlyRegularFiles: a FIFO and a symbolic link to /dev/zero
// named like transcripts are reported as failures with a reason, without
// blocking or reading the device, and the good transcript beside them is
// indexed (issue 13 item 4). A link to a transcript inside the root is read.
func TestTranscriptsOnlyRegularFiles(t *testing.T) {
	c := newClaudeRoot(t)
	good := c.claudeSession("00000000-0000-4000-8000-000000000001", "/home/dev/p", "where is the pelican config?", "In deploy/pelican.toml.")
	fifo := filepath.Join(c.project(), "00000000-0000-4000-8000-0000000000f1.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(c.project(), "00000000-0000-4000-8000-0000000000f2.jsonl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(c.project(), "00000000-0000-4000-8000-0000000000f3.jsonl")
	if err := os.Symlink(filepath.Base(good), inside); err != nil {
		t.Fatal(err)
	}
	st := c.sync()
	reasons := map[string]string{}
	for _, f := range st.Failures {
		reasons[f.Path] = f.Reason
	}
	if r := reasons[fifo]; !strings.Contains(r, "not a regular file") || !strings.Contains(r, "FIFO") {
		t.Errorf("FIFO: reason %q, want not a regular file (a FIFO)", r)
	}
	if r := reasons[zero]; !strings.Contains(r, "outside the source root") {
		t.Errorf("link to /dev/zero: reason %q, want it refused as leaving the source root", r)
	}
	if st.Failed != 2 || len(st.Failures) != 2 {
		t.Errorf("failed %d: %+v, want the FIFO and the device link only", st.Failed, st.Failures)
	}
	if st.Projected != 2 { // the session and the link to it inside the root
		t.Errorf("projected %d, want 2", st.Projected)
	}
	if hits := c.search("pelican config"); len(hits) == 0 {
		t.Error("the good transcript beside them was not indexed")
	}
}

// TestSessionCwdRedacted: a working directory holding a token is stored
// redacted, in the session record and everywhere under the data directory
// (issue 13 item 2).
func TestSessionCwdRedacted(t *testing.T) {
	c := newClaudeRoot(t)
	var secret string
	for _, s := range redacttest.Samples() {
		if s.Kind == "github-token" {
			secret = s.Secret
		}
	}
	cwd := "/home/dev/" + secret + "/api"
	c.claudeSession("00000000-0000-4000-8000-000000000002", cwd, "why does the login test flake?", "The token expires mid-test.")
	st := c.sync()
	if st.Projected != 1 || st.Redactions["github-token"] == 0 {
		t.Fatalf("projected %d, redactions %v; want the session with its cwd redacted", st.Projected, st.Redactions)
	}
	recs, err := c.eng.store.SessionsOf(context.Background(), "sessions", "")
	if err != nil || len(recs) != 1 {
		t.Fatalf("SessionsOf = %v, %v", recs, err)
	}
	if info := recs[0].Info; strings.Contains(info.Cwd, secret) || strings.Contains(info.ConversationID, secret) || !strings.Contains(info.Cwd, "[REDACTED:github-token]") {
		t.Errorf("stored cwd %q, conversation %q: want the token redacted", info.Cwd, info.ConversationID)
	}
	hits := c.search("login test flake")
	if len(hits) == 0 || hits[0].Session == nil || strings.Contains(hits[0].Session.Cwd, secret) {
		t.Errorf("hit session info %+v: want the cwd redacted", hits)
	}
	c.eng.Close(context.Background())
	assertNotUnder(t, c.dir, secret)
}

func assertNotUnder(t *testing.T, dir, secret string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && bytes.Contains(data, []byte(secret)) {
			t.Errorf("secret found in %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSessionBadCharactersStaySearchable: a NUL and other control bytes in
// one message used to make the indexer take the projection for binary and
// skip the whole session. They are dropped from that message alone
// (issue 13 item 6).
func TestSessionBadCharactersStaySearchable(t *testing.T) {
	c := newClaudeRoot(t)
	c.claudeSession("00000000-0000-4000-8000-000000000003", "/home/dev/p",
		"what broke the heron deploy?", "A stray byte:\x00 here\x1b[0m and an escape.", "thanks, fixed the heron pipeline")
	st := c.sync()
	if st.Truncated[transcript.CutChars] != 1 {
		t.Errorf("truncated %v, want one message with characters replaced", st.Truncated)
	}
	hits := c.search("heron pipeline")
	if len(hits) == 0 {
		t.Fatal("the session with a NUL byte in one message is not searchable")
	}
	_, rel, _ := splitPath(hits[0].Path)
	text, err := c.eng.store.DocumentText(context.Background(), "sessions", rel)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(text, "\x00\x1b") || !strings.Contains(text, "A stray byte: here and an escape.") {
		t.Errorf("projection keeps bad characters or lost the message:\n%s", text)
	}
}

// TestLongSessionInParts: a session whose projection is over the part size
// (and over the indexer's 10 MB limit) is written in parts that are all
// indexed, each with message spans whose lines frame its messages; nothing
// oversized is left on disk, and the sync status says so (issue 13 item 6).
func TestLongSessionInParts(t *testing.T) {
	c := newClaudeRoot(t)
	filler := strings.Repeat("cedar boards and a matching gate ", 900) // about 30 KB a message
	var texts []string
	for i := range 400 { // about 12 MB
		texts = append(texts, fmt.Sprintf("message %d marker%05d %s", i, i, filler))
	}
	c.claudeSession("00000000-0000-4000-8000-000000000004", "/home/dev/p", texts...)
	st := c.sync()
	if st.Projected != 1 || st.Truncated[CutParts] != 1 {
		t.Fatalf("projected %d, truncated %v: want one session in parts", st.Projected, st.Truncated)
	}
	recs, err := c.eng.store.SessionsOf(context.Background(), "sessions", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 3 {
		t.Fatalf("%d session records, want one per part (3 or more)", len(recs))
	}
	messages := 0
	for _, r := range recs {
		spans, err := c.eng.SessionSpans(context.Background(), "sessions", r.Path)
		if err != nil {
			t.Fatalf("SessionSpans(%s): %v", r.Path, err)
		}
		text, _ := c.eng.store.DocumentText(context.Background(), "sessions", r.Path)
		if len(text) > transcript.DefaultMaxPartBytes {
			t.Errorf("%s: %d bytes, over the part size", r.Path, len(text))
		}
		lines := strings.Split(text, "\n")
		for _, sp := range spans {
			if !strings.HasPrefix(lines[sp.StartLine-1], "## ") || !strings.Contains(lines[sp.StartLine+1], "marker") {
				t.Errorf("%s: span at line %d does not start at its message", r.Path, sp.StartLine)
			}
			if sp.EndLine > len(lines) || strings.TrimSpace(lines[sp.EndLine-1]) == "" {
				t.Errorf("%s: span ends at line %d, not on its last line", r.Path, sp.EndLine)
			}
		}
		messages += len(spans)
	}
	if messages != len(texts) {
		t.Errorf("%d messages in the parts, want %d", messages, len(texts))
	}
	for _, q := range []string{"marker00000", "marker00200", "marker00399"} {
		if hits := c.search(q); len(hits) == 0 {
			t.Errorf("%s: not found; every part must be indexed", q)
		}
	}
	filepath.WalkDir(c.eng.sessionsRoot(), func(p string, d fs.DirEntry, err error) error {
		if fi, err := os.Stat(p); err == nil && !d.IsDir() && fi.Size() > transcript.DefaultMaxPartBytes {
			t.Errorf("%s: %d bytes left on disk", p, fi.Size())
		}
		return nil
	})
}

// TestTruncatedInSyncStatus: what reading cut is counted per source in the
// sync result and in SyncStatus, and still reported by the next sync, which
// does not read the unchanged file again (issue 13 item 5).
func TestTruncatedInSyncStatus(t *testing.T) {
	c := newClaudeRoot(t)
	c.claudeSession("00000000-0000-4000-8000-000000000005", "/home/dev/p",
		"paste: "+strings.Repeat("log line ", 10000), "that log shows the retry storm")
	for round := range 2 {
		st := c.sync()
		if st.Truncated[ingest.CutString] != 1 {
			t.Errorf("sync %d: truncated %v, want one string cut", round+1, st.Truncated)
		}
		status, err := c.eng.SyncStatus()
		if err != nil || len(status.Sources) != 1 || status.Sources[0].Truncated[ingest.CutString] != 1 {
			t.Errorf("sync %d: status %+v, %v; want the cut in its sources", round+1, status, err)
		}
	}
	if hits := c.search("retry storm"); len(hits) == 0 {
		t.Error("the session with a cut message is not indexed")
	}
}
