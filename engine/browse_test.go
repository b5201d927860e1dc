package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestBrowseSessions: Sessions lists the fixtures' sessions newest start
// first, those without a start last; a limit reads the newest ones only
// and still counts every match; a filter narrows both.
func TestBrowseSessions(t *testing.T) {
	ctx := context.Background()
	f := newSessionsFixture(t)
	f.sync()
	all, n, err := f.eng.Sessions(ctx, "sessions", cairn.SessionFilter{}, 0)
	if err != nil || n != len(all) || n < 4 {
		t.Fatalf("Sessions: %d of %d, %v", len(all), n, err)
	}
	undated := false
	for i, r := range all {
		if r.StartedAt.IsZero() {
			undated = true
			continue
		}
		if undated {
			t.Fatalf("session %s with a start after one without", r.Path)
		}
		if i > 0 && r.StartedAt.After(all[i-1].StartedAt) {
			t.Fatalf("session %d (%s, %v) newer than the one before (%v)", i, r.Path, r.StartedAt, all[i-1].StartedAt)
		}
	}
	few, n2, err := f.eng.Sessions(ctx, "sessions", cairn.SessionFilter{}, 3)
	if err != nil || n2 != n || len(few) != 3 {
		t.Fatalf("Sessions limit 3: %d of %d, %v", len(few), n2, err)
	}
	for i := range few {
		if !few[i].StartedAt.Equal(all[i].StartedAt) {
			t.Errorf("limited %d: %s %v, want the start of %s %v", i, few[i].Path, few[i].StartedAt, all[i].Path, all[i].StartedAt)
		}
	}
	src, m, err := f.eng.Sessions(ctx, "sessions", cairn.SessionFilter{Source: cairn.SourceCodex}, 0)
	if err != nil || m == 0 || m >= n || slices.ContainsFunc(src, func(r cairn.SessionRecord) bool { return r.Info.Source != cairn.SourceCodex }) {
		t.Errorf("codex sessions: %d of %d, %v", m, n, err)
	}
}

// TestStartKey: the start a projection's file name begins with.
func TestStartKey(t *testing.T) {
	for _, tc := range [][2]string{
		{"openai-chat/unknown/default/dana/2026-05-05T10-00-00Z--conv-002.md", "2026-05-05T10-00-00Z"},
		{"x/y/unknown-start--messages.md", ""},
		{"x/2026-05-05T10-00-00Z--id--part-002.md", "2026-05-05T10-00-00Z"},
		{"odd.md", ""},
	} {
		if got := startKey(tc[0]); got != tc[1] {
			t.Errorf("startKey(%q) = %q, want %q", tc[0], got, tc[1])
		}
	}
}
