package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// Tests that sessions stay true to their transcripts (issue 14 items 10
// to 12): edits, deleted projections, projection settings, skip reasons,
// timestamps that the source never wrote, and the sync failure count.

// reopen closes c's engine and opens another on the same data folder with
// the corpus and options changed by edit.
func (c *claudeRoot) reopen(edit func(o *Options)) {
	c.t.Helper()
	if err := c.eng.Close(context.Background()); err != nil {
		c.t.Fatal(err)
	}
	o := Options{Dir: c.dir, Corpora: []cairn.Corpus{{
		Name: "sessions", Kind: cairn.KindSessions, Sources: []cairn.SourceSpec{{ID: cairn.SourceClaudeCode, Roots: []string{c.root}}},
	}}}
	if edit != nil {
		edit(&o)
	}
	eng, err := Open(context.Background(), o)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { eng.Close(context.Background()) })
	c.eng = eng
}

// projections lists the projection files under the sessions folder.
func (c *claudeRoot) projections() []string {
	c.t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(c.dir, SessionsDir), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func (c *claudeRoot) status() *SyncStatus {
	c.t.Helper()
	st, err := c.eng.SyncStatus()
	if err != nil {
		c.t.Fatal(err)
	}
	return st
}

func (c *claudeRoot) found(q string) bool {
	c.t.Helper()
	return len(c.search(q)) > 0
}

func (c *claudeRoot) syncForce() {
	c.t.Helper()
	if _, err := c.eng.Sync(context.Background(), &cairn.SyncOptions{Force: true}); err != nil {
		c.t.Fatalf("Sync: %v", err)
	}
}

// editSameLength replaces old with new (same byte length) in the file at
// p, then sets its mtime to mtime.
func editSameLength(t *testing.T, p, old, new string, mtime time.Time) {
	t.Helper()
	if len(old) != len(new) {
		t.Fatalf("%q and %q differ in length", old, new)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.ReplaceAll(string(data), old, new)
	if edited == string(data) {
		t.Fatalf("%q not in %s", old, p)
	}
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// TestSessionEditSameLength: a transcript edited without changing its
// length is indexed again (its projection keeps its length and its mtime,
// the session start, so the files pass must not skip it by size and
// mtime); with the transcript's mtime restored as well, --force does it.
func TestSessionEditSameLength(t *testing.T) {
	c := newClaudeRoot(t)
	p := c.claudeSession("s1", "/home/dev/p", "please tune the carburetor", "the carburetor is tuned")
	t0 := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	os.Chtimes(p, t0, t0)
	c.sync()
	if !c.found("carburetor") {
		t.Fatal("carburetor not found after the first sync")
	}

	editSameLength(t, p, "carburetor", "alternator", t0.Add(time.Hour))
	c.sync()
	if c.found("carburetor") || !c.found("alternator") {
		t.Fatalf("after a same-length edit: carburetor found %v, alternator found %v; want false, true", c.found("carburetor"), c.found("alternator"))
	}
	got, err := c.eng.Get(context.Background(), c.search("alternator")[0].Path, nil)
	if err != nil || !strings.Contains(got.Text, "alternator") || strings.Contains(got.Text, "carburetor") {
		t.Fatalf("get after the edit: %v\n%s", err, got.Text)
	}

	// Same length and the old mtime: a plain sync trusts the size and
	// mtime; --force reads it again.
	editSameLength(t, p, "alternator", "propellers", t0.Add(time.Hour))
	c.syncForce()
	if c.found("alternator") || !c.found("propellers") {
		t.Fatalf("after a forced sync: alternator found %v, propellers found %v; want false, true", c.found("alternator"), c.found("propellers"))
	}
}

// TestDeletedProjectionRebuilt: a projection file deleted while its
// transcript is still there is written again from the transcript, and the
// session stays searchable.
func TestDeletedProjectionRebuilt(t *testing.T) {
	c := newClaudeRoot(t)
	c.claudeSession("s1", "/home/dev/p", "where is the gearbox manual", "on the shelf")
	c.sync()
	files := c.projections()
	if len(files) != 1 {
		t.Fatalf("projections = %v, want one", files)
	}
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	st := c.sync()
	if _, err := os.Stat(files[0]); err != nil {
		t.Fatalf("projection not rebuilt: %v", err)
	}
	if st.Projected != 1 {
		t.Errorf("projected = %d, want 1", st.Projected)
	}
	if !c.found("gearbox") {
		t.Fatal("session no longer searchable after its projection was deleted")
	}
}

// TestProjectionSettingsReproject: changing the time zone or the agent
// name re-projects sessions whose transcripts did not change.
func TestProjectionSettingsReproject(t *testing.T) {
	c := newClaudeRoot(t)
	c.claudeSession("s1", "/home/dev/p", "list the spark plugs", "here are the spark plugs")
	c.sync()
	read := func() string {
		files := c.projections()
		if len(files) != 1 {
			t.Fatalf("projections = %v, want one", files)
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if text := read(); !strings.Contains(text, "09:00:00 UTC") {
		t.Fatalf("first projection has no UTC time:\n%s", text)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	c.reopen(func(o *Options) { o.Location = berlin })
	if st := c.sync(); st.Projected != 1 {
		t.Errorf("after the time zone changed: projected = %d, want 1", st.Projected)
	}
	if text := read(); !strings.Contains(text, "11:00:00 CEST") {
		t.Fatalf("projection not in the new zone:\n%s", text)
	}
	c.reopen(func(o *Options) { o.Location = berlin; o.AgentName = "Mechanic" })
	c.sync()
	if text := read(); !strings.Contains(text, "## Assistant — Mechanic — ") {
		t.Fatalf("projection does not name the new agent:\n%s", text)
	}
	hits := c.search("spark")
	if len(hits) == 0 || len(hits[0].Messages) < 2 || hits[0].Messages[1].Name != "Mechanic" {
		t.Fatalf("search does not show the new agent name: %+v", hits)
	}
}

// TestSessionSkipReason: a sync that finds nothing changed says
// no_changes and keeps the previous lastIndexedAt; one that re-read a
// touched transcript without any projection changing says
// no_indexable_changes (spec C9, C15).
func TestSessionSkipReason(t *testing.T) {
	c := newClaudeRoot(t)
	p := c.claudeSession("s1", "/home/dev/p", "check the brake pads", "the brake pads are fine")
	c.sync()
	first := c.status()
	if first.SkipReason != "" || first.LastIndexedAt == "" {
		t.Fatalf("first sync: skipReason %q, lastIndexedAt %q; want none and a time", first.SkipReason, first.LastIndexedAt)
	}
	// Make a later stamp distinguishable from the first.
	indexed := "2000-01-01T00:00:00Z"
	first.LastIndexedAt = indexed
	if err := c.eng.saveStatus(first); err != nil {
		t.Fatal(err)
	}
	c.sync()
	if st := c.status(); st.SkipReason != "no_changes" || st.LastIndexedAt != indexed {
		t.Errorf("unchanged sync: skipReason %q, lastIndexedAt %q; want no_changes, %s", st.SkipReason, st.LastIndexedAt, indexed)
	}
	later := time.Now().Add(time.Hour)
	os.Chtimes(p, later, later)
	c.sync()
	if st := c.status(); st.SkipReason != "no_indexable_changes" || st.LastIndexedAt != indexed {
		t.Errorf("touched transcript: skipReason %q, lastIndexedAt %q; want no_indexable_changes, %s", st.SkipReason, st.LastIndexedAt, indexed)
	}
	c.claudeSession("s2", "/home/dev/p", "rotate the tyres", "done")
	c.sync()
	if st := c.status(); st.SkipReason != "" || st.LastIndexedAt == indexed {
		t.Errorf("new session: skipReason %q, lastIndexedAt %q; want none and a new time", st.SkipReason, st.LastIndexedAt)
	}
}

// TestNoSessionNoFailure: a sessions corpus whose sources hold no
// transcript yet syncs without a failure (the empty sessions folder is not
// a missing corpus root).
func TestNoSessionNoFailure(t *testing.T) {
	c := newClaudeRoot(t)
	res, err := c.eng.Sync(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Corpora[0]; r.Failed != 0 || len(r.Failures) != 0 {
		t.Fatalf("failed = %d %v, want none", r.Failed, r.Failures)
	}
	if st := c.status(); st.Failed != 0 || st.LastSuccessfulSyncAt == "" {
		t.Fatalf("status failed = %d, lastSuccessfulSyncAt %q; want 0 and a time", st.Failed, st.LastSuccessfulSyncAt)
	}
}

// TestChatTypesSkipReason: sessions left out by chatTypes are counted
// under a reason in the sync status, also when their transcript did not
// change; selecting their chat type later projects them without any
// transcript change.
func TestChatTypesSkipReason(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	copyTree(t, filepath.Join(fixtures, cairn.SourceOpenClaw, "agents"), filepath.Join(root, "agents"))
	open := func(types ...string) *Engine {
		eng, err := Open(context.Background(), Options{Dir: dir, Corpora: []cairn.Corpus{{
			Name: "sessions", Kind: cairn.KindSessions, ChatTypes: types,
			Sources: []cairn.SourceSpec{{ID: cairn.SourceOpenClaw, Roots: []string{root}}},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		return eng
	}
	ctx := context.Background()
	eng := open("group")
	for run := 1; run <= 2; run++ {
		if _, err := eng.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
		st, err := eng.SyncStatus()
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Sources) != 1 || st.Sources[0].SkipReasons[SkipChatType("direct")] == 0 {
			t.Fatalf("sync %d: sources %+v; want sessions skipped as %q", run, st.Sources, SkipChatType("direct"))
		}
	}
	if hits, _ := eng.Search(ctx, "cedar fence", nil); len(hits) != 0 {
		t.Fatalf("a direct chat was indexed with chatTypes [group]: %+v", hits)
	}
	eng.Close(ctx)
	eng = open("direct")
	defer eng.Close(ctx)
	res, err := eng.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Corpora[0].Sessions.Sources[0]; s.Projected == 0 || len(s.SkipReasons) != 0 {
		t.Fatalf("after selecting direct chats: %+v; want sessions projected, none skipped", s)
	}
}

// writeUntimed writes a Claude Code session whose records carry no
// timestamp: one user message and one reply.
func (c *claudeRoot) writeUntimed(id, user, reply string) string {
	c.t.Helper()
	lines := []map[string]any{
		{"parentUuid": nil, "isSidechain": false, "cwd": "/home/dev/p", "sessionId": id, "type": "user", "uuid": id + "-1",
			"message": map[string]any{"role": "user", "content": user}},
		{"parentUuid": id + "-1", "isSidechain": false, "cwd": "/home/dev/p", "sessionId": id, "type": "assistant", "uuid": id + "-2",
			"message": map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant", "model": "m",
				"content": []any{map[string]any{"type": "text", "text": reply}}}},
	}
	var b strings.Builder
	for _, l := range lines {
		data, _ := json.Marshal(l)
		b.Write(data)
		b.WriteByte('\n')
	}
	p := filepath.Join(c.project(), id+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// TestMissingTimestampsOmitted: a session whose records carry no time
// shows none: not the file's mtime, not the session start, in the
// projection headings, the snippet messages, messageTimestamp and the
// session's startedAt (issue 14 item 11).
func TestMissingTimestampsOmitted(t *testing.T) {
	c := newClaudeRoot(t)
	p := c.writeUntimed("u1", "what torque for the wheel nuts", "one hundred newton metres")
	copied := time.Date(2026, 6, 1, 8, 30, 0, 0, time.UTC)
	os.Chtimes(p, copied, copied)
	c.sync()
	files := c.projections()
	if len(files) != 1 {
		t.Fatalf("projections = %v, want one", files)
	}
	data, _ := os.ReadFile(files[0])
	text := string(data)
	if !strings.Contains(text, "## User — User\n") || !strings.Contains(text, "## Assistant — claude-code\n") ||
		strings.Contains(text, "2026") || strings.Contains(text, "unknown") {
		t.Errorf("projection invents a time:\n%s", text)
	}
	if strings.Contains(files[0], "2026-06-01") {
		t.Errorf("projection path carries the file's mtime: %s", files[0])
	}
	hits := c.search("torque")
	if len(hits) == 0 || hits[0].Session == nil || len(hits[0].Messages) != 2 {
		t.Fatalf("hits = %+v", hits)
	}
	h := hits[0]
	if h.MessageTimestamp != "" || h.Session.StartedAt != "" {
		t.Errorf("messageTimestamp %q, startedAt %q; want both empty", h.MessageTimestamp, h.Session.StartedAt)
	}
	for _, m := range h.Messages {
		if m.Timestamp != "" || m.Partial {
			t.Errorf("message %+v: want no timestamp, not partial", m)
		}
	}
	data, _ = json.Marshal(h)
	if strings.Contains(string(data), `"timestamp"`) || strings.Contains(string(data), "0001-01-01") {
		t.Errorf("hit JSON carries a made-up time: %s", data)
	}
}

// TestPartialOnlyWhenCut: a message too long for the expansion budget but
// whole in its chunk is shown whole and not marked partial; a message
// longer than a chunk, shown by the chunk that matched, is partial.
func TestPartialOnlyWhenCut(t *testing.T) {
	c := newClaudeRoot(t)
	c.reopen(func(o *Options) { o.Corpora[0].MaxExpandedTokens = 20 })
	words := func(n int, w string) string { return strings.TrimSpace(strings.Repeat(w+" ", n)) }
	c.claudeSession("p1", "/home/dev/p", "short question about dampers", "dampers "+words(60, "alpha"))
	var long strings.Builder
	for i := range 40 {
		fmt.Fprintf(&long, "paragraph %d %s\n\n", i, words(40, "filler"))
	}
	long.WriteString("the rare word quokka closes it")
	c.claudeSession("p2", "/home/dev/p", "tell me a long story", long.String())
	c.sync()

	hits := c.search("dampers alpha")
	if len(hits) == 0 || len(hits[0].Messages) != 1 {
		t.Fatalf("dampers hits = %+v", hits)
	}
	if m := hits[0].Messages[0]; m.Partial || !strings.HasSuffix(m.Body, "alpha") {
		t.Errorf("whole message %+v: want partial false and the full body", m)
	}
	hits = c.search("quokka")
	if len(hits) == 0 || len(hits[0].Messages) != 1 {
		t.Fatalf("quokka hits = %+v", hits)
	}
	if m := hits[0].Messages[0]; !m.Partial || strings.Contains(m.Body, "paragraph 0 ") {
		t.Errorf("cut message: partial %v, body starts %.40q; want partial and an excerpt", m.Partial, m.Body)
	}
}

// TestSettingsChangeWhileUnreadable: a transcript that cannot be opened
// during the sync that records new projection settings is still
// re-projected with them once it can be read, size and mtime unchanged.
func TestSettingsChangeWhileUnreadable(t *testing.T) {
	c := newClaudeRoot(t)
	p := c.claudeSession("s1", "/home/dev/p", "inspect the clutch", "the clutch is worn")
	c.sync()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	aside := filepath.Join(t.TempDir(), "s1.jsonl")
	if err := os.Rename(p, aside); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	c.reopen(func(o *Options) { o.Location = berlin })
	if st := c.sync(); st.Failed != 1 {
		t.Fatalf("sync with a FIFO in place: %+v; want one failure", st)
	}
	os.Remove(p)
	if err := os.Rename(aside, p); err != nil { // same size, same mtime
		t.Fatal(err)
	}
	if st := c.sync(); st.Projected != 1 {
		t.Errorf("transcript back: projected = %d, want 1", st.Projected)
	}
	files := c.projections()
	data, _ := os.ReadFile(files[0])
	if !strings.Contains(string(data), "CEST") {
		t.Fatalf("projection not in the new zone:\n%s", data)
	}
}
