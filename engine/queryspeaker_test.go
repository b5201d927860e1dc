package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/transcript"
)

func TestQueryNamesSpeaker(t *testing.T) {
	for _, c := range []struct {
		query, name string
		want        bool
	}{
		{"What did Caroline paint?", "Caroline", true},
		{"what did caroline paint?", "Caroline", true},      // case
		{"WHAT DID CAROLINE PAINT?", "caroline", true},      // case, both ways
		{"Where is Caroline's dog?", "Caroline", true},      // possessive
		{"Where is Caroline’s dog?", "Caroline", true},      // typographic apostrophe
		{"Where is the Carolines' dog?", "Caroline", false}, // another word
		{"What did Melanie paint?", "Mel", false},           // a name inside a word
		{"What did Mel paint?", "Melanie", false},           // a word inside a name
		{"Did Carolineville flood?", "Caroline", false},     // a name inside a word
		{"When did Mel-Caroline meet?", "Caroline", true},
		{"What did Jon Snow say?", "Jon Snow", true},  // a name of two words, in order
		{"What did Snow Jon say?", "Jon Snow", false}, // out of order
		{"What did Jon say?", "Jon Snow", false},      // part of a name
		{"What did Jon say?", "", false},              // no name
		{"What did Jon say?", " — ", false},           // a name of no word
		{"What did 2023 say?", "2023", true},          // digits are words too
	} {
		if got := namesSpeaker(queryWords(c.query), c.name); got != c.want {
			t.Errorf("namesSpeaker(%q, %q) = %v, want %v", c.query, c.name, got, c.want)
		}
	}
}

func TestUnitSpeakers(t *testing.T) {
	text := "# Transcript\n\n## User — Caroline — 2023-05-08 13:56\n\nI paint.\n\n## User — Melanie — 2023-05-08 13:57\n\nNice.\n\n" +
		"```\n## User — Fenced — 2023-05-08\n```\n\n## Assistant — codex\n\nok\n\n## Summary — generated\n\nall fine\n\n" +
		"## User — User — 2026-05-04 09:15\n\nfix the test\n\n## User — Dana, Sam — 2026-05-04 10:00\n\nDana: hi\n\n" +
		"## User — System\n\nrules\n\n## User — claude-code\n\nforwarded\n"
	x := newSpeakerIndex(transcript.Messages(text))
	for _, c := range []struct {
		start, end int
		want       string
	}{
		{1, 6, "Caroline"},         // the title and the first turn
		{3, 9, "Caroline,Melanie"}, // two turns
		{8, 13, "Melanie"},         // a fenced heading is no message
		{15, 17, ""},               // the assistant is the agent: never a participant
		{1, 2, ""},                 // the title alone
		{19, 21, ""},               // a generated summary has no speaker
		{23, 25, ""},               // a role: "User"
		{27, 29, "Dana,Sam"},       // a meeting's grouped turns name each
		{31, 36, ""},               // "System", a source id
		{1, 40, "Caroline,Melanie,Dana,Sam"},
	} {
		if got := strings.Join(x.speakers(c.start, c.end), ","); got != c.want {
			t.Errorf("lines %d-%d: speakers %q, want %q", c.start, c.end, got, c.want)
		}
	}
	if got := transcript.Messages("# Notes\n\n## Background\n\ntext\n\n## User notes — a list — of things\n"); len(got) != 0 {
		t.Fatalf("a note's headings read as messages: %+v", got)
	}
}

func TestRoleNamesNeverParticipate(t *testing.T) {
	for _, name := range []string{"User", "user", "Assistant", "System", "Tool", "Developer", "Human", "AI", "Model",
		"claude-code", "Claude Code", "codex", "OpenClaw", "gemini", "aider", "openai-chat", "cursor", "loggie", "Speaker unknown"} {
		if got := participants(transcript.Span{Type: "user", Name: name}); len(got) != 0 {
			t.Errorf("participants of a user turn named %q = %q, want none", name, got)
		}
	}
	if got := participants(transcript.Span{Type: "assistant", Name: "Caroline"}); len(got) != 0 {
		t.Errorf("an assistant turn (the agent, by its configured name) has participants %q", got)
	}
	if got := participants(transcript.Span{Type: "user", Name: "Userland Bob"}); len(got) != 1 {
		t.Errorf("a person whose name holds a role word has participants %q, want one", got)
	}
}

