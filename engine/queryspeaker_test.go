package engine

import (
	"context"
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
		"```\n## User — Fenced — 2023-05-08\n```\n\n## Assistant — codex\n\nok\n\n## Summary — generated\n\nall fine\n"
	spans := transcript.Messages(text)
	for _, c := range []struct {
		start, end int
		want       string
	}{
		{1, 6, "Caroline"},         // the title and the first turn
		{3, 9, "Caroline,Melanie"}, // two turns
		{8, 13, "Melanie"},         // a fenced heading is no message
		{15, 17, "codex"},          // no timestamp
		{1, 2, ""},                 // the title alone
		{19, 21, ""},               // a generated summary has no speaker
	} {
		if got := strings.Join(unitSpeakers(spans, c.start, c.end), ","); got != c.want {
			t.Errorf("lines %d-%d: speakers %q, want %q", c.start, c.end, got, c.want)
		}
	}
	if got := transcript.Messages("# Notes\n\n## Background\n\ntext\n\n## User notes — a list — of things\n"); len(got) != 0 {
		t.Fatalf("a note's headings read as messages: %+v", got)
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
