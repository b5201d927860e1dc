package engine

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// TestQueryDates: dates written in words become the phrase of their
// numbers as an ISO date splits; a month without a year, a weekday and a
// date in numbers are left out.
func TestQueryDates(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"What painting did Melanie show to Caroline on October 13, 2023?", []string{`"2023 10 13"`}},
		{"What did Gina find for her clothing store on 1 February, 2023?", []string{`"2023 02 01"`}},
		{"What type of workout class did Maria start doing in December 2023?", []string{`"2023 12"`}},
		{"the 3rd of sept. 2022 and Oct 2021", []string{`"2022 09 03"`, `"2021 10"`}},
		{"When did Melanie go camping in June?", nil},
		{"what happened on friday", nil},
		{"release notes 2023-10-13", nil},
		{"May 40, 2023", nil}, // no such day
	} {
		if got := queryDates(c.q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %q, want %q", c.q, got, c.want)
		}
	}
}

// TestFuseFeedbackAndDates: the feedback pass adds its share of a unit's
// lexical part (a unit only it found enters the list, with no lexical
// signals), and a unit holding the query's date is lifted only when a lane
// found it.
func TestFuseFeedbackAndDates(t *testing.T) {
	hit := func(path string, line int, bm25 float64) cairn.Hit {
		return cairn.Hit{Path: "cairn://s/" + path, StartLine: line, EndLine: line + 1, Score: bm25,
			Signals: &cairn.HitSignals{BM25: bm25, LexRank: 1, Cover: 1}}
	}
	lex := []cairn.Hit{hit("d1.md", 1, 10), hit("d2.md", 1, 8), hit("d3.md", 1, 6)}
	prf := []cairn.Hit{hit("d3.md", 1, 5), hit("d4.md", 1, 4)}
	plain := fusionWeights{Lex: 1, Vec: 0.5, Convex: true}
	fb := plain
	fb.PRF = 0.5
	dt := plain
	dt.Dates = 0.5
	for _, c := range []struct {
		name  string
		fw    fusionWeights
		dated []cairn.Hit
		want  string
	}{
		{"plain", plain, nil, "d1.md:1 d2.md:1 d3.md:1"},
		// d1 0.5, d2 0.4, d3 0.3 + 0.5, d4 0.4: d3 first, d4 ties d2
		// (paths break the tie).
		{"feedback", fb, nil, "d3.md:1 d1.md:1 d2.md:1 d4.md:1"},
		// d3 holds the date: 0.6 + 0.5; d5 holds it too but no lane found it.
		{"dates", dt, []cairn.Hit{hit("d3.md", 1, 1), hit("d5.md", 1, 1)}, "d3.md:1 d1.md:1 d2.md:1"},
	} {
		hits := fuseLanes(lex, prf, nil, &cairn.SearchOptions{Limit: 10}, fuseKey, c.fw, c.dated...)
		if got := fusedOrder(hits); got != c.want {
			t.Errorf("%s: order %s, want %s", c.name, got, c.want)
		}
		for _, h := range hits {
			if h.Path == "cairn://s/d4.md" && (h.Signals.LexRank != 0 || h.TextScore != nil) {
				t.Errorf("%s: a unit of the feedback pass alone carries lexical signals %+v", c.name, *h.Signals)
			}
		}
	}
}

// TestSearchDatesLift: a hybrid search that names a date in words ranks a
// session turn of that date above an equally worded turn of another
// session that matches the query's words better; without the lift
// (Dates 0, the fusion before) the other turn comes first.
func TestSearchDatesLift(t *testing.T) {
	f := newFixture(t, nil, Options{Embedder: &conceptEmbedder{model: "v1"}, Corpora: []cairn.Corpus{{Name: "sessions", Kind: cairn.KindSessions}}})
	ctx := context.Background()
	may := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	oct := time.Date(2023, 10, 14, 9, 0, 0, 0, time.UTC)
	sessions := []cairn.Session{
		{Source: cairn.SourceCodex, ID: "may", StartedAt: may, Messages: []cairn.Message{
			{Role: cairn.RoleUser, Text: "garden garden: 14 tomatoes grew in the garden", Time: may}}},
		{Source: cairn.SourceCodex, ID: "oct", StartedAt: oct, Messages: []cairn.Message{
			{Role: cairn.RoleUser, Text: "tomatoes grew in the garden all afternoon while we sat on the porch and talked", Time: oct}}},
		// A turn far from the query, so the vector lane's range is not set
		// by the two above alone.
		{Source: cairn.SourceCodex, ID: "budget", StartedAt: may, Messages: []cairn.Message{
			{Role: cairn.RoleUser, Text: "the quarterly budget and spending", Time: may}}},
	}
	if _, err := f.eng.ImportSessions(ctx, "sessions", "fixture", sessions); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	first := func(dates float64) string {
		old := fusion
		fusion.Dates = dates
		fusion.PRF = 0 // the lift against the lanes alone: feedback reorders this fixture by itself
		defer func() { fusion = old }()
		hits, err := f.eng.Search(ctx, "what grew in the garden on 14 October, 2023?", &cairn.SearchOptions{Limit: 5, Mode: cairn.ModeHybrid})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Fatal("no hits")
		}
		return hits[0].Snippet
	}
	if got := first(0); !strings.Contains(got, "garden garden") {
		t.Fatalf("without the lift the first hit is %q, want the May turn (the test's premise)", got)
	}
	if got := first(fusion.Dates); !strings.Contains(got, "afternoon") {
		t.Errorf("with the lift the first hit is %q, want the turn of 2023-10-14", got)
	}
}
