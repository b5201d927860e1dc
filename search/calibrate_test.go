package search

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestModelsMatchFeatures(t *testing.T) {
	for _, mode := range []string{cairn.ModeLexical, cairn.ModeVector, cairn.ModeHybrid} {
		m, ok := Models[mode]
		if !ok {
			t.Fatalf("no model for %s", mode)
		}
		x := Features(mode, cairn.HitSignals{})
		if len(x) != len(FeatureNames(mode)) || len(m.Weights) != len(x)+1 {
			t.Errorf("%s: %d features, %d names, %d weights (want bias + one per feature)", mode, len(x), len(FeatureNames(mode)), len(m.Weights))
		}
	}
}

// TestCalibrate: scores come from the model, never rise down the list, a
// minimum score cuts the tail, the query's best signals reach every hit,
// and explain names the inputs and weights.
// (Session hits: a search of files corpora alone is ranked by the model,
// TestCalibrateByModel.)
func TestCalibrate(t *testing.T) {
	hits := []cairn.Hit{
		{Path: "a", Corpus: "sessions", Signals: &cairn.HitSignals{Match: 0.5, LexRank: 1, Held: 1, Terms: 0.5, Cover: 0.3, KnownCover: 0.3, Rarest: 0.3}},
		{Path: "b", Corpus: "sessions", Signals: &cairn.HitSignals{Match: 1.6, AllWords: true, LexRank: 2, Held: 2, Terms: 1, Cover: 1, KnownCover: 1, Rarest: 0.5}}, // model says higher: a is raised to it
		{Path: "c", Corpus: "sessions", Signals: &cairn.HitSignals{Match: 0.05, LexRank: 3}},
		{Path: "d", Corpus: "sessions"}, // no signals
	}
	got := Calibrate(append([]cairn.Hit(nil), hits...), cairn.ModeLexical, 0, true)
	if len(got) != 4 {
		t.Fatalf("got %d hits, want 4", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score {
			t.Errorf("hit %d scores %.4f above hit %d's %.4f", i, got[i].Score, i-1, got[i-1].Score)
		}
	}
	first := got[0]
	// b's probability is above a's: a, ranked above it, is raised to it.
	m := Models[cairn.ModeLexical]
	pa := m.Probability(m.Inputs(*got[0].Signals))
	pb := m.Probability(m.Inputs(*got[1].Signals))
	if pb <= pa || first.Score != pb || got[1].Score != pb {
		t.Errorf("scores %.6f, %.6f; want both b's probability %.6f (a's own %.6f is lower)", first.Score, got[1].Score, pb, pa)
	}
	if ex := first.Explain[len(first.Explain)-1]; !strings.Contains(ex, "raised from") {
		t.Errorf("explain %q does not say the score was raised", ex)
	}
	if first.Signals.TopMatch != 1.6 || got[3].Signals.TopMatch != 1.6 {
		t.Errorf("TopMatch %v, %v; want 1.6 on every hit", first.Signals.TopMatch, got[3].Signals.TopMatch)
	}
	ex := first.Explain[len(first.Explain)-1]
	for _, want := range append([]string{"score(", "lexical model"}, FeatureNames(cairn.ModeLexical)...) {
		if !strings.Contains(ex, want) {
			t.Errorf("explain %q lacks %q", ex, want)
		}
	}
	cut := Calibrate(append([]cairn.Hit(nil), hits...), cairn.ModeLexical, (got[1].Score+got[2].Score)/2, false)
	if len(cut) != 2 || cut[1].Path != "b" || len(cut[0].Explain) != 0 {
		t.Errorf("cut between b and c kept %d hits %v", len(cut), cut)
	}
}

// TestCalibrateKeepsBelievedHit: a hit the model believes, ranked below
// weaker ones, survives the cut with the hits above it (the first version
// took the lowest probability so far, so a weak first hit cut them all).
// Memory hits keep the lanes' order (ByModel).
func TestCalibrateKeepsBelievedHit(t *testing.T) {
	weak := cairn.HitSignals{Match: 0.05, Known: 1} // holds no term by its text: a stem the check misses
	strong := cairn.HitSignals{Match: 0.6, Known: 1, Held: 2, Terms: 0.5, Cover: 0.5, KnownCover: 0.5, Rarest: 0.5}
	m0 := cairn.MemoriesCorpus
	hits := []cairn.Hit{{Path: "a", Corpus: m0}, {Path: "b", Corpus: m0}, {Path: "c", Corpus: m0}, {Path: "d", Corpus: m0}}
	for i, s := range []cairn.HitSignals{weak, weak, strong, weak} {
		s.LexRank = i + 1
		hits[i].Signals = &s
	}
	m := Models[cairn.ModeLexical]
	sigs := []cairn.HitSignals{*hits[0].Signals, *hits[1].Signals, *hits[2].Signals, *hits[3].Signals}
	QuerySignals(sigs)
	if p0, p2, p3 := m.Probability(m.Inputs(sigs[0])), m.Probability(m.Inputs(sigs[2])), m.Probability(m.Inputs(sigs[3])); p0 >= 0.3 || p2 < 0.3 || p3 >= 0.3 {
		t.Fatalf("fixture: probabilities %.3f, %.3f, %.3f; want weak, believed, weak", p0, p2, p3)
	}
	got := Calibrate(hits, cairn.ModeLexical, 0.3, false)
	if len(got) != 3 || got[2].Path != "c" {
		t.Fatalf("kept %d hits, want a, b and c", len(got))
	}
}

// TestCalibrateByModel: a search of files corpora alone is ranked by the
// model's probability for each hit, each scored its own probability, so a
// weak hit ranked first by the lanes falls below the hit the model
// believes and is not raised to it (the quickstart's "how does sync skip
// unchanged files" over docs/ showed mcp.md's tool table at 0.99, its own
// 0.71 raised by design.md below it, ux U11); the explanation names the
// place the lanes gave. A list holding a session hit keeps the lanes'
// order.
func TestCalibrateByModel(t *testing.T) {
	weak := cairn.HitSignals{Match: 0.5, LexRank: 1, Held: 1, Terms: 0.5, Cover: 0.3, KnownCover: 0.3, Rarest: 0.3}
	strong := cairn.HitSignals{Match: 1.6, AllWords: true, LexRank: 2, Held: 2, Terms: 1, Cover: 1, KnownCover: 1, Rarest: 0.5}
	none := cairn.HitSignals{Match: 0.05, LexRank: 3}
	list := func(corpus string) []cairn.Hit {
		var hits []cairn.Hit
		for i, s := range []cairn.HitSignals{weak, strong, none} {
			hits = append(hits, cairn.Hit{Path: string(rune('a' + i)), Corpus: corpus, Signals: &s})
		}
		return hits
	}
	m := Models[cairn.ModeLexical]
	sigs := []cairn.HitSignals{weak, strong, none}
	QuerySignals(sigs)
	own := func(s cairn.HitSignals) float64 { return capScore(m.logistic(m.Inputs(s)), m.TermsCap(s)) }
	pa, pb := own(sigs[0]), own(sigs[1])
	if pa >= pb {
		t.Fatalf("fixture: a's probability %.4f not under b's %.4f", pa, pb)
	}
	got := Calibrate(list("docs"), cairn.ModeLexical, 0, true)
	var order []string
	for _, h := range got {
		order = append(order, fmt.Sprintf("%s %.4f", h.Path, h.Score))
	}
	if len(got) != 3 || got[0].Path != "b" || got[1].Path != "a" || got[0].Score != pb || got[1].Score != pa {
		t.Errorf("docs: %v, want b %.4f, a %.4f, c", order, pb, pa)
	}
	if len(got) > 1 && !slices.Contains(got[0].Explain, "ranked by the model from place 2") {
		t.Errorf("explain %q does not name the lanes' place", got[0].Explain)
	}
	if kept := Calibrate(list("docs"), cairn.ModeLexical, (pa+pb)/2, false); len(kept) != 1 || kept[0].Path != "b" {
		t.Errorf("docs at min score %.4f kept %d hits, want b", (pa+pb)/2, len(kept))
	}
	mixed := append(list("docs")[:1], list("sessions")[1:]...)
	if got := Calibrate(mixed, cairn.ModeLexical, 0, false); len(got) != 3 || got[0].Path != "a" || got[1].Path != "b" || got[0].Score < got[1].Score {
		t.Errorf("docs and sessions: %d hits, want a, b, c in the lanes' order, a at least b's score", len(got))
	}
}

// TestUnknownFeature: the unknown-words feature grows with the index's
// size and is 0 where the index's size was not counted (a query of no
// terms) or every word is known.
func TestUnknownFeature(t *testing.T) {
	f := features["unknown"]
	for _, c := range []struct {
		known float64
		rows  int64
		want  float64
	}{
		{0, 0, 0},               // not counted
		{0, 1, 0},               // a one-chunk index tells nothing
		{0, 100, 0.5},           // log10(100)/4
		{0.5, 100, 0.25},        // half the words known
		{0, 10_000, 1},          // large: the full share
		{0.25, 1_000_000, 0.75}, // capped at the share
		{1, 1_000_000, 0},       // every word known
	} {
		if got := f(cairn.HitSignals{Known: c.known, Rows: c.rows}); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("unknown(known %.2f, rows %d) = %.4f, want %.4f", c.known, c.rows, got, c.want)
		}
	}
	// The query's size reaches every hit, as Known does.
	sigs := []cairn.HitSignals{{Cosine: 0.5}, {Known: 0.5, Rows: 300}}
	QuerySignals(sigs)
	if sigs[0].Rows != 300 || sigs[0].Known != 0.5 {
		t.Errorf("first hit: rows %d known %.2f, want the query's 300 and 0.5", sigs[0].Rows, sigs[0].Known)
	}
}

