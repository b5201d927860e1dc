package ingest

import (
	"os"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

const loggieRoot = "testdata/transcripts/loggie"

func TestLoggieGolden(t *testing.T) {
	ccCheckGolden(t, cairn.SourceLoggie, loggieRoot)
}

func loggieFile(t *testing.T, name string) cairn.Session {
	t.Helper()
	path := loggieRoot + "/transcripts/" + name
	ss := parseFixtureFile(t, cairn.SourceLoggie, path)
	if len(ss) != 1 {
		t.Fatalf("%s: %d sessions", name, len(ss))
	}
	return ss[0]
}

func parseFixtureFile(t *testing.T, source, path string) []cairn.Session {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := Reader(source)
	ss, err := r.Parse(data, ParseOptions{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func TestLoggieFind(t *testing.T) {
	got, err := loggieFind(loggieRoot)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{loggieRoot + "/transcripts/acme/retro-2026-05-08.md", loggieRoot + "/transcripts/acme/standup-2026-05-07.md",
		loggieRoot + "/transcripts/legacy/cut-short.json", loggieRoot + "/transcripts/legacy/planning-2026-04-30.json"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("find (-want +got), raw/ never listed:\n%s", diff)
	}
}

// TestLoggieRevisions: the standup file delivers revision 1 twice and then
// revision 2 (complete, ordered): the replay is dropped, both revisions
// kept with 1 marked superseded; the aside (another transcript id, its own
// scope) is left alone.
func TestLoggieRevisions(t *testing.T) {
	s := loggieFile(t, "acme/standup-2026-05-07.md")
	if s.Stats.Deduplicated != 1 {
		t.Errorf("deduplicated %d, want the one replay", s.Stats.Deduplicated)
	}
	var heads []string
	for _, m := range s.Messages {
		first, _, _ := strings.Cut(m.Text, "\n")
		heads = append(heads, m.Kind+": "+first)
	}
	want := []string{
		"summary: Revision 1, superseded by revision 2.",
		"text: Dana (00:00:12): Morning. Let's start with the fence.",
		"summary: Revision 2, the current one.",
		"text: Dana (00:00:12): Morning. Let's start with the fence.",
		"text: Sam (continued): The remaining holes need concrete, which I can pick up on the way back from the supplier on Friday morning. That is everything from my side on the fence.",
		"text: Lee (00:00:02): Can someone send me the shed measurements?",
	}
	// The monologue's second part names its speaker; no part is over the budget.
	for _, m := range s.Messages {
		for _, para := range strings.Split(m.Text, "\n\n") {
			if len(para) > loggieMonologueBytes+len("Sam (00:01:05): ") {
				t.Errorf("paragraph of %d bytes", len(para))
			}
		}
	}
	if diff := cmp.Diff(want, heads); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if s.ID != "standup-2026-05-07" || s.ConversationID != "m-0507" || s.Title != "Garden standup" {
		t.Errorf("two transcripts in one file: id %q (want the file name), meeting %q, title %q", s.ID, s.ConversationID, s.Title)
	}
	// Times are the start plus the offset; the heading speakers list who spoke.
	if m := s.Messages[1]; m.TimeRaw != "00:00:12" || m.Time.Format("15:04:05") != "07:00:12" || m.Speaker != "Dana, Sam" {
		t.Errorf("group time %v %q speaker %q", m.Time, m.TimeRaw, m.Speaker)
	}
}

// TestLoggieAmbiguous: two blocks with seq 1 and different text, a
// partial one and a truncated one: all kept, in file order, none marked;
// the truncated one as its original text.
func TestLoggieAmbiguous(t *testing.T) {
	s := loggieFile(t, "acme/retro-2026-05-08.md")
	if s.Stats.Deduplicated != 0 || s.Stats.Skipped["truncated payload"] != 1 {
		t.Errorf("stats %+v", s.Stats)
	}
	if len(s.Messages) != 4 {
		t.Fatalf("%d messages, want 4", len(s.Messages))
	}
	for _, m := range s.Messages {
		if strings.Contains(m.Text, "superseded") || strings.Contains(m.Text, "the current one") {
			t.Errorf("ambiguous revision marked: %q", m.Text)
		}
	}
	if last := s.Messages[3]; !strings.HasPrefix(last.Text, loggieOpen) || last.Speaker != "" || !last.Time.IsZero() {
		t.Errorf("truncated block not kept as its text: %+v", last)
	}
}

// TestLoggieLegacyJSON: a complete envelope is normalized (no start: no
// times, an empty speaker stays unknown); a truncated one keeps its text.
func TestLoggieLegacyJSON(t *testing.T) {
	s := loggieFile(t, "legacy/planning-2026-04-30.json")
	want := []string{"summary/: Decided to replace the fence this spring.",
		"text/Dana, Sam: Dana (00:00:03): We need a new fence before summer.\n\nSpeaker unknown (00:00:09): Someone off mic agreed.\n\nSam (00:00:15): Cedar lasts longest."}
	var got []string
	for _, m := range s.Messages {
		got = append(got, m.Kind+"/"+m.Speaker+": "+m.Text)
		if !m.Time.IsZero() {
			t.Errorf("time %v invented", m.Time)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !s.StartedAt.IsZero() || s.ID != "t-plan" || s.ConversationID != "m-0430" || s.AccountID != "acme" {
		t.Errorf("metadata %+v", s)
	}
	cut := loggieFile(t, "legacy/cut-short.json")
	data, _ := os.ReadFile(loggieRoot + "/transcripts/legacy/cut-short.json")
	if len(cut.Messages) != 1 || cut.Messages[0].Text != strings.TrimSpace(string(data)) || cut.Stats.Skipped["malformed payload"] != 1 {
		t.Errorf("truncated envelope: %+v", cut.Messages)
	}
}

// TestLoggieSummaryNotSpeech: a generated summary is never projected as
// what someone said, in any fixture.
func TestLoggieSummaryNotSpeech(t *testing.T) {
	for _, name := range []string{"acme/standup-2026-05-07.md", "legacy/planning-2026-04-30.json"} {
		s := loggieFile(t, name)
		for _, m := range s.Messages {
			if m.Kind == cairn.KindText && (strings.Contains(m.Text, "Decided to replace") || strings.Contains(m.Text, "The team agreed")) {
				t.Errorf("%s: summary text as speech: %q", name, m.Text)
			}
		}
	}
}

func FuzzParseLoggie(f *testing.F) {
	for _, p := range []string{"acme/standup-2026-05-07.md", "acme/retro-2026-05-08.md", "legacy/planning-2026-04-30.json"} {
		data, err := os.ReadFile(loggieRoot + "/transcripts/" + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, strings.HasSuffix(p, ".json"))
	}
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		path := "m.md"
		if asJSON {
			path = "m.json"
		}
		ss, err := loggieParse(data, ParseOptions{Path: path})
		if err != nil || len(ss) > 1 {
			t.Fatalf("%d sessions, %v", len(ss), err)
		}
		for _, s := range ss {
			for _, m := range s.Messages {
				if m.Role != cairn.RoleUser || (m.Kind != cairn.KindText && m.Kind != cairn.KindSummary) {
					t.Fatalf("message %+v", m)
				}
			}
		}
	})
}
