package engine

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/redact/redacttest"
	_ "github.com/mattn/go-sqlite3"
)

const fixtures = "../ingest/testdata/transcripts"

// copyTree copies a fixture folder into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// openclawDB builds the SQLite-era store from the trimmed schema and seed.
func openclawDB(t *testing.T, root string) {
	t.Helper()
	dir := filepath.Join(root, "agents", "main", "agent")
	os.MkdirAll(dir, 0o755)
	db, err := sql.Open("sqlite3", filepath.Join(dir, "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, f := range []string{"schema.sql", "seed.sql"} {
		ddl, err := os.ReadFile(filepath.Join(fixtures, "openclaw", "sqlite", f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(ddl)); err != nil {
			t.Fatalf("apply %s: %v", f, err)
		}
	}
}

type sessionsFixture struct {
	t     *testing.T
	roots map[string]string
	dir   string
	eng   *Engine
}

func newSessionsFixture(t *testing.T) *sessionsFixture {
	f := &sessionsFixture{t: t, roots: map[string]string{}, dir: t.TempDir()}
	var specs []cairn.SourceSpec
	for _, src := range cairn.Sources {
		root := t.TempDir()
		copyTree(t, filepath.Join(fixtures, src), root)
		f.roots[src] = root
		specs = append(specs, cairn.SourceSpec{ID: src, Roots: []string{root}})
	}
	openclawDB(t, f.roots[cairn.SourceOpenClaw])
	cursorDB(t, f.roots[cairn.SourceCursor])
	eng, err := Open(context.Background(), Options{Dir: f.dir, Corpora: []cairn.Corpus{{
		Name: "sessions", Kind: cairn.KindSessions, Sources: specs,
		ChatTypes: []string{"direct", "group", "channel"}, MaxExpandedTokens: 500,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	f.eng = eng
	return f
}

func (f *sessionsFixture) sync() map[string]cairn.SourceSyncStats {
	f.t.Helper()
	res, err := f.eng.Sync(context.Background(), nil)
	if err != nil {
		f.t.Fatalf("Sync: %v", err)
	}
	out := map[string]cairn.SourceSyncStats{}
	for _, s := range res.Corpora[0].Sessions.Sources {
		out[s.Source] = s
	}
	return out
}

func (f *sessionsFixture) search(q string, filter *cairn.SessionFilter) []cairn.Hit {
	f.t.Helper()
	hits, err := f.eng.Search(context.Background(), q, &cairn.SearchOptions{Limit: 10, Sessions: filter})
	if err != nil {
		f.t.Fatalf("Search(%q): %v", q, err)
	}
	return hits
}

func TestSessionsSyncEverySource(t *testing.T) {
	f := newSessionsFixture(t)
	stats := f.sync()
	for _, src := range cairn.Sources {
		s := stats[src]
		if s.Projected == 0 || s.Failed != 0 {
			t.Errorf("%s: %+v; want projections and no failures", src, s)
		}
	}
	// Every source's sessions are searchable, with session metadata and
	// a message-array snippet; a message timestamp where the source wrote
	// one per message (aider and these OpenAI-chat messages have none).
	for _, tt := range []struct {
		source, query string
		timed         bool
	}{
		{cairn.SourceClaudeCode, "refresh-token test", true},
		{cairn.SourceCodex, "TestRefreshToken", true},
		{cairn.SourceGemini, "migrations", true},
		{cairn.SourceAider, "dry-run flag", false},
		{cairn.SourceOpenAIChat, "metric units", false},
		{cairn.SourceOpenClaw, "garden fence", true},
		{cairn.SourceCursor, "TestLogin flaky", false},
		{cairn.SourceLoggie, "post holes concrete", true},
	} {
		hits := f.search(tt.query, &cairn.SessionFilter{Source: tt.source})
		if len(hits) == 0 {
			t.Errorf("%s: no hit for %q", tt.source, tt.query)
			continue
		}
		h := hits[0]
		if h.Session == nil || h.Session.Source != tt.source || len(h.Messages) == 0 || (h.MessageTimestamp != "") != tt.timed {
			t.Errorf("%s: hit %+v lacks session data", tt.source, h)
			continue
		}
		if !strings.HasPrefix(h.Path, "cairn://sessions/") {
			t.Errorf("%s: path %s", tt.source, h.Path)
		}
		text, _ := f.eng.Get(context.Background(), h.Path, &cairn.GetOptions{From: h.StartLine, Lines: h.EndLine - h.StartLine + 1})
		if !strings.Contains(strings.ToLower(text.Text), strings.ToLower(strings.Fields(tt.query)[0])) {
			t.Errorf("%s: lines %d-%d of %s do not hold the match:\n%s", tt.source, h.StartLine, h.EndLine, h.Path, text.Text)
		}
	}
	// Nothing changed: nothing re-read.
	for src, s := range f.sync() {
		if s.FilesChanged != 0 || s.Projected != 0 {
			t.Errorf("%s resync: %+v; want nothing changed", src, s)
		}
	}
}

func TestSessionFilters(t *testing.T) {
	f := newSessionsFixture(t)
	f.sync()
	day := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	tests := []struct {
		name   string
		filter cairn.SessionFilter
		source string // every hit's source; "" means no hits
	}{
		{"source", cairn.SessionFilter{Source: cairn.SourceCodex}, cairn.SourceCodex},
		{"provider any case", cairn.SessionFilter{Provider: "TELEGRAM"}, cairn.SourceOpenClaw},
		{"chat type", cairn.SessionFilter{ChatType: "direct"}, cairn.SourceOpenClaw},
		{"after everything", cairn.SessionFilter{StartedFrom: day("2030-01-01T00:00:00Z")}, ""},
		{"before everything", cairn.SessionFilter{StartedTo: day("2000-01-01T00:00:00Z")}, ""},
		{"cwd", cairn.SessionFilter{Cwd: "/home/dev/acme-api", Source: cairn.SourceClaudeCode}, cairn.SourceClaudeCode},
	}
	for _, tt := range tests {
		hits := f.search("test OR fence OR units OR migrations", &tt.filter)
		if tt.source == "" {
			if len(hits) != 0 {
				t.Errorf("%s: %d hits, want none", tt.name, len(hits))
			}
			continue
		}
		if len(hits) == 0 {
			t.Errorf("%s: no hits", tt.name)
		}
		for _, h := range hits {
			if h.Session == nil || h.Session.Source != tt.source {
				t.Errorf("%s: hit from %+v", tt.name, h.Session)
			}
		}
	}
	_, err := f.eng.Search(context.Background(), "test", &cairn.SearchOptions{Sessions: &cairn.SessionFilter{
		StartedFrom: day("2026-05-05T00:00:00Z"), StartedTo: day("2026-05-04T00:00:00Z")}})
	if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "startedFrom") {
		t.Errorf("from after to: %v", err)
	}
}

func TestSessionAppendResync(t *testing.T) {
	f := newSessionsFixture(t)
	f.sync()
	file := filepath.Join(f.roots[cairn.SourceClaudeCode], "projects", "-home-dev-acme-api", "7f3c2a1e-4b5d-4c6e-8f90-1a2b3c4d5e6f.jsonl")
	parent := "c9d0e1f2-0000-4000-8000-00000000000d"
	var b bytes.Buffer
	for i := range 10 {
		id := fmt.Sprintf("c9d0e1f2-0000-4000-8000-0000000001%02d", i)
		fmt.Fprintf(&b, `{"parentUuid":%q,"isSidechain":false,"cwd":"/home/dev/acme-api","sessionId":"7f3c2a1e-4b5d-4c6e-8f90-1a2b3c4d5e6f","type":"user","message":{"role":"user","content":"appended note %d about zebrafish"},"uuid":%q,"timestamp":"2026-05-04T09:3%d:00.000Z"}`+"\n", parent, i, id, i)
		parent = id
	}
	fh, _ := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	fh.Write(b.Bytes())
	fh.Close()
	stats := f.sync()
	if s := stats[cairn.SourceClaudeCode]; s.FilesChanged != 1 || s.Projected != 1 {
		t.Errorf("claude-code after append: %+v; want one file re-read and one projection written", s)
	}
	for src, s := range stats {
		if src != cairn.SourceClaudeCode && s.FilesChanged != 0 {
			t.Errorf("%s re-read %d files", src, s.FilesChanged)
		}
	}
	if hits := f.search("zebrafish", nil); len(hits) == 0 {
		t.Error("appended messages not searchable")
	}
}

// plantSecrets writes one new transcript per source, in that source's
// format, whose messages hold every sample secret.
func plantSecrets(t *testing.T, roots map[string]string, lines []string) {
	t.Helper()
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	write := func(src, rel, text string) {
		p := filepath.Join(roots[src], filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var cc, cx, gm, ai, oc, oa strings.Builder
	cx.WriteString(`{"timestamp":"2026-05-06T10:00:00.000Z","type":"session_meta","payload":{"id":"019e9b2c-0000-7000-8000-00000000beef","timestamp":"2026-05-06T10:00:00.000Z","cwd":"/home/dev/s"}}` + "\n")
	gm.WriteString(`{"sessionId":"5e7a9c1b-0000-4000-8000-00000000beef","projectHash":"x","startTime":"2026-05-06T10:00:00.000Z","lastUpdated":"2026-05-06T10:00:00.000Z","kind":"main"}` + "\n")
	ai.WriteString("\n# aider chat started at 2026-05-06 10:00:00\n\n")
	oc.WriteString(`{"type":"session","version":4,"id":"7a1f0c2e-0000-4000-8000-00000000beef","timestamp":"2026-05-06T10:00:00.000Z","cwd":"/home/dana"}` + "\n")
	var oaMsgs []string
	parent := "null"
	for i, l := range lines {
		id := fmt.Sprintf("d0d0d0d0-0000-4000-8000-%012d", i)
		fmt.Fprintf(&cc, `{"parentUuid":%s,"isSidechain":false,"cwd":"/home/dev/s","sessionId":"5ec2e700-0000-4000-8000-00000000beef","type":"user","message":{"role":"user","content":%s},"uuid":%q,"timestamp":"2026-05-06T10:00:%02d.000Z"}`+"\n", parent, q(l), id, i)
		fmt.Fprintf(&cx, `{"timestamp":"2026-05-06T10:00:%02d.000Z","type":"event_msg","payload":{"type":"user_message","message":%s}}`+"\n", i, q(l))
		fmt.Fprintf(&gm, `{"id":"s-%d","timestamp":"2026-05-06T10:00:%02d.000Z","type":"user","content":[{"text":%s}]}`+"\n", i, i, q(l))
		for _, ln := range strings.Split(l, "\n") {
			ai.WriteString("#### " + ln + "  \n")
		}
		ai.WriteString("\nok\n\n")
		fmt.Fprintf(&oc, `{"type":"message","id":"e%d","parentId":%s,"timestamp":"2026-05-06T10:00:%02d.000Z","message":{"role":"user","content":[{"type":"text","text":%s}],"timestamp":1778061600000}}`+"\n", i, ocParent(i), i, q(l))
		oaMsgs = append(oaMsgs, `{"role":"user","content":`+q(l)+`}`)
		parent = q(id)
	}
	oa.WriteString(`{"id":"conv-secret","created_at":"2026-05-06T10:00:00Z","metadata":{"user":"dana"},"messages":[` + strings.Join(oaMsgs, ",") + "]}\n")
	write(cairn.SourceClaudeCode, "projects/-home-dev-s/5ec2e700-0000-4000-8000-00000000beef.jsonl", cc.String())
	write(cairn.SourceCodex, "sessions/2026/05/06/rollout-2026-05-06T12-00-00-019e9b2c-0000-7000-8000-00000000beef.jsonl", cx.String())
	write(cairn.SourceGemini, "tmp/acme-api/chats/session-2026-05-06T10-00-5e7a9c1b.jsonl", gm.String())
	write(cairn.SourceAider, "secret-repo/.aider.chat.history.md", ai.String())
	write(cairn.SourceOpenClaw, "agents/main/sessions/7a1f0c2e-0000-4000-8000-00000000beef.jsonl", oc.String())
	write(cairn.SourceOpenAIChat, "secrets.jsonl", oa.String())
	plantSecretsCursorLoggie(t, roots, lines)
}

func ocParent(i int) string {
	if i == 0 {
		return "null"
	}
	return fmt.Sprintf(`"e%d"`, i-1)
}

// TestSessionSecretsNeverStored plants secrets of every sample kind in a
// transcript of every source and scans every file of the data directory,
// SQLite files included, for them afterwards.
func TestSessionSecretsNeverStored(t *testing.T) {
	f := newSessionsFixture(t)
	samples := redacttest.Samples()
	var lines []string
	for _, s := range samples {
		lines = append(lines, "note: "+s.Line+" (keep this safe)")
	}
	plantSecrets(t, f.roots, lines)
	stats := f.sync()
	for _, src := range cairn.Sources {
		st := stats[src]
		n := 0
		for _, v := range st.Redactions {
			n += v
		}
		if n < len(samples) || st.Failed != 0 {
			t.Errorf("%s: %d redactions for %d planted secrets, %d failures: %+v", src, n, len(samples), st.Failed, st.Failures)
		}
	}
	// The sessions holding them are indexed: their placeholders are searchable.
	if hits := f.search("REDACTED github-token", nil); len(hits) == 0 {
		t.Error("no session with a redacted GitHub token was indexed")
	}
	f.eng.Close(context.Background()) // checkpoint the WAL into the database file too
	err := filepath.WalkDir(f.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range samples {
			needle := s.Secret
			if s.Kind == "private-key" {
				needle = strings.Split(s.Secret, "\n")[1]
			}
			if bytes.Contains(data, []byte(needle)) {
				t.Errorf("%s secret found in %s", s.Kind, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRemovedTranscriptKeepsSessions(t *testing.T) {
	for _, drop := range []bool{false, true} {
		f := newSessionsFixture(t)
		f.eng.opts.Corpora[0].DropRemoved = drop
		f.sync()
		if hits := f.search("metric units", &cairn.SessionFilter{Source: cairn.SourceOpenAIChat}); len(hits) == 0 {
			t.Fatal("fixture session not found before the removal")
		}
		os.Remove(filepath.Join(f.roots[cairn.SourceOpenAIChat], "conversations.jsonl"))
		stats := f.sync()
		hits := f.search("metric units", &cairn.SessionFilter{Source: cairn.SourceOpenAIChat})
		switch {
		case !drop && (len(hits) == 0 || stats[cairn.SourceOpenAIChat].Removed != 0):
			t.Errorf("keep (default): %d hits, %d removed; want the sessions kept", len(hits), stats[cairn.SourceOpenAIChat].Removed)
		case drop && (len(hits) != 0 || stats[cairn.SourceOpenAIChat].Removed != 2):
			t.Errorf("drop: %d hits, %d removed; want both sessions of the file gone", len(hits), stats[cairn.SourceOpenAIChat].Removed)
		}
	}
}

func TestSubagentLinkedToParent(t *testing.T) {
	f := newSessionsFixture(t)
	f.sync()
	hits := f.search("token TTL config", &cairn.SessionFilter{Source: cairn.SourceClaudeCode})
	for _, h := range hits {
		if strings.HasPrefix(h.Session.SessionID, "agent-") {
			if h.Session.ParentID != "7f3c2a1e-4b5d-4c6e-8f90-1a2b3c4d5e6f" {
				t.Errorf("sub-agent %s has parent %q", h.Session.SessionID, h.Session.ParentID)
			}
			return
		}
	}
	t.Errorf("no sub-agent session among %d hits", len(hits))
}

// TestStaleRunningStatus: a "running" status left by a crash reads as
// failed, also when it names this process's PID (a restarted server that
// is PID 1 again), unless this engine is running a sync.
func TestStaleRunningStatus(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": "# A\n\nalpha\n"}, Options{})
	write := func(pid int) {
		t.Helper()
		data := fmt.Sprintf(`{"status":"running","phase":"projecting","pid":%d,"startedAt":"2026-11-30T00:00:00Z"}`, pid)
		if err := os.WriteFile(filepath.Join(f.eng.opts.Dir, StatusFile), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, pid := range map[string]int{"own pid": os.Getpid(), "gone pid": 1 << 30} {
		write(pid)
		st, err := f.eng.SyncStatus()
		if err != nil || st.Status != "failed" || !strings.Contains(st.Error, "interrupted") {
			t.Errorf("%s: status %+v, %v; want failed (interrupted)", name, st, err)
		}
	}
	write(os.Getpid())
	f.eng.sessionSyncing.Store(true)
	defer f.eng.sessionSyncing.Store(false)
	if st, _ := f.eng.SyncStatus(); st.Status != "running" {
		t.Errorf("status while this engine syncs: %+v; want running", st)
	}
}