// TestNoEvidenceNoScore: a hit's score comes from its own evidence, and
// the query's signals only weigh it. A hit that holds none of the query's
// words never scores higher because other hits hold them (TopTerms,
// TopMatch), and a hit with no evidence at all (no word, no cosine) gets
// at most the model's bias, whatever the query's signals. The models
// before this rule added the query's best term share and best cosine to
// every hit: in a 3,200-chunk index, hybrid search of "zanzibar quokka
// flamingo handshake" scored six chunks holding none of its words 0.78 to
// 0.88 beside the one note that holds "quokka".
func TestNoEvidenceNoScore(t *testing.T) {
	queries := []cairn.HitSignals{
		{}, {TopTerms: 1, TopMatch: 2, Known: 1, Rows: 3000, CosGap: 0.1, TopCosine: 0.8, NextCosine: 0.7},
		{TopTerms: 0.25, TopMatch: 0.3, Known: 0.25, Rows: 5, CosGap: 0.02, TopCosine: 0.5, NextCosine: 0.45, Symbols: 0.3},
		{TopTerms: 1, TopMatch: 1, Known: 1, Rows: 100_000, CosGap: 0.3, TopCosine: 0.9, NextCosine: 0.5},
	}
	for _, mode := range []string{cairn.ModeLexical, cairn.ModeVector, cairn.ModeHybrid} {
		m := Models[mode]
		bias := 1 / (1 + math.Exp(-m.Weights[0]))
		for _, q := range queries {
			s := q // a hit with nothing of its own
			if p := m.Probability(m.Inputs(s)); p > bias+1e-12 {
				t.Errorf("%s: a hit with no evidence scores %.4f under query signals %+v, above the bias's %.4f", mode, p, q, bias)
			}
		}
		if mode == cairn.ModeLexical {
			continue // a lexical hit holds a word
		}
		for _, cos := range []float64{0.3, 0.4, 0.6} {
			base := cairn.HitSignals{Cosine: cos, VecRank: 3, Known: 1, Rows: 3000, CosGap: 0.1, TopCosine: max(cos, 0.7), NextCosine: 0.5}
			p0 := m.Probability(m.Inputs(base))
			for _, top := range []struct{ terms, match float64 }{{0.25, 0.2}, {0.5, 1}, {1, 2}} {
				s := base
				s.TopTerms, s.TopMatch = top.terms, top.match
				if p := m.Probability(m.Inputs(s)); p > p0+1e-12 {
					t.Errorf("%s: a hit of cosine %.1f holding no word scores %.4f where another holds %.0f%% of the words, above its %.4f where none does",
						mode, cos, p, 100*top.terms, p0)
				}
			}
		}
	}
}

