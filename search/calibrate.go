package search

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
)

// A search's score is the probability that a hit is a real match for the
// query, from a small logistic model over the signals its lanes measured
// (cairn.HitSignals): how much of the query's IDF weight the chunk matches,
// whether it holds every term, the cosine of the embeddings, the lane
// ranks, and the best match and cosine of the query over all its
// candidates, which tell a query the index can answer from one it cannot.
// Each mode has its own weights over the signals it has, fitted on the
// LoCoMo development split and the ranking fixture (bench/cmd/calibrate;
// docs/design.md, "Calibrated scores"), so 0.3 means the same in every
// mode, and a minimum score cuts on it.

// Model is one mode's logistic model: Weights[0] is the bias, the rest
// weigh the features Features names (keys of the feature table below).
type Model struct {
	Features []string
	Weights  []float64
	// Caps are the highest scores of a hit holding a quarter and a half
	// of the query's terms (TermsCap).
	Caps []float64
}

// Models are the fitted models (bench/cmd/calibrate -fit, l2 1, cross 0.1;
// bench/RESULTS.md, "Calibrated scores at every index size"), on the
// LoCoMo development split, the ranking fixture, small indexes of 3 and 5
// of its notes, mid-sized indexes of its notes beside 100 and 300
// generated ones (about 1,100 and 3,200 chunks) and 108 off-topic
// queries. Every input is a hit's own evidence (the words its chunk holds,
// its BM25 over the query's ideal, its cosine, its lane ranks) or the
// query's signals as a factor of that evidence (termstop, cosabove,
// cosunknown, termsunknown, cossym, ...): none is the query's alone, so a
// hit with no evidence of its own scores the bias (0.002 in vector and hybrid mode), whatever
// the other hits hold (TestNoEvidenceNoScore). The previous models added
// the query's best term share and best cosine to every hit, and in a
// 3,200-chunk index six chunks holding none of the words of "zanzibar
// quokka flamingo handshake" scored 0.78 to 0.88 in hybrid mode beside the
// note that holds "quokka" (engine TestMidIndexScores). The priors (-pos,
// the answers' share of the weight) and shares (-fixture for the fixture
// and small indexes' answers, -mid for the mid-sized ones', -para for the
// paraphrases', -others for a fixture question's other notes) were chosen
// on the cross-validated numbers (leave one conversation and a sixth of the
// off-topic queries out; leave one mid-sized index out): lexical pos 0.35
// fixture 0.3 mid 0.03; vector pos 0.2 fixture 0.1 and hybrid pos 0.2
// fixture 0.3, both others 0.1 para 0.02 mid 0.03; hybrid over the fusion
// of ce521c9 (Lean 0.5 by rarest cover, Context 0.3). Lexical mode has no
// index size (its Rows is 0), so its unknown-word factors are 0 and left
// out.
var Models = map[string]Model{
	cairn.ModeLexical: {Features: []string{"match", "lnrank", "kcover", "held", "rarest", "cover", "termstop", "termsratio", "knownterms", "termssym"},
		Weights: []float64{-3.8694, 5.2892, -0.7763, 2.9222, 3.4678, 3.6507, -8.1955, 1.7698, -6.8753, 7.8011, -8.9681},
		Caps:    []float64{0.35, 0.71}},
	cairn.ModeVector: {Features: []string{"cos", "lnrank", "cosabove", "cosratio", "cosunknown", "cossym", "cossymunknown", "cossmall", "held", "terms", "cover", "termstop", "termsratio", "termsunknown", "termssym", "noterms"},
		Weights: []float64{-6.1001, 10.1469, -0.1473, 5.6721, -0.4811, -7.1577, -5.7767, -2.6972, -0.2094, 3.1311, 9.0053, -5.8621, 8.9923, -4.1212, 1.2848, -1.4649, -0.5657},
		Caps:    []float64{0.44, 0.83}},
	cairn.ModeHybrid: {Features: []string{"match", "lex", "lnlexrank", "cover", "held", "terms", "termstop", "termsratio", "termsunknown", "termssym", "cos", "lnvecrank", "cosabove", "cosratio", "cosunknown", "cossym", "cossymunknown", "cossmall", "noterms"},
		Weights: []float64{-5.8104, 1.9336, -0.2086, -0.1389, -2.6864, 2.7245, 4.2696, 9.2907, -3.1250, -2.3622, -3.1051, 10.1932, -0.1136, 5.1039, -1.1985, -5.4221, -6.3467, -3.0546, 0.8626, -1.1849},
		Caps:    []float64{0.35, 0.71}},
}

