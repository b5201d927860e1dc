package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestSessions checks cairn.SessionStore and TranscriptRenamer: session
// records in and out, replaced and deleted, listed per corpus and
// transcript, filtered; transcript file states; renames.
func TestSessions(t *testing.T, f Factory) {
	cases(t, f, []tcase{
		{"RoundTrip", testSessionRoundTrip},
		{"ReplaceAndDelete", testSessionReplaceDelete},
		{"SessionsOf", testSessionsOf},
		{"Filter", testFilterSessions},
		{"FilterNoStart", testFilterNoStart},
		{"TranscriptStates", testTranscriptStates},
		{"RenameTranscript", testRenameTranscript},
	})
}

// session is a record with every field set; its start is at a whole
// millisecond, as sources record them.
func session(corpus, path, transcript string, started time.Time) cairn.SessionRecord {
	r := cairn.SessionRecord{
		Corpus: corpus, Path: path, Transcript: transcript,
		StartedAt: started, StartedAtRaw: started.Format(time.RFC3339),
		ParentID: "parent-" + path, ProjectionHash: hashOf(path), ProjectorVersion: 4,
		Spans: `[{"id":"m1","start":1,"end":3}]`,
		Info: cairn.SessionInfo{SessionID: "id-" + path, Source: cairn.SourceClaudeCode, Provider: "Slack",
			ChatType: "group", AccountID: "acct", ConversationID: "/home/u/project", Cwd: "/home/u/project",
			Title: "Title of " + path, ParentID: "parent-" + path},
	}
	if !started.IsZero() {
		r.Info.StartedAt = started.UTC().Format(time.RFC3339Nano)
	}
	return r
}

func putSession(t *testing.T, s cairn.Storage, r cairn.SessionRecord) {
	t.Helper()
	if err := s.PutSession(context.Background(), r); err != nil {
		t.Fatalf("put session %s: %v", r.Path, err)
	}
}

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 123_000_000, time.UTC)

func testSessionRoundTrip(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	want := session("sessions", "claude-code/p/2026-03-04-a.md", "/home/u/.claude/projects/p/a.jsonl", t0)
	putSession(t, s, want)
	got, err := s.Session(ctx, want.Corpus, want.Path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("session read back (-want +got):\n%s", d)
	}
	// No start time reads back as none.
	none := session("sessions", "no-start.md", "/t/b.jsonl", time.Time{})
	putSession(t, s, none)
	if got, err := s.Session(ctx, none.Corpus, none.Path); err != nil || !got.StartedAt.IsZero() || got.Info.StartedAt != "" {
		t.Errorf("a session without a start = %+v, %v; want a zero start", got, err)
	}
	if _, err := s.Session(ctx, "sessions", "missing.md"); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("missing session: %v, want ErrNotFound", err)
	}
	if _, err := s.Session(ctx, "other", want.Path); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("a session of another corpus: %v, want ErrNotFound", err)
	}
}

func testSessionReplaceDelete(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	r := session("sessions", "a.md", "/t/a.jsonl", t0)
	putSession(t, s, r)
	r.ProjectionHash, r.Info.Title, r.Spans = hashOf("v2"), "Renamed", "[]"
	putSession(t, s, r)
	if got, err := s.Session(ctx, "sessions", "a.md"); err != nil || got.ProjectionHash != r.ProjectionHash || got.Info.Title != "Renamed" || got.Spans != "[]" {
		t.Errorf("after replacing = %+v, %v", got, err)
	}
	if all, _ := s.SessionsOf(ctx, "sessions", ""); len(all) != 1 {
		t.Errorf("replacing added a record: %d", len(all))
	}
	if err := s.DeleteSession(ctx, "sessions", "a.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, "sessions", "a.md"); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("deleted session: %v, want ErrNotFound", err)
	}
	if err := s.DeleteSession(ctx, "sessions", "a.md"); err != nil {
		t.Errorf("deleting a missing session: %v, want no error", err)
	}
}