// TestTermsCap: a hit holding a quarter or a half of the query's words
// never scores above its mode's cap, however strong its BM25 in a small
// index; a hit holding three quarters or more, and a vector hit holding
// none, are not capped. Before the caps, a lexical hit of a 200-chunk
// index holding two of four words at BM25 twice the query's ideal scored
// MaxScore.
func TestTermsCap(t *testing.T) {
	for _, mode := range []string{cairn.ModeLexical, cairn.ModeVector, cairn.ModeHybrid} {
		m := Models[mode]
		for _, c := range []struct {
			held  int
			terms float64
			cap   float64
		}{{1, 0.25, m.Caps[0]}, {1, 1.0 / 3, m.Caps[0]}, {2, 0.5, m.Caps[1]}, {3, 0.75, MaxScore}, {0, 0, MaxScore}} {
			s := cairn.HitSignals{Match: 2, LexRank: 1, Cosine: 0.8, VecRank: 1, Held: c.held, Terms: c.terms, Cover: c.terms, KnownCover: c.terms,
				Rarest: 1, Known: 1, Rows: 200, CosGap: 0.3, TopCosine: 0.8, NextCosine: 0.4, TopTerms: c.terms, TopMatch: 2}
			got := m.Scores([]cairn.HitSignals{s})[0]
			if got > c.cap+1e-12 {
				t.Errorf("%s: a hit holding %d words (terms %.2f) scores %.3f, above the cap %.2f", mode, c.held, c.terms, got, c.cap)
			}
			if m.TermsCap(s) != c.cap {
				t.Errorf("%s: TermsCap(held %d, terms %.2f) = %.2f, want %.2f", mode, c.held, c.terms, m.TermsCap(s), c.cap)
			}
		}
		for _, v := range m.Caps {
			if v <= 0.3 {
				t.Errorf("%s: cap %.2f at or under the default minimum score would drop hits", mode, v)
			}
		}
	}
}

