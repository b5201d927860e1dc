package consolidate

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// TestGoldenProfilePrompt pins the profile prompt: the system part and a
// subject's observations, the newest of them when there are more than the
// lines shown, each with when it happened and when it was told.
func TestGoldenProfilePrompt(t *testing.T) {
	sub := subject{key: "maya", name: "Maya"}
	texts := []string{"Maya visited the Louvre museum.", "Maya has lived in Paris since 2019.", "Maya plans to run the Paris marathon in April.",
		"Maya adopted a cat named Pixel.", "Maya now works at the Orsay museum; before, she taught history."}
	for i, text := range texts {
		m := cairn.Memory{ID: fmt.Sprintf("m-%016d", i), Kind: cairn.MemoryObservation, About: "Maya", Summary: text,
			ToldAt: time.Date(2026, 3, 1+i, 9, 0, 0, 0, time.UTC), Phase: []string{"done", "state", "plan", "done", "state"}[i]}
		switch i {
		case 1:
			m.StartDate = "2019"
		case 2:
			m.EventDate = "2026-04"
		case 3:
			m.EventDate = "2026-03-03"
		}
		sub.obs = append(sub.obs, m)
	}
	got := "SYSTEM:\n" + profileSystem() + "\nUSER:\n" + profilePrompt(sub, 4)
	golden(t, filepath.Join("testdata", "profile.golden"), got)
}
