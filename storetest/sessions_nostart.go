package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// testFilterNoStart: a session whose source recorded no start (a Loggie
// envelope without one, an OpenAI-chat import) matches no time bound,
// however early or late; it still matches the other fields.
func testFilterNoStart(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	putSession(t, s, session("sessions", "timed.md", "/t/a.jsonl", t0))
	putSession(t, s, session("sessions", "untimed.md", "/t/b.jsonl", time.Time{}))
	early, late := time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		f    cairn.SessionFilter
		want []string
	}{
		{"to, before everything", cairn.SessionFilter{StartedTo: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}, []string{}},
		{"from, long ago", cairn.SessionFilter{StartedFrom: early}, []string{"timed.md"}},
		{"from and to, wide", cairn.SessionFilter{StartedFrom: early, StartedTo: late}, []string{"timed.md"}},
		{"no time bound", cairn.SessionFilter{Provider: "slack"}, []string{"timed.md", "untimed.md"}},
	} {
		got, err := s.FilterSessions(ctx, []string{"sessions"}, tc.f)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got = slices.Sorted(slices.Values(got))
		if len(got) == 0 {
			got = []string{}
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}
