package gather

import (
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

func TestCandidateOf(t *testing.T) {
	told := time.Date(2023, 6, 12, 0, 0, 0, 0, time.UTC)
	obs := cairn.Memory{ID: "o", Kind: cairn.MemoryObservation, Title: "Maya: Louvre", Summary: "Maya visited the Louvre.",
		Body: "unused", EventDate: "2023-06-10", ToldAt: told}
	got := CandidateOf(&obs, "the Louvre", 0.7)
	want := Candidate{ID: "o", Kind: "observation", Title: "Maya: Louvre", Text: "Maya visited the Louvre.", Passage: "the Louvre",
		EventDate: "2023-06-10", ToldAt: told, Score: 0.7}
	if got != want {
		t.Fatalf("observation: %+v, want %+v", got, want)
	}
	prof := cairn.Memory{ID: "p", Kind: KindProfile, Title: "Maya", Summary: "Maya, Paris.", Body: "Likes museums.", StartDate: "2020", EndDate: "2023"}
	if got := CandidateOf(&prof, "", 0); got.Text != "Maya, Paris.\n\nLikes museums." || got.StartDate != "2020" || got.EndDate != "2023" {
		t.Fatalf("profile: %+v", got)
	}
}
