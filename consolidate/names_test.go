package consolidate_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// otherThreadObservations stores observations of another thread: five
// about Bob's garden (the most frequent name) and one about the book
// Melanie recommended.
func otherThreadObservations(t *testing.T, f *fixture) {
	t.Helper()
	var ms []cairn.Memory
	obs := func(id, about, text string, concepts ...string) cairn.Memory {
		return cairn.Memory{ID: id, Kind: cairn.MemoryObservation, About: about, Title: text, Summary: text, Thread: "sessions/other.md",
			Status: cairn.StatusActive, Cues: []string{}, Concepts: concepts}
	}
	for i := range 5 {
		ms = append(ms, obs(fmt.Sprintf("m-bob%d", i), "Bob", fmt.Sprintf("Bob planted %d rows of tomatoes in his allotment garden.", i+2), "allotment"))
	}
	ms = append(ms, obs("m-book", "Melanie", `Melanie recommended the book "Becoming Nicole" to Caroline after their talk about identity.`, "Becoming Nicole", "Caroline"))
	if _, err := f.eng.Store().CommitWindow(context.Background(), cairn.WindowCommit{Corpus: "sessions", Thread: "other.md", Pass: "observations", Memories: ms}); err != nil {
		t.Fatal(err)
	}
}

// TestKnownNamesChosenForWindow: the header's known names pair a name
// with what another conversation said about it, chosen for what this
// window mentions ("the book you recommended" gets Becoming Nicole), not
// the most frequent names (Bob's five observations share nothing with
// the window). Before, the header listed the most frequent names, bare.
func TestKnownNamesChosenForWindow(t *testing.T) {
	sess := cairn.Session{Source: "locomo", ID: "s-book", Title: "Chat", ConversationID: "book", StartedAt: at(8, 10, 0),
		Messages: []cairn.Message{msg("user", at(8, 10, 0), "I finally finished the book you recommended, it was so moving."),
			msg("assistant", at(8, 10, 1), "Glad you liked it!")}}
	f := newFixture(t, sess)
	otherThreadObservations(t, f)
	model := &scripted{}
	f.run(model, nil)
	if len(model.reqs) == 0 {
		t.Fatal("no model call")
	}
	for _, req := range model.reqs {
		p := req.Prompt
		if !strings.Contains(p, "Names known from other conversations, each with what was said there") {
			t.Fatalf("no known names in the header:\n%s", p)
		}
		want := `  - Becoming Nicole: Melanie recommended the book "Becoming Nicole" to Caroline after their talk about identity.`
		if !strings.Contains(p, want) {
			t.Errorf("header lacks %q:\n%s", want, p)
		}
		if strings.Contains(p, "Bob") {
			t.Errorf("header offers Bob, who shares nothing with the window:\n%s", p)
		}
	}
}