// TestSearchSpeakerLift asks, over real SQLite sessions, a question naming
// one participant whose words another participant's turn holds more of:
// without the lift that turn comes first, with it the named participant's.
func TestSearchSpeakerLift(t *testing.T) {
	f := newFixture(t, nil, Options{Embedder: &conceptEmbedder{model: "v1"}, Corpora: []cairn.Corpus{{Name: "sessions", Kind: cairn.KindSessions}}})
	ctx := context.Background()
	at := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	msg := func(who, text string, min int) cairn.Message {
		return cairn.Message{Role: cairn.RoleUser, Speaker: who, Text: text, Time: at.Add(time.Duration(min) * time.Minute)}
	}
	sessions := []cairn.Session{
		{Source: cairn.SourceCodex, ID: "chat", StartedAt: at, Messages: []cairn.Message{
			msg("Melanie", "tomatoes grew in the garden: the garden grew tomatoes", 0),
			msg("Melanie", "the quarterly budget and spending", 1),
			msg("Melanie", "the finance meeting ran late", 2),
			msg("Caroline", "my garden had tomatoes this year and I sat among them all afternoon on the porch", 3),
			msg("Melanie", "spending less this quarter", 4),
		}},
	}
	if _, err := f.eng.ImportSessions(ctx, "sessions", "fixture", sessions); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	first := func(speaker float64, by int) cairn.Hit {
		old := fusion
		fusion.Speaker, fusion.SpeakerBy = speaker, by
		defer func() { fusion = old }()
		hits, err := f.eng.Search(ctx, "what grew in Caroline's garden?", &cairn.SearchOptions{Limit: 5, Mode: cairn.ModeHybrid, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Fatal("no hits")
		}
		return hits[0]
	}
	if got := first(0, 0); !strings.Contains(got.Snippet, "tomatoes grew in") {
		t.Fatalf("without the lift the first hit is %q, want Melanie's turn (the test's premise)", got.Snippet)
	}
	got := first(0.5, 0)
	if !strings.Contains(got.Snippet, "afternoon") {
		t.Fatalf("with the lift the first hit is %q, want Caroline's turn", got.Snippet)
	}
	if !strings.Contains(strings.Join(got.Explain, " "), "speaker(") {
		t.Errorf("the lifted hit's explanation names no speaker part: %q", got.Explain)
	}
	// The lift adds no lane signal: the calibrated score reads the lanes.
	if s := got.Signals; s == nil || s.LexRank == 0 {
		t.Errorf("the lifted hit lost its lexical signals: %+v", s)
	}
}

// TestSearchRolesNotLifted asks, over a coding agent's session (the user's
// turns headed "User", the agent's "claude-code", the agent named "Molty"
// by the engine's AgentName in a second session), questions that name a
// role or the agent: each ranks the same with the lift on as off. Before
// roles were left out, "the user" named the speaker "User" and lifted
// every user turn above the assistant turn that holds the words.
func TestSearchRolesNotLifted(t *testing.T) {
	f := newFixture(t, nil, Options{Embedder: &conceptEmbedder{model: "v1"}, AgentName: "Molty",
		Corpora: []cairn.Corpus{{Name: "sessions", Kind: cairn.KindSessions}}})
	ctx := context.Background()
	at := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	// The agent's turns are long, so each is a unit of its own; a user
	// turn shares its unit with the reply after it. The flaky-test turn is
	// the agent's alone.
	msg := func(role, text string, min int) cairn.Message {
		if role == cairn.RoleAssistant {
			text += strings.Repeat(" and then we went over the notes once more", 40)
		}
		return cairn.Message{Role: role, Text: text, Time: at.Add(time.Duration(min) * time.Minute)}
	}
	turns := []cairn.Message{
		msg(cairn.RoleUser, "the login test fails about one in five runs", 0),
		msg(cairn.RoleAssistant, "let me read it first", 1),
		msg(cairn.RoleAssistant, "the flaky login test: the token clock drifts, the flaky login test waits on the clock", 1),
		msg(cairn.RoleUser, "ok, and the budget report?", 2),
		msg(cairn.RoleAssistant, "the quarterly budget report is done", 3),
		msg(cairn.RoleUser, "thanks, the login works now", 4),
	}
	sessions := []cairn.Session{
		{Source: cairn.SourceClaudeCode, ID: "coding", StartedAt: at, Cwd: "/home/dev/acme-api", Messages: turns},
		{Source: cairn.SourceCodex, ID: "coding-2", StartedAt: at.Add(time.Hour), Cwd: "/home/dev/acme-api", Messages: turns},
	}
	if _, err := f.eng.ImportSessions(ctx, "sessions", "fixture", sessions); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	order := func(query string, speaker float64) string {
		old := fusion
		fusion.Speaker, fusion.SpeakerBy = speaker, 0
		defer func() { fusion = old }()
		hits, err := f.eng.Search(ctx, query, &cairn.SearchOptions{Limit: 10, Mode: cairn.ModeHybrid, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, h := range hits {
			fmt.Fprintf(&b, "%s:%d-%d %.6f\n", h.Path, h.StartLine, h.EndLine, h.Score)
			if strings.Contains(strings.Join(h.Explain, " "), "speaker(") {
				t.Errorf("%q: hit %s:%d lifted as spoken by a named participant: %q", query, h.Path, h.StartLine, h.Explain)
			}
		}
		return b.String()
	}
	for _, q := range []string{"what did the user say about the flaky login test?", "what did the User say about login",
		"what did claude code say about the login test", "what did codex say about the budget", "what did Molty say about the login test",
		"what did the assistant say about the budget report"} {
		off, on := order(q, 0), order(q, 0.5)
		if off == "" {
			t.Fatalf("%q: no hits (the test's premise)", q)
		}
		if off != on {
			t.Errorf("%q ranks differently with the lift on:\noff:\n%son:\n%s", q, off, on)
		}
	}
}