// features are the inputs a model may use, by name: a hit's own signals
// and, from "top" on, the query's, which every hit of a search shares.
var features = map[string]func(s cairn.HitSignals) float64{
	"match":     func(s cairn.HitSignals) float64 { return s.Match },
	"allwords":  func(s cairn.HitSignals) float64 { return b2f(s.AllWords) },
	"lex":       func(s cairn.HitSignals) float64 { return b2f(s.LexRank > 0) },
	"lnrank":    func(s cairn.HitSignals) float64 { return lnrank(max(s.LexRank, s.VecRank)) },
	"lnlexrank": func(s cairn.HitSignals) float64 { return lnrank(s.LexRank) },
	"lnvecrank": func(s cairn.HitSignals) float64 { return lnrank(s.VecRank) },
	"cos":       func(s cairn.HitSignals) float64 { return s.Cosine },
	"terms":     func(s cairn.HitSignals) float64 { return s.Terms },
	"cover":     func(s cairn.HitSignals) float64 { return s.Cover },
	"kcover":    func(s cairn.HitSignals) float64 { return s.KnownCover },
	"rarest":    func(s cairn.HitSignals) float64 { return s.Rarest },
	"miss":      func(s cairn.HitSignals) float64 { return s.Miss },
	// held counts up to 3: past that a chunk holds "enough" of a query.
	"held":     func(s cairn.HitSignals) float64 { return float64(min(s.Held, 3)) },
	"matchcos": func(s cairn.HitSignals) float64 { return s.Match * s.Cosine },
	"known":    func(s cairn.HitSignals) float64 { return s.Known },
	// fewknown: under 40% of the query's terms are in the index. Of the
	// LoCoMo development questions with an answer among their hybrid hits,
	// 1 of 745 is; of the off-topic fit searches with hybrid hits, 452 of
	// 679. Unused for now, with known, in vector and hybrid (see Models).
	"fewknown": func(s cairn.HitSignals) float64 { return b2f(s.Known < 0.4) },
	// unknown: the share of the query's terms in no chunk, weighed by the
	// index's size (sizeWeight), so that a paraphrase sharing no word
	// with a three-note index is not taken for nonsense.
	"unknown": func(s cairn.HitSignals) float64 { return (1 - s.Known) * sizeWeight(s.Rows) },
	"cosgap":  func(s cairn.HitSignals) float64 { return s.CosGap },
	// symbols: the query's share of markup and operator characters
	// (search.QuerySymbols).
	"symbols": func(s cairn.HitSignals) float64 { return s.Symbols },
	// symunknown: markup (a fifth of the query's characters or more
	// counts in full) times the share of its words the index does not
	// know: markup of words in no
	// note, "<script>alert(1)</script>", against a search for code the
	// notes hold.
	"symunknown": func(s cairn.HitSignals) float64 { return min(1, 5*s.Symbols) * (1 - s.Known) },
	// veconly: a hit of the vector lane alone in a search whose words some
	// hit holds; vecsmall weighs it by how small the index is (small: 1 -
	// sizeWeight; in a small index the lexical lane holds every chunk with
	// a word of the query, so such a hit holds none).
	"veconly": func(s cairn.HitSignals) float64 { return b2f(s.LexRank == 0 && s.TopTerms > 0) },
	"vecsmall": func(s cairn.HitSignals) float64 {
		return b2f(s.LexRank == 0 && s.TopTerms > 0) * (1 - sizeWeight(s.Rows))
	},
	"small": func(s cairn.HitSignals) float64 { return 1 - sizeWeight(s.Rows) },
	// sepsmall: how far the best cosine stands above the next, over the
	// best, weighed by how small the index is (small): a paraphrase of one
	// of five notes is near that note and far from the rest; nonsense sits
	// at one distance from all of them.
	"sepsmall": func(s cairn.HitSignals) float64 {
		return ratio(s.TopCosine-s.NextCosine, s.TopCosine) * (1 - sizeWeight(s.Rows))
	},
	// cosgapw: cosgap weighed by the index's size; in an index of a few
	// chunks the lane's last cosine is any note's, and the gap says
	// little.
	"cosgapw": func(s cairn.HitSignals) float64 { return s.CosGap * sizeWeight(s.Rows) },
	// cosratio and termsratio: the hit's cosine and term share over the
	// best of the search, its own evidence beside the query's.
	"cosratio":   func(s cairn.HitSignals) float64 { return ratio(s.Cosine, s.TopCosine) },
	"termsratio": func(s cairn.HitSignals) float64 { return ratio(s.Terms, s.TopTerms) },
	// The query's signals as factors of a hit's own evidence. A query
	// signal added alone lifts every hit of a search alike: in an index
	// of a few thousand chunks, a query one note answers ("zanzibar
	// quokka flamingo handshake": topterms 1, topcos 0.73) lifted six
	// chunks holding none of its words, cosines 0.36 to 0.40, to 0.78 to
	// 0.88. Each of these is 0 for a hit with no evidence of its own (no
	// word held, no cosine), so only the model's bias is left for it
	// (TestNoEvidenceNoScore).
	//
	// termstop: the hit's share of the query's terms times the best share
	// of any hit (a query the index answers well weighs a hit's words
	// more).
	"termstop": func(s cairn.HitSignals) float64 { return s.Terms * s.TopTerms },
	// rarecover: the IDF share of the known terms the hit holds times its
	// rarest term's weight: a chunk that holds every word of the query the
	// index knows, and those words are rare.
	"rarecover": func(s cairn.HitSignals) float64 { return s.Rarest * s.KnownCover },
	// knownterms: the hit's share of terms times the query's share of
	// known words.
	"knownterms": func(s cairn.HitSignals) float64 { return s.Terms * s.Known },
	// cosabove: how far the hit's cosine stands above the vector lane's
	// tenth candidate's (TopCosine - CosGap); a query near nothing in
	// particular meets a flat run of cosines, and no hit stands above it.
	"cosabove": func(s cairn.HitSignals) float64 { return cosAbove(s) },
	// cosmargin: the best cosine times the hit's place in the lane's
	// spread (cosabove over CosGap, 0..1).
	"cosmargin": func(s cairn.HitSignals) float64 { return s.TopCosine * ratio(cosAbove(s), s.CosGap) },
	// cosunknown: the cosine where the query holds words the index does not
	// know (weighed by size as unknown is): an encoder's view of nonsense.
	"cosunknown": func(s cairn.HitSignals) float64 { return s.Cosine * (1 - s.Known) * sizeWeight(s.Rows) },
	// cossym: the cosine where the query is markup (symbols, a fifth or
	// more in full); cossymunknown the same times the unknown share.
	"cossym":        func(s cairn.HitSignals) float64 { return s.Cosine * min(1, 5*s.Symbols) },
	"cossymunknown": func(s cairn.HitSignals) float64 { return s.Cosine * min(1, 5*s.Symbols) * (1 - s.Known) },
	// termsunknown and termssym: the hit's share of terms where the query
	// holds words the index does not know (by size, as unknown) or is
	// markup: a word held beside nonsense or code says less.
	"termsunknown": func(s cairn.HitSignals) float64 { return s.Terms * (1 - s.Known) * sizeWeight(s.Rows) },
	"termssym":     func(s cairn.HitSignals) float64 { return s.Terms * min(1, 5*s.Symbols) },
	// oneunknown: the hit holds one word of the query and the query holds
	// words the index does not know (by size, as unknown): "how do
	// airplanes fly" meeting a chunk on "fly".
	"oneunknown": func(s cairn.HitSignals) float64 { return b2f(s.Held == 1) * (1 - s.Known) * sizeWeight(s.Rows) },
	// cossmall: the cosine weighed by how small the index is (small).
	"cossmall": func(s cairn.HitSignals) float64 { return s.Cosine * (1 - sizeWeight(s.Rows)) },
	// leadsmall: the hit's lead in cosine over the next best hit, over its
	// cosine, by smallness: only the best hit has one. A paraphrase of one
	// of five notes is near that note and far from the rest; nonsense sits
	// at one distance from all of them.
	"leadsmall": func(s cairn.HitSignals) float64 {
		if s.Cosine < s.TopCosine {
			return 0
		}
		return ratio(s.Cosine-s.NextCosine, s.Cosine) * (1 - sizeWeight(s.Rows))
	},
	// noterms: the hit holds none of the query's words where another hit
	// holds some (a vector hit beside lexical ones): a lack of evidence,
	// which can only lower a score once fitted (its weight is negative).
	"noterms":  func(s cairn.HitSignals) float64 { return b2f(s.Held == 0 && s.TopTerms > 0) },
	"topmatch": func(s cairn.HitSignals) float64 { return s.TopMatch },
	"topcos":   func(s cairn.HitSignals) float64 { return s.TopCosine },
	"topterms": func(s cairn.HitSignals) float64 { return s.TopTerms },
}

