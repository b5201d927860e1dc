package gather

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn/internal/golden"
)

// TestGoldenPrompt pins the system prompt and a rendered part: an
// observation with an event date, an item with a span and a matched
// passage, a profile shown at its longer length, a memory with no dates
// whose passage is its text (said once), and a question naming a time.
func TestGoldenPrompt(t *testing.T) {
	told := time.Date(2023, 6, 12, 18, 30, 0, 0, time.UTC)
	part := []*Gathered{
		{Rank: 201, Candidate: Candidate{Kind: "observation", Title: "Visited the Louvre", ToldAt: told, EventDate: "2023-06-10",
			Text: "Maya visited the Louvre in Paris with her sister on Saturday, 10 June 2023.", Passage: "visited the Louvre in Paris"}},
		{Rank: 202, Candidate: Candidate{Kind: "decision", Title: "Trip   plans\nmoved", ToldAt: told, StartDate: "2023-06", EndDate: "2023-08",
			Text: "The summer trip moves from June to August because the flat sale closes late.", Passage: "moves from June to August"}},
		{Rank: 203, Candidate: Candidate{Kind: "profile", Title: "Maya", ToldAt: told, Text: strings.Repeat("Maya likes museums. ", 150)}},
		{Rank: 204, Candidate: Candidate{Kind: "observation", Title: "Cancelled", Text: "The Orsay visit was cancelled.", Passage: "The Orsay visit was cancelled."}},
	}
	got := "=== system\n" + systemPrompt() + "=== part\n" + partPrompt("How many museums did Maya visit in June 2023?", "2023-06", "2023-06", part, 1) +
		"=== part, round 2\n" + partPrompt("How many museums?", "", "", part[3:], 2) + "=== schema, 4 candidates\n" + string(schemaFor(4)) + "\n"
	golden.Check(t, filepath.Join("testdata", "part.golden"), []byte(got))
}
