package gather

import (
	"strings"

	"github.com/cairnmemory/cairn"
)

// CandidateOf is what a gather shows of a stored memory found by a
// search: its summary as the text (an observation's text is its summary),
// a profile's body after its summary (profiles are shown longer), the
// search's matched passage and score.
func CandidateOf(m *cairn.Memory, passage string, score float64) Candidate {
	text := m.Summary
	if m.Kind == KindProfile && strings.TrimSpace(m.Body) != "" {
		text = strings.TrimSpace(text + "\n\n" + m.Body)
	}
	return Candidate{ID: m.ID, Kind: m.Kind, Title: m.Title, Text: text, Passage: passage,
		EventDate: m.EventDate, StartDate: m.StartDate, EndDate: m.EndDate, ToldAt: m.ToldAt, Score: score}
}