// sizeWeight is how much a word absent from an index of rows chunks
// tells: log10(rows)/4, at most 1 (10,000 chunks or more). Chosen before
// fitting, not fitted: three notes weigh 0.12, a thousand chunks 0.75. A
// real question's word is absent from a small index by chance, from a
// large one rarely.
func sizeWeight(rows int64) float64 {
	if rows <= 1 {
		return 0
	}
	return min(1, math.Log10(float64(rows))/4)
}

// cosAbove is how far s's cosine stands above the vector lane's tenth
// candidate's (TopCosine - CosGap), 0 for a hit the lane did not bring.
func cosAbove(s cairn.HitSignals) float64 {
	if s.Cosine <= 0 {
		return 0
	}
	return max(0, s.Cosine-(s.TopCosine-s.CosGap))
}

// ratio is a over b, 0 when b is not positive, at most 1.
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return min(max(a, 0)/b, 1)
}

func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

func lnrank(r int) float64 {
	if r <= 0 {
		return 0
	}
	return math.Log(float64(r))
}

// FeatureNames returns the names of mode's features.
func FeatureNames(mode string) []string { return Models[mode].Features }

// HasFeature reports whether name is a feature a model can use.
func HasFeature(name string) bool { return features[name] != nil }

// Inputs returns the model's inputs for one hit's signals.
func (m Model) Inputs(s cairn.HitSignals) []float64 {
	x := make([]float64, len(m.Features))
	for i, name := range m.Features {
		x[i] = features[name](s)
	}
	return x
}

