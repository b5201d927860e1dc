package cursordb

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
	goldenfile "github.com/cairnmemory/cairn/internal/golden"
	"github.com/cairnmemory/cairn/transcript"
	"github.com/google/go-cmp/cmp"
)

const fixtures = "../testdata/transcripts/cursor"

// buildRoot lays out a Cursor root in a temporary folder: the global store
// made from the given SQL fixtures and, with workspace, one workspace store.
func buildRoot(t *testing.T, workspace bool, sqlFiles ...string) string {
	t.Helper()
	root := t.TempDir()
	execSQL(t, filepath.Join(root, ingest.CursorGlobalDB), sqlFiles...)
	if workspace {
		ws := filepath.Join(root, "User", "workspaceStorage", "4f1c2d3e5a6b")
		execSQL(t, filepath.Join(ws, ingest.CursorDBName), "workspace.sql")
		data, err := os.ReadFile(filepath.Join(fixtures, "workspace.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "workspace.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func execSQL(t *testing.T, path string, sqlFiles ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, f := range sqlFiles {
		q, err := os.ReadFile(filepath.Join(fixtures, f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(q)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
}

func readRoot(t *testing.T, root string) []cairn.Session {
	t.Helper()
	r := Reader()
	files, err := r.Find(root)
	if err != nil || len(files) != 1 {
		t.Fatalf("find: %v, %v", files, err)
	}
	ss, err := r.ParseFile(files[0], ingest.ParseOptions{Path: files[0]})
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// checkGolden compares a session (JSON) and its projection with the golden
// files named after the session.
func checkGolden(t *testing.T, s cairn.Session) {
	t.Helper()
	got, _ := json.MarshalIndent(s, "", "  ")
	got = append(got, '\n')
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data")
	}
	p, ok := transcript.Project(&s, transcript.Options{Location: berlin})
	if !ok {
		t.Fatalf("session %s projects nothing", s.ID)
	}
	proj := p.Path + "\n\n" + p.Text
	name := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(p.Path), ".md"), ":", "-")
	files := map[string]string{
		filepath.Join("..", "testdata", "golden", "cursor", s.ID+".json"):                        string(got),
		filepath.Join("..", "..", "transcript", "testdata", "projections", "cursor", name+".md"): proj,
	}
	for path, got := range files {
		goldenfile.Check(t, path, []byte(got))
	}
	if spans := transcript.Messages(p.Text); !cmp.Equal(spans, p.Spans) {
		t.Errorf("spans do not round-trip")
	}
}

func texts(s cairn.Session) []string {
	var out []string
	for _, m := range s.Messages {
		out = append(out, m.Role+": "+m.Text)
	}
	return out
}

// TestSeed reads the shared fixture: one composer, two messages in
// fullConversationHeadersOnly order, started at createdAt (spec §6).
func TestSeed(t *testing.T) {
	ss := readRoot(t, buildRoot(t, false, "seed.sql"))
	if len(ss) != 1 {
		t.Fatalf("%d sessions, want 1", len(ss))
	}
	s := ss[0]
	want := []string{"user: why is TestLogin flaky?", "assistant: The test config uses a 1s token TTL; raise it to 1m."}
	if diff := cmp.Diff(want, texts(s)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if s.Source != "cursor" || s.ID != "5d1c0f7e-aaaa-4bbb-8ccc-0123456789ab" || s.Title != "Fix flaky login test" ||
		!s.StartedAt.Equal(time.Date(2026, 5, 4, 9, 15, 0, 0, time.UTC)) || s.ConversationID != "" {
		t.Errorf("metadata: %+v", s)
	}
	for _, m := range s.Messages {
		if !m.Time.IsZero() {
			t.Errorf("message %s has time %v; bubbles record none", m.ID, m.Time)
		}
	}
	checkGolden(t, s)
}

// TestWorkspaceComposer reads the second fixture: the workspace names the
// folder; tool bubbles become tool calls under the assistant message they
// follow; bad bubbles and the broken composer are counted; and text that
// only an attached file or a tool saw is never projected as the person's.
func TestWorkspaceComposer(t *testing.T) {
	ss := readRoot(t, buildRoot(t, true, "seed.sql", "extra.sql"))
	if len(ss) != 2 {
		t.Fatalf("%d sessions, want 2", len(ss))
	}
	s := ss[1]
	want := []string{"user: make upload() retry on 503", "assistant: I'll read the uploader first.", "user: use at most 3 attempts"}
	if diff := cmp.Diff(want, texts(s)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if s.Cwd != "/home/dev/acme-api" || s.ConversationID != s.Cwd {
		t.Errorf("workspace %q %q", s.Cwd, s.ConversationID)
	}
	tools := s.Messages[1].Tools
	if len(tools) != 2 || tools[0].Name != "read_file" || tools[0].Input != `{"target_file":"upload/upload.go"}` || !tools[1].IsError {
		t.Errorf("tools %+v", tools)
	}
	if m := s.Messages[2]; m.TimeRaw != "2026-05-05T09:16:40.000Z" {
		t.Errorf("bubble createdAt %q not read", m.TimeRaw)
	}
	wantSkipped := map[string]int{"malformed bubble": 1, "missing bubble": 1, "bubble type 30": 1}
	if diff := cmp.Diff(wantSkipped, s.Stats.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if ss[0].Stats.Skipped["malformed composer"] != 1 {
		t.Errorf("broken composer not counted: %v", ss[0].Stats.Skipped)
	}
	for _, m := range s.Messages {
		if m.Role == cairn.RoleUser && (strings.Contains(m.Text, "only-in-the-attached-file") || strings.Contains(m.Text, "only in the attached chunk") ||
			strings.Contains(m.Text, "the tool saw this line only")) {
			t.Errorf("hidden source projected as the person's words: %q", m.Text)
		}
	}
	checkGolden(t, s)
}

// TestNotAStore: a SQLite file without cursorDiskKV is refused as invalid;
// the store is never written.
func TestNotAStore(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ingest.CursorGlobalDB)
	execSQL(t, path, "workspace.sql")
	before, _ := os.ReadFile(path)
	_, err := ParseFile(path, ingest.ParseOptions{})
	if !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("err %v, want ErrInvalid", err)
	}
	good := buildRoot(t, false, "seed.sql")
	gpath := filepath.Join(good, ingest.CursorGlobalDB)
	gbefore, _ := os.ReadFile(gpath)
	readRoot(t, good)
	after, _ := os.ReadFile(path)
	gafter, _ := os.ReadFile(gpath)
	if !bytes.Equal(before, after) || !bytes.Equal(gbefore, gafter) {
		t.Errorf("a store changed by reading")
	}
	if files, err := ingest.FindCursor(filepath.Join(root, "missing")); err != nil || len(files) != 0 {
		t.Errorf("missing root: %v %v", files, err)
	}
}