// TestTermsCapExplained: an explanation says when the cap, not the model,
// set a hit's score.
func TestTermsCapExplained(t *testing.T) {
	s := cairn.HitSignals{Match: 2, LexRank: 1, Held: 2, Terms: 0.5, Cover: 0.5, KnownCover: 0.5, Rarest: 1, Known: 1, Rows: 200, TopTerms: 0.5, TopMatch: 2}
	m := Models[cairn.ModeLexical]
	if m.Probability(m.Inputs(s)) <= m.Caps[1] {
		t.Fatalf("the model gives this hit %.3f, under the cap: the test needs a hit it caps", m.Probability(m.Inputs(s)))
	}
	hits := Calibrate([]cairn.Hit{{Path: "a", Signals: &s}}, cairn.ModeLexical, 0, true)
	if len(hits) != 1 || hits[0].Score > m.Caps[1] || hits[0].Score <= m.Caps[1]-CapBand || !strings.Contains(strings.Join(hits[0].Explain, "; "), "held under the cap 0.71") {
		t.Fatalf("got %+v", hits)
	}
}

// TestCorpusSignals: a hit scores as it would in a search of its corpus
// alone, whatever other corpora were searched beside it (ux F19). The
// signals are those of "token TTL" in lexical mode over docs and sessions:
// two session chunks hold both words, docs/mcp.md holds "token". Over
// every hit it scored 0.71 (capped from 0.82: term share over the best
// 0.5, lexical rank 3) beside the sessions and 0.32 alone (share over the
// best 1, rank 1); the second docs hit moved the same way.
func TestCorpusSignals(t *testing.T) {
	both := cairn.HitSignals{Match: 1.57, AllWords: true, Held: 2, Terms: 1, Cover: 1, KnownCover: 1, Rarest: 0.577, Known: 1}
	token := cairn.HitSignals{Match: 0.542, Held: 1, Terms: 0.5, Cover: 0.305, KnownCover: 0.305, Rarest: 0.254, Known: 1}
	weaker := token
	weaker.Match = 0.42
	mixed := []cairn.Hit{{Corpus: "sessions", Path: "s1"}, {Corpus: "sessions", Path: "s2"}, {Corpus: "docs", Path: "mcp.md"}, {Corpus: "docs", Path: "eval.md"}}
	for i, s := range []cairn.HitSignals{both, both, token, weaker} {
		s.LexRank = i + 1
		mixed[i].Signals = &s
	}
	alone := []cairn.Hit{{Corpus: "docs", Path: "mcp.md"}, {Corpus: "docs", Path: "eval.md"}}
	for i, s := range []cairn.HitSignals{token, weaker} {
		s.LexRank = i + 1
		alone[i].Signals = &s
	}
	m := Models[cairn.ModeLexical]
	got := Calibrate(mixed, cairn.ModeLexical, 0, false)
	want := Calibrate(alone, cairn.ModeLexical, 0, false)
	if len(got) != 4 || len(want) != 2 {
		t.Fatalf("kept %d and %d hits, want 4 and 2", len(got), len(want))
	}
	for k, i := range []int{2, 3} {
		g, w := got[i], want[k]
		if math.Abs(g.Score-w.Score) > 1e-12 {
			t.Errorf("%s scores %.4f beside the sessions, %.4f alone", g.Path, g.Score, w.Score)
		}
		if g.Signals.TopTerms != 0.5 || g.Signals.LexRank != k+1 {
			t.Errorf("%s: TopTerms %.2f, LexRank %d; want its corpus's 0.5 and %d", g.Path, g.Signals.TopTerms, g.Signals.LexRank, k+1)
		}
	}
	if got[2].Score >= m.Caps[1] {
		t.Errorf("mcp.md scores %.4f, at the cap %.2f: its corpus holds the query's words apart", got[2].Score, m.Caps[1])
	}
	// The sessions' hits keep the signals of their own corpus.
	if got[0].Signals.TopTerms != 1 || got[1].Signals.LexRank != 2 || got[0].Score < 0.9 {
		t.Errorf("session hit: TopTerms %.2f, second's rank %d, score %.4f", got[0].Signals.TopTerms, got[1].Signals.LexRank, got[0].Score)
	}
}