// Features returns the inputs of mode's model for one hit's signals.
func Features(mode string, s cairn.HitSignals) []float64 { return Models[mode].Inputs(s) }

// MaxScore is the highest score a hit gets: the model never claims
// certainty (a handful of examples cannot back 1.0), and a minimum score
// of 1 returns nothing.
const MaxScore = 0.99

// Probability is the model's output for features x, at most MaxScore.
func (m Model) Probability(x []float64) float64 { return min(m.logistic(x), MaxScore) }

// logistic is the model's output for x before MaxScore: capScore orders
// the hits the model puts above a cap by it, those at MaxScore too.
func (m Model) logistic(x []float64) float64 {
	z := m.Weights[0]
	for i, v := range x {
		z += m.Weights[i+1] * v
	}
	return 1 / (1 + math.Exp(-z))
}

// QuerySignals sets the query's best signals, over hits (one search's, in
// rank order), on every hit: TopMatch, TopCosine, NextCosine, TopTerms, and Known,
// Rows and CosGap where some hits lack them (hybrid hits of one lane).
func QuerySignals(hits []cairn.HitSignals) {
	var top cairn.HitSignals
	for _, s := range hits {
		top.TopMatch = max(top.TopMatch, s.Match)
		if s.Cosine > top.TopCosine {
			top.NextCosine, top.TopCosine = top.TopCosine, s.Cosine
		} else {
			top.NextCosine = max(top.NextCosine, s.Cosine)
		}
		top.TopTerms = max(top.TopTerms, s.Terms)
		top.Known = max(top.Known, s.Known)
		top.CosGap = max(top.CosGap, s.CosGap)
		top.Rows = max(top.Rows, s.Rows)
	}
	for i := range hits {
		s := &hits[i]
		s.TopMatch, s.TopCosine, s.TopTerms, s.Known, s.CosGap, s.Rows = top.TopMatch, top.TopCosine, top.TopTerms, top.Known, top.CosGap, top.Rows
		s.NextCosine = top.NextCosine
	}
}

