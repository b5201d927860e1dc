package search

import (
	"fmt"
	"math"
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

// Feature names per mode, in the order of a model's weights after the bias.
var featureNames = map[string][]string{
	cairn.ModeLexical: {"match", "allwords", "lnrank", "topmatch", "known"},
	cairn.ModeVector:  {"cos", "lnrank", "topcos"},
	cairn.ModeHybrid:  {"match", "allwords", "lex", "lnlexrank", "cos", "lnvecrank", "topmatch", "topcos", "known"},
}

// Model is one mode's logistic model: Weights[0] is the bias, the rest
// weigh the features FeatureNames lists.
type Model struct {
	Weights []float64
}

// Models are the fitted models: bench/cmd/calibrate -fit, cross 0.1, pos
// 0.5, l2 1, on the LoCoMo development split, the ranking fixture and 40
// off-topic queries (bench/RESULTS.md, "Calibrated scores").
var Models = map[string]Model{
	cairn.ModeLexical: {Weights: []float64{-11.4699, 5.8107, 0.6089, -0.5965, 8.9038, 9.1668}},
	cairn.ModeVector:  {Weights: []float64{-9.1604, 7.2100, -0.5382, 19.6395}},
	cairn.ModeHybrid:  {Weights: []float64{-13.7466, 4.8536, 0.5777, 2.1521, -0.2031, 7.4826, -0.1378, 6.1292, 13.3903, 3.4583}},
}

// FeatureNames returns the names of mode's features.
func FeatureNames(mode string) []string { return featureNames[mode] }

// Features returns the inputs of mode's model for one hit's signals.
func Features(mode string, s cairn.HitSignals) []float64 {
	lnrank := func(r int) float64 {
		if r <= 0 {
			return 0
		}
		return math.Log(float64(r))
	}
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	switch mode {
	case cairn.ModeLexical:
		return []float64{s.Match, b(s.AllWords), lnrank(s.LexRank), s.TopMatch, s.Known}
	case cairn.ModeVector:
		return []float64{s.Cosine, lnrank(s.VecRank), s.TopCosine}
	}
	return []float64{s.Match, b(s.AllWords), b(s.LexRank > 0), lnrank(s.LexRank), s.Cosine, lnrank(s.VecRank), s.TopMatch, s.TopCosine, s.Known}
}

// MaxScore is the highest score a hit gets: the model never claims
// certainty (a handful of examples cannot back 1.0), and a minimum score
// of 1 returns nothing.
const MaxScore = 0.99

// Probability is the model's output for features x, at most MaxScore.
func (m Model) Probability(x []float64) float64 {
	z := m.Weights[0]
	for i, v := range x {
		z += m.Weights[i+1] * v
	}
	return min(1/(1+math.Exp(-z)), MaxScore)
}

// Calibrate sets the score of hits, in rank order, from their signals
// under mode's model (mode names the lanes that ran: hybrid with the
// vector lane off is lexical) and drops those below minScore. The query's
// best signals are taken over hits first. A hit never scores above the
// one ranked before it: the order is the lanes' (fusion's), and a score
// that rose down the list would say the ranking is wrong where the model
// is only noisier than it, so a minimum score cuts a tail, never a hole.
// With explain, each hit's explanation ends with the model's inputs and
// weights.
func Calibrate(hits []cairn.Hit, mode string, minScore float64, explain bool) []cairn.Hit {
	m, ok := Models[mode]
	if !ok {
		return hits
	}
	var top cairn.HitSignals
	for _, h := range hits {
		if h.Signals != nil {
			top.TopMatch = max(top.TopMatch, h.Signals.Match)
			top.TopCosine = max(top.TopCosine, h.Signals.Cosine)
			top.Known = max(top.Known, h.Signals.Known)
		}
	}
	out := hits[:0]
	prev := 1.0
	for _, h := range hits {
		s := cairn.HitSignals{}
		if h.Signals != nil {
			s = *h.Signals
		}
		s.TopMatch, s.TopCosine, s.Known = top.TopMatch, top.TopCosine, top.Known
		x := Features(mode, s)
		p := min(m.Probability(x), prev)
		prev = p
		if p < minScore {
			break
		}
		h.Signals, h.Score = &s, p
		if explain {
			h.Explain = append(h.Explain, explainModel(mode, m, x, p))
		}
		out = append(out, h)
	}
	return out
}

// explainModel writes "score(0.8123) = σ(-4.00 + 3.00×match(0.91) + …)".
func explainModel(mode string, m Model, x []float64, p float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "score(%.4f) = %s model σ(%.2f", p, mode, m.Weights[0])
	for i, name := range featureNames[mode] {
		fmt.Fprintf(&b, " %+.2f×%s(%.3f)", m.Weights[i+1], name, x[i])
	}
	b.WriteString(")")
	return b.String()
}