func testSessionsOf(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	for _, r := range []cairn.SessionRecord{
		session("sessions", "c.md", "/t/one.jsonl", t0), session("sessions", "a.md", "/t/one.jsonl", t0),
		session("sessions", "b.md", "/t/two.jsonl", t0), session("agents", "a.md", "/t/one.jsonl", t0),
	} {
		putSession(t, s, r)
	}
	list := func(corpus, transcript string) []string {
		t.Helper()
		rs, err := s.SessionsOf(ctx, corpus, transcript)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.Corpus+"/"+r.Path)
		}
		slices.Sort(out)
		return out
	}
	if got := list("sessions", ""); !equal(got, "sessions/a.md", "sessions/b.md", "sessions/c.md") {
		t.Errorf("sessions of the corpus = %v", got)
	}
	if got := list("sessions", "/t/one.jsonl"); !equal(got, "sessions/a.md", "sessions/c.md") {
		t.Errorf("sessions of one.jsonl = %v", got)
	}
	if got := list("agents", ""); !equal(got, "agents/a.md") {
		t.Errorf("sessions of agents = %v", got)
	}
	if got := list("sessions", "/t/none.jsonl"); len(got) != 0 {
		t.Errorf("sessions of an unknown transcript = %v", got)
	}
}

func testFilterSessions(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a := session("sessions", "a.md", "/t/a.jsonl", t0)
	b := session("sessions", "b.md", "/t/b.jsonl", t0.Add(48*time.Hour))
	b.Info.Provider, b.Info.ChatType, b.Info.AccountID, b.Info.ConversationID, b.Info.Source, b.Info.Cwd =
		"Discord", "direct", "acct2", "conv2", cairn.SourceOpenClaw, "/home/u/other"
	c := session("sessions", "c.md", "/t/c.jsonl", t0.Add(96*time.Hour))
	c.Info.ChatType = ""
	other := session("agents", "z.md", "/t/z.jsonl", t0)
	for _, r := range []cairn.SessionRecord{a, b, c, other} {
		putSession(t, s, r)
	}
	for _, tc := range []struct {
		name    string
		corpora []string
		f       cairn.SessionFilter
		want    []string
	}{
		{"zero filter", []string{"sessions"}, cairn.SessionFilter{}, []string{"a.md", "b.md", "c.md"}},
		{"every corpus", nil, cairn.SessionFilter{}, []string{"a.md", "b.md", "c.md", "z.md"}},
		{"from, inclusive", []string{"sessions"}, cairn.SessionFilter{StartedFrom: b.StartedAt}, []string{"b.md", "c.md"}},
		{"to, inclusive", []string{"sessions"}, cairn.SessionFilter{StartedTo: b.StartedAt}, []string{"a.md", "b.md"}},
		{"from and to", []string{"sessions"}, cairn.SessionFilter{StartedFrom: t0.Add(time.Hour), StartedTo: t0.Add(95 * time.Hour)}, []string{"b.md"}},
		{"provider, any case", []string{"sessions"}, cairn.SessionFilter{Provider: "discord"}, []string{"b.md"}},
		{"chat type", []string{"sessions"}, cairn.SessionFilter{ChatType: "group"}, []string{"a.md"}},
		{"chat type never matches none", []string{"sessions"}, cairn.SessionFilter{ChatType: "direct"}, []string{"b.md"}},
		{"account", []string{"sessions"}, cairn.SessionFilter{AccountID: "acct"}, []string{"a.md", "c.md"}},
		{"conversation", []string{"sessions"}, cairn.SessionFilter{ConversationID: "conv2"}, []string{"b.md"}},
		{"source", nil, cairn.SessionFilter{Source: cairn.SourceClaudeCode}, []string{"a.md", "c.md", "z.md"}},
		{"cwd, exact", []string{"sessions"}, cairn.SessionFilter{Cwd: "/home/u/project"}, []string{"a.md", "c.md"}},
		{"cwd prefix is no match", []string{"sessions"}, cairn.SessionFilter{Cwd: "/home/u"}, []string{}},
		{"two fields", []string{"sessions"}, cairn.SessionFilter{Provider: "SLACK", StartedFrom: t0.Add(time.Hour)}, []string{"c.md"}},
		{"nothing matches", []string{"sessions"}, cairn.SessionFilter{Provider: "none"}, []string{}},
	} {
		got, err := s.FilterSessions(ctx, tc.corpora, tc.f)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got = slices.Clone(got)
		slices.Sort(got)
		if len(got) == 0 {
			got = []string{}
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

func testTranscriptStates(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	states := func(corpus string) map[string]cairn.TranscriptState {
		t.Helper()
		m, err := s.TranscriptStates(ctx, corpus)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	put := func(ts cairn.TranscriptState) {
		t.Helper()
		if err := s.PutTranscriptState(ctx, ts); err != nil {
			t.Fatal(err)
		}
	}
	if got := states("sessions"); len(got) != 0 {
		t.Errorf("empty store: %v", got)
	}
	a := cairn.TranscriptState{Corpus: "sessions", Source: cairn.SourceCodex, Path: "/t/a.jsonl", Size: 1234, ModTime: 1_700_000_000_123_456_789,
		Hash: hashOf("a"), ProjectorVersion: 4, CheckedAt: 1_700_000_001_000_000_000, Stats: `{"Lines":3}`, Error: ""}
	b := cairn.TranscriptState{Corpus: "sessions", Source: cairn.SourceGemini, Path: "/t/b.json", Size: 1, ModTime: 2,
		Hash: hashOf("b"), ProjectorVersion: 3, CheckedAt: 3, Stats: "", Error: "parse /t/b.json: unexpected end of JSON input"}
	other := a
	other.Corpus = "agents"
	for _, ts := range []cairn.TranscriptState{a, b, other} {
		put(ts)
	}
	if d := cmp.Diff(map[string]cairn.TranscriptState{a.Path: a, b.Path: b}, states("sessions")); d != "" {
		t.Errorf("states (-want +got):\n%s", d)
	}
	a.Size, a.Hash, a.Error = 2000, hashOf("a2"), "read: cut"
	put(a)
	if got := states("sessions")[a.Path]; got != a {
		t.Errorf("after replacing = %+v, want %+v", got, a)
	}
	if err := s.DeleteTranscriptState(ctx, "sessions", b.Path); err != nil {
		t.Fatal(err)
	}
	if got := states("sessions"); len(got) != 1 || got[a.Path] != a {
		t.Errorf("after deleting b = %v", got)
	}
	if got := states("agents"); len(got) != 1 || got[a.Path] != other {
		t.Errorf("agents' state = %v, want its own, untouched", got)
	}
	if err := s.DeleteTranscriptState(ctx, "sessions", "/t/never.jsonl"); err != nil {
		t.Errorf("deleting an unknown state: %v", err)
	}
}

func testRenameTranscript(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	const from, to = "/home/u/sk-secret/a.jsonl", "/home/u/[REDACTED]#1f2e/a.jsonl"
	st := cairn.TranscriptState{Corpus: "sessions", Source: cairn.SourceClaudeCode, Path: from, Size: 10, ModTime: 20, Hash: "h",
		ProjectorVersion: 4, CheckedAt: 30, Stats: `{"file":"` + from + `"}`, Error: "read " + from + ": bad line"}
	if err := s.PutTranscriptState(ctx, st); err != nil {
		t.Fatal(err)
	}
	stale := st
	stale.Path, stale.Size, stale.Stats, stale.Error = to, 1, "", ""
	if err := s.PutTranscriptState(ctx, stale); err != nil {
		t.Fatal(err)
	}
	putSession(t, s, session("sessions", "a.md", from, t0))
	putSession(t, s, session("sessions", "b.md", from, t0))
	putSession(t, s, session("sessions", "c.md", "/t/other.jsonl", t0))
	putSession(t, s, session("agents", "a.md", from, t0))
	if err := s.RenameTranscript(ctx, "sessions", from, to); err != nil {
		t.Fatal(err)
	}
	got, err := s.TranscriptStates(ctx, "sessions")
	if err != nil {
		t.Fatal(err)
	}
	want := st
	want.Path, want.Stats, want.Error = to, `{"file":"`+to+`"}`, "read "+to+": bad line"
	if d := cmp.Diff(map[string]cairn.TranscriptState{to: want}, got); d != "" {
		t.Errorf("states after the rename (-want +got):\n%s", d)
	}
	list := func(corpus, transcript string) int {
		rs, err := s.SessionsOf(ctx, corpus, transcript)
		if err != nil {
			t.Fatal(err)
		}
		return len(rs)
	}
	if n, m := list("sessions", to), list("sessions", from); n != 2 || m != 0 {
		t.Errorf("sessions under the new path %d, the old %d; want 2 and 0", n, m)
	}
	if n := list("agents", from); n != 1 {
		t.Errorf("another corpus's session moved: %d left under the old path, want 1", n)
	}
	if err := s.RenameTranscript(ctx, "sessions", "/t/unknown.jsonl", "/t/x.jsonl"); err != nil {
		t.Errorf("renaming an unknown transcript: %v", err)
	}
}