// Scores returns the scores of one search's hits (their signals in rank
// order, QuerySignals already set) under m. A hit scores the model's
// probability for it or, when higher, that of a hit ranked below it: scores
// never rise down the list, and a minimum score cuts the tail after the
// last hit the model believes, never that hit nor the hits the lanes rank
// above it. (Taking the lowest probability so far instead, the first
// version, let one weak hit at rank 1 cut an answer at rank 3: 0.6 points
// of the lexical recall@10 lost at 0.3 went that way.)
func (m Model) Scores(hits []cairn.HitSignals) []float64 {
	out := make([]float64, len(hits))
	best := 0.0
	for i := len(hits) - 1; i >= 0; i-- {
		best = max(best, m.own(hits[i]))
		out[i] = best
	}
	return out
}

// TermsCap is the highest probability m gives a hit that holds only part
// of the query's words: in an index of a few hundred chunks the logistic
// model saturates, and a hit holding half the words (a parameter table
// that names "sync" and "files") scored MaxScore beside the chunk that
// answers "how does sync skip unchanged files" (the quickstart's docs,
// engine TestPartialTermsCapped). The caps are the share of relevant hits
// among the first ten on-topic hits of the fit's small indexes, the
// ranking fixture and the mid-sized indexes, by the hit's term share
// rounded to quarters (bench/RESULTS.md, "Partial-term caps"): lexical
// and hybrid a quarter 23 of 66 (0.35), a half 50 of 70 (0.71); vector
// 20 of 45 (0.44) and 44 of 53 (0.83); three quarters and more every
// one relevant, so no cap. Every cap is above the default minimum score,
// so it never drops a hit at 0.3: it orders the scores above it. A hit
// holding no word (a vector hit) is not capped by words.
func (m Model) TermsCap(s cairn.HitSignals) float64 {
	if s.Held == 0 || s.Terms >= 0.625 || len(m.Caps) < 2 {
		return MaxScore
	}
	if s.Terms < 0.375 {
		return m.Caps[0]
	}
	return m.Caps[1]
}

// CorpusSignals sets the query's signals on sigs, the signals of hits (one
// search's, in rank order), as QuerySignals does, but with the query's
// best signals (TopTerms, TopMatch, TopCosine, NextCosine) and each hit's
// lane ranks taken over the hits of its own corpus: a hit scores as it
// would in a search of its corpus alone, whatever else was searched beside
// it. Over all hits, a note of docs holding "token" of "token TTL" scored
// 0.71 (0.82 capped) beside sessions holding both words, and 0.32 with
// --corpus docs: its term share over the best (termsratio, weight -6.9)
// was 0.5 instead of 1, its term share times the best (termstop) 0.5
// instead of 0.25, and its lexical rank 8 instead of 1 (ux F19, F8). The
// models were fitted on searches of one corpus, where the two are the
// same. A hit holding none of the query's words keeps the signals over
// every hit: that a hit of any corpus holds them tells against it
// (noterms, a weight of -1.18 in hybrid mode). Without it, session turns
// the vector lane alone found for "timeout 5000", beside the one note
// holding both words, scored 0.49 and raised a turn above them from 0.06
// (engine TestHybridMixedLexicalFirst). A rank in a corpus is the lane's
// rank less the hits of other
// corpora ranked above it in the lane among hits: exact for the lexical
// lane, whose ranks are the places of its hits; in hybrid, a lane
// candidate of another corpus that fusion left out still counts. Known,
// Rows, Symbols and the vector lane's spread stay the query's over every
// hit: CosGap is set so that the lane's tenth cosine (TopCosine less
// CosGap), which cosabove measures from, stays the lane's.
func CorpusSignals(hits []cairn.Hit, sigs []cairn.HitSignals) {
	QuerySignals(sigs)
	var names []string
	for _, h := range hits {
		if !slices.Contains(names, h.Corpus) {
			names = append(names, h.Corpus)
		}
	}
	if len(names) < 2 {
		return
	}
	all := sigs[0] // the query's signals over every hit
	tenth := all.TopCosine - all.CosGap
	for _, name := range names {
		var idx []int
		for i, h := range hits {
			if h.Corpus == name {
				idx = append(idx, i)
			}
		}
		sub := make([]cairn.HitSignals, len(idx))
		for k, i := range idx {
			s := sigs[i]
			s.LexRank, s.VecRank = s.LexRank-othersAbove(hits, sigs, i, lexRank), s.VecRank-othersAbove(hits, sigs, i, vecRank)
			sub[k] = s
		}
		QuerySignals(sub)
		for k, i := range idx {
			if sigs[i].Held == 0 {
				continue // judged against every hit (noterms), as before
			}
			s := sub[k]
			s.Known, s.Rows = all.Known, all.Rows
			s.CosGap = 0
			if all.CosGap > 0 {
				s.CosGap = max(0, s.TopCosine-tenth)
			}
			sigs[i] = s
		}
	}
}

