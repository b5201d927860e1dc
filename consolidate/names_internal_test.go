package consolidate

import (
	"fmt"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestPickNamesIgnoresDatesAndCommonWords: a window shares only its
// heading's date and a word every source holds with most sources; those
// are offered nothing, while the one source that shares two telling words
// gives its names, best first, each once.
func TestPickNamesIgnoresDatesAndCommonWords(t *testing.T) {
	d := &nameDirectory{df: map[string]int{}}
	for i := range 6 {
		d.add(&cairn.Memory{Kind: cairn.MemoryObservation, Status: cairn.StatusActive, Thread: "sessions/other.md", About: fmt.Sprintf("Friend%d", i),
			Summary: fmt.Sprintf("On 2023-05-08 friend %d talked about the weather.", i)})
	}
	d.add(&cairn.Memory{Kind: cairn.MemoryObservation, Status: cairn.StatusActive, Thread: "sessions/other.md", About: "Melanie",
		Concepts: []string{"Becoming Nicole", "melanie"}, Summary: `Melanie recommended the book "Becoming Nicole" to Caroline.`})
	d.add(&cairn.Memory{Kind: cairn.MemoryObservation, Status: cairn.StatusActive, Thread: "sessions/this.md", About: "Zed",
		Summary: "Zed recommended a book."}) // the window's own thread
	text := "## User — Caroline — 2023-05-08 13:56:00 UTC\n\nI finished the book you recommended, talked about it all day."
	got := d.pick("sessions/this.md", text, 10)
	want := []knownName{{"Melanie", `Melanie recommended the book "Becoming Nicole" to Caroline.`}, {"Becoming Nicole", `Melanie recommended the book "Becoming Nicole" to Caroline.`}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("picked %v, want %v", got, want)
	}
}