// TestCorpusSignalsCosine: over hits of several corpora, the vector
// lane's tenth cosine (TopCosine less CosGap), from which cosabove
// measures, stays the lane's, and the best cosine is the corpus's.
func TestCorpusSignalsCosine(t *testing.T) {
	hits := []cairn.Hit{{Corpus: "a"}, {Corpus: "b"}, {Corpus: "a"}, {Corpus: "b"}}
	cos := []float64{0.8, 0.6, 0.5, 0.4}
	sigs := make([]cairn.HitSignals, len(hits))
	for i := range sigs {
		sigs[i] = cairn.HitSignals{Cosine: cos[i], VecRank: i + 1, CosGap: 0.5, Known: 1, Rows: 1000, Held: 1, Terms: 0.5}
	}
	before := append([]cairn.HitSignals(nil), sigs...)
	QuerySignals(before)
	CorpusSignals(hits, sigs)
	for i, s := range sigs {
		if math.Abs(cosAbove(s)-cosAbove(before[i])) > 1e-12 {
			t.Errorf("hit %d: cosabove %.3f, %.3f over every hit", i, cosAbove(s), cosAbove(before[i]))
		}
		if s.Known != 1 || s.Rows != 1000 {
			t.Errorf("hit %d: Known %.2f Rows %d, want the query's", i, s.Known, s.Rows)
		}
	}
	// A hit holding none of the query's words keeps the signals over every
	// hit: another corpus's hit holding them tells against it (noterms).
	words := []cairn.Hit{{Corpus: "a"}, {Corpus: "b"}}
	ws := []cairn.HitSignals{{Held: 2, Terms: 1, LexRank: 1}, {Cosine: 0.5, VecRank: 1}}
	CorpusSignals(words, ws)
	if ws[1].TopTerms != 1 || features["noterms"](ws[1]) != 1 || ws[0].TopTerms != 1 {
		t.Errorf("a hit of no word beside one of every word: TopTerms %.2f, noterms %.0f", ws[1].TopTerms, features["noterms"](ws[1]))
	}
	if sigs[1].TopCosine != 0.6 || sigs[3].NextCosine != 0.4 || sigs[3].VecRank != 2 || sigs[2].VecRank != 2 || sigs[0].TopCosine != 0.8 {
		t.Errorf("corpus b: top %.2f next %.2f, ranks %d %d", sigs[1].TopCosine, sigs[3].NextCosine, sigs[3].VecRank, sigs[2].VecRank)
	}
}