func lexRank(s cairn.HitSignals) int { return s.LexRank }
func vecRank(s cairn.HitSignals) int { return s.VecRank }

// othersAbove counts the hits of corpora other than hits[i]'s that a lane
// (rank) ranks above it; 0 where the lane did not bring hits[i].
func othersAbove(hits []cairn.Hit, sigs []cairn.HitSignals, i int, rank func(cairn.HitSignals) int) int {
	r := rank(sigs[i])
	if r <= 0 {
		return 0
	}
	n := 0
	for j, h := range hits {
		if rj := rank(sigs[j]); h.Corpus != hits[i].Corpus && rj > 0 && rj < r {
			n++
		}
	}
	return n
}

// CapBand is the width under a partial-term cap into which capScore
// presses the probabilities above its knee.
const CapBand = 0.05

// capScore is probability p (the model's, before MaxScore) held at or
// under cap c in p's order: p itself up to the knee (c less CapBand, never
// under cairn.DefaultMinScore), and above it p's place between the knee
// and 1 pressed into the knee to c. With min(p, c), every hit the model
// put above a cap tied at it: "token TTL" in hybrid mode over this
// repository's docs gave four hits at 0.71, whose probabilities were 0.74
// to 0.89; now 0.693, 0.692, 0.689 and 0.671 (ux F8). A hit at or above the
// default minimum score stays there (the knee is not under it), so the
// hits a search keeps at 0.3 are those min(p, c) kept; a probability at or
// under the knee is unchanged, and one above it loses at most CapBand.
func capScore(p, c float64) float64 {
	if c >= MaxScore {
		return min(p, MaxScore) // not capped
	}
	knee := min(c, max(c-CapBand, cairn.DefaultMinScore))
	if p <= knee {
		return p
	}
	return knee + (c-knee)*(p-knee)/(1-knee)
}

// Calibrate sets the score of hits, in rank order, from their signals
// under mode's model (mode names the lanes that ran: hybrid with the
// vector lane off is lexical) and drops those below minScore. The query's
// signals are taken over hits first, its best ones and the lane ranks over
// the hits of each hit's corpus (CorpusSignals). A search of files corpora
// alone is then ranked by the model (ByModel). Otherwise a hit never
// scores above the one ranked before it (Scores): the order is the lanes'
// (fusion's), and a score that rose down the list would say the ranking is
// wrong where the model is only noisier than it, so a minimum score cuts a
// tail, never a hole. With explain, each hit's explanation ends with the
// model's inputs and weights, and the probability it was raised from.
func Calibrate(hits []cairn.Hit, mode string, minScore float64, explain bool) []cairn.Hit {
	m, ok := Models[mode]
	if !ok {
		return hits
	}
	sigs := make([]cairn.HitSignals, len(hits))
	for i, h := range hits {
		if h.Signals != nil {
			sigs[i] = *h.Signals
		}
	}
	CorpusSignals(hits, sigs)
	var scores []float64
	var from []int // a hit's place in the lanes' order, when ranked by the model
	if ByModel && documentsOnly(hits) {
		hits, sigs, scores, from = rankByModel(m, hits, sigs)
	} else {
		scores = m.Scores(sigs)
	}
	out := hits[:0]
	for i, h := range hits {
		p := scores[i]
		if p < minScore {
			break
		}
		s := sigs[i]
		h.Signals, h.Score = &s, p
		if explain && from != nil && from[i] != i {
			h.Explain = append(h.Explain, fmt.Sprintf("ranked by the model from place %d", from[i]+1))
		}
		if explain {
			x := m.Inputs(s)
			e := explainModel(mode, m, x, p)
			own := m.Probability(x)
			if c := m.TermsCap(s); capScore(m.logistic(x), c) < own {
				own = capScore(m.logistic(x), c)
				e += fmt.Sprintf(" held under the cap %.2f (%.4f) for a hit holding %.2f of the terms", c, own, s.Terms)
			}
			if own < p {
				e += fmt.Sprintf(" raised from %.4f by a hit below", own)
			}
			h.Explain = append(h.Explain, e)
		}
		out = append(out, h)
	}
	return out
}

