package search

import (
	"math"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestHoldsWord(t *testing.T) {
	for _, c := range []struct {
		text, word string
		prefix     bool
		want       bool
	}{
		{"tips for dairy-free baking", "bake", false, true}, // same root as the porter stem
		{"we went to the bakery", "bake", false, false},     // another word that starts alike
		{"the horizon was red", "horizon", false, true},
		{"horizons", "horizon", false, true},
		{"a cupcake", "cup", false, false},
		{"a cupcake", "cup", true, true}, // a prefix term holds any word it starts
		{"teacup", "cup", false, false},  // inside a word
		{"cup", "cup", false, true},
		{"studies of bees", "study", false, true},
		{"", "x", false, false},
	} {
		if got := holdsWord(c.text, c.word, c.prefix); got != c.want {
			t.Errorf("holdsWord(%q, %q, %v) = %v, want %v", c.text, c.word, c.prefix, got, c.want)
		}
	}
}

// TestTermSignals: the share of terms held by count and by weight, and the
// heaviest missing term's weight over the heaviest's.
func TestTermSignals(t *testing.T) {
	q, err := Parse("world cup 1998 final")
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{1, 3, 6, 2} // 1998 the rarest
	var s cairn.HitSignals
	termSignals(&s, q, "The final of the world series", w, 10)
	if s.Terms != 0.5 || math.Abs(s.Cover-3.0/12) > 1e-12 || s.Miss != 1 {
		t.Errorf("terms %.3f cover %.3f miss %.3f, want 0.5, 0.25, 1", s.Terms, s.Cover, s.Miss)
	}
	termSignals(&s, q, "World Cup 1998, the final", w, 10)
	if s.Terms != 1 || s.Cover != 1 || s.Miss != 0 {
		t.Errorf("all held: terms %.3f cover %.3f miss %.3f, want 1, 1, 0", s.Terms, s.Cover, s.Miss)
	}
	termSignals(&s, q, "cup 1998", w, 10)
	if s.Terms != 0.5 || s.Miss != 2.0/6 {
		t.Errorf("rarest held: terms %.3f miss %.3f, want 0.5, 0.333", s.Terms, s.Miss)
	}
	// 1998 in no chunk: it weighs the largest IDF, and KnownCover leaves
	// it out.
	termSignals(&s, q, "The final of the world series", []float64{1, 3, 10, 2}, 10)
	if s.KnownCover != 0.5 || s.Rarest != 0.2 || s.Held != 2 {
		t.Errorf("unknown term: known cover %.3f rarest %.3f held %d, want 0.5, 0.2, 2", s.KnownCover, s.Rarest, s.Held)
	}
	id, err := Parse("parseConfig")
	if err != nil {
		t.Fatal(err)
	}
	termSignals(&s, id, "we parse the config file", nil, 10)
	if s.Terms != 1 {
		t.Errorf("identifier by its parts: terms %.3f, want 1", s.Terms)
	}
}