// TestCapKeepsOrder: hits the model puts above a partial-term cap keep
// their order under it instead of tying at it (ux F8: seven hybrid hits at
// 0.71), scores still never rise down the list, and the cap changes
// nothing at or under its knee, nothing for an uncapped hit, and never
// takes a hit at or above the default minimum score under it.
func TestCapKeepsOrder(t *testing.T) {
	m := Models[cairn.ModeLexical]
	var sigs []cairn.HitSignals
	for i, match := range []float64{1.6, 1.2, 0.9, 0.7} { // two of four words, strong to weaker BM25
		sigs = append(sigs, cairn.HitSignals{Match: match, LexRank: i + 1, Held: 2, Terms: 0.5, Cover: 0.4, KnownCover: 0.4, Rarest: 0.5, Known: 1})
	}
	QuerySignals(sigs)
	scores := m.Scores(sigs)
	for i, s := range sigs {
		if p := m.Probability(m.Inputs(s)); p <= m.Caps[1] {
			t.Fatalf("fixture: hit %d's probability %.3f is under the cap %.2f", i, p, m.Caps[1])
		}
		if scores[i] > m.Caps[1] || scores[i] <= m.Caps[1]-CapBand {
			t.Errorf("hit %d scores %.4f, want in (%.2f, %.2f]", i, scores[i], m.Caps[1]-CapBand, m.Caps[1])
		}
		if i > 0 && scores[i] >= scores[i-1] {
			t.Errorf("hit %d scores %.4f, not under hit %d's %.4f: the cap ties them", i, scores[i], i-1, scores[i-1])
		}
	}
	prev := 0.0
	for p := 0.0; p <= MaxScore; p += 0.001 {
		for _, c := range m.Caps {
			g := capScore(p, c)
			if g > c || g > p || p >= cairn.DefaultMinScore && g < cairn.DefaultMinScore || p <= c-CapBand && g != p {
				t.Errorf("capScore(%.3f, %.2f) = %.4f", p, c, g)
			}
		}
		if g := capScore(p, m.Caps[1]); g < prev {
			t.Errorf("capScore(%.3f) = %.4f falls under %.4f", p, g, prev)
		} else {
			prev = g
		}
		if capScore(p, MaxScore) != p {
			t.Errorf("an uncapped %.3f becomes %.4f", p, capScore(p, MaxScore))
		}
	}
}