// ByModel ranks the hits of a search of files corpora alone by the model's
// probability for each (Model.own) instead of the lanes' order, which
// Calibrate otherwise keeps, raising a hit to the best probability below
// it (Scores). Over a docs corpus (/tmp/i1docs: 561 Markdown files,
// 31,616 chunks, onnx use-lite), 109 of the 144 top-3 hits of 48
// hand-judged queries scored 0.99 in either mode, and 44% of those were
// relevant; of the 0.99 and 0.9x hits raised from below, 1 of 13 in
// lexical mode and 1 of 13 in hybrid. Ranked by the model, the queries with a
// relevant first / top-3 hit went from 29 / 36 to 29 / 37 in lexical mode and
// from 30 / 37 to 31 / 37 in hybrid (28 new hits judged, none relevant;
// bench/RESULTS.md, session 12-04c, hd2). Sessions and memories keep the
// lanes' order: their ranking was fitted and measured on LoCoMo in that
// order (TestFusionSweep answers the same, question by question), and a
// list holding any of their hits keeps it whole.
var ByModel = true

// documentsOnly reports whether no hit comes from the sessions corpus or
// the memories corpus (a search of files corpora alone).
func documentsOnly(hits []cairn.Hit) bool {
	for _, h := range hits {
		if h.Corpus == sessionsCorpus || h.Corpus == cairn.MemoriesCorpus {
			return false
		}
	}
	return true
}

// sessionsCorpus is the name of the one sessions corpus (config enforces
// it).
const sessionsCorpus = "sessions"

// own is m's probability for one hit, held under its partial-term cap.
func (m Model) own(s cairn.HitSignals) float64 {
	return capScore(m.logistic(m.Inputs(s)), m.TermsCap(s))
}

// rankByModel orders hits by m's probability for each, best first, ties in
// the lanes' order; it returns the hits, their signals and scores in the
// new order, and each one's place before.
func rankByModel(m Model, hits []cairn.Hit, sigs []cairn.HitSignals) ([]cairn.Hit, []cairn.HitSignals, []float64, []int) {
	p := make([]float64, len(hits))
	from := make([]int, len(hits))
	for i := range hits {
		p[i], from[i] = m.own(sigs[i]), i
	}
	slices.SortStableFunc(from, func(a, b int) int { return cmp.Compare(p[b], p[a]) })
	h2 := make([]cairn.Hit, len(hits))
	s2 := make([]cairn.HitSignals, len(hits))
	p2 := make([]float64, len(hits))
	for k, i := range from {
		h2[k], s2[k], p2[k] = hits[i], sigs[i], p[i]
	}
	return h2, s2, p2, from
}

// explainModel writes "score(0.8123) = σ(-4.00 + 3.00×match(0.91) + …)".
func explainModel(mode string, m Model, x []float64, p float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "score(%.4f) = %s model σ(%.2f", p, mode, m.Weights[0])
	for i, name := range m.Features {
		fmt.Fprintf(&b, " %+.2f×%s(%.3f)", m.Weights[i+1], name, x[i])
	}
	b.WriteString(")")
	return b.String()
}
