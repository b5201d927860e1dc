package eval

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/transcript"
)

// CalibrationQuery is one search of a calibration run: a LoCoMo question
// asked of its own conversation (OnTopic: its evidence is there) or of
// another one (none of its hits can be an answer), with every hit's lane
// signals and the turns it covers.
type CalibrationQuery struct {
	Conv, Target string // the question's conversation, the one searched
	Question     string
	OnTopic      bool
	Evidence     []string
	Hits         []CalibrationHit
}

// CalibrationHit is one hit of a calibration search, in rank order.
type CalibrationHit struct {
	Signals  cairn.HitSignals
	Turns    []string // "D<session>:<n>"
	Relevant bool     // covers an evidence turn of an on-topic question
}

// LocomoCalibration asks every question (categories 1 to 4) of o.Data in
// o.Mode with no minimum score: first of its own conversation, in the order
// and over the same index Locomo scores (each conversation is asked once
// it is imported), then, once all are in, of others other conversations
// (the next ones in the file). It returns the searches with their hits'
// signals for fitting the score model (others < 0: no questions at all).
// offTopic are queries no conversation answers, asked of each one too.
func LocomoCalibration(ctx context.Context, o LocomoOptions, others int, offTopic []string) ([]CalibrationQuery, error) {
	if err := checkMode(&o.Mode, &o.Limit, o.Embedder); err != nil {
		return nil, err
	}
	samples, audit, err := loadLocomo(o)
	if err != nil {
		return nil, err
	}
	eng, closeEng, err := openEval(ctx, o.Dir, o.Embedder)
	if err != nil {
		return nil, err
	}
	defer closeEng()
	type asked struct {
		conv     string
		question string
		evidence []string
	}
	var out []CalibrationQuery
	var all []asked
	for ci, sample := range samples {
		sessions, turns, _, err := locomoSessions(sample)
		if err != nil {
			return nil, err
		}
		if _, err := eng.ImportSessions(ctx, "sessions", "locomo:"+sample.SampleID, sessions); err != nil {
			return nil, err
		}
		for qi, qa := range sample.QA {
			if qa.Category == 5 && !o.IncludeAdversarial || LocomoCategories[qa.Category] == "" {
				continue
			}
			evidence := qa.Evidence
			if fix, ok := auditEvidence(audit, ci, qi, qa.Question); ok {
				evidence = fix
			}
			ids, _ := resolveEvidence(evidence, turns)
			if len(ids) == 0 || others < 0 {
				continue
			}
			q := CalibrationQuery{Conv: sample.SampleID, Target: sample.SampleID, Question: qa.Question, OnTopic: true, Evidence: ids}
			if q.Hits, err = calibrationHits(ctx, eng, q.Target, q.Question, o, ids); err != nil {
				return nil, err
			}
			out = append(out, q)
			all = append(all, asked{sample.SampleID, qa.Question, ids})
		}
	}
	for k := 1; k <= others && k < len(samples); k++ {
		for _, a := range all {
			ci := indexOfSample(samples, a.conv)
			target := samples[(ci+k)%len(samples)].SampleID
			q := CalibrationQuery{Conv: a.conv, Target: target, Question: a.question}
			if q.Hits, err = calibrationHits(ctx, eng, target, a.question, o, nil); err != nil {
				return nil, err
			}
			out = append(out, q)
		}
	}
	for _, sample := range samples {
		for _, text := range offTopic {
			q := CalibrationQuery{Conv: sample.SampleID, Target: sample.SampleID, Question: text}
			if q.Hits, err = calibrationHits(ctx, eng, sample.SampleID, text, o, nil); err != nil {
				return nil, err
			}
			out = append(out, q)
		}
	}
	return out, nil
}

func indexOfSample(samples []locomoSample, id string) int {
	for i, s := range samples {
		if s.SampleID == id {
			return i
		}
	}
	return -1
}

// calibrationHits searches conv as retrieveTurns does, keeping each hit's
// signals and turns.
func calibrationHits(ctx context.Context, eng *engine.Engine, conv, question string, o LocomoOptions, evidence []string) ([]CalibrationHit, error) {
	hits, err := eng.Search(ctx, question, &cairn.SearchOptions{Limit: o.Limit, Mode: o.Mode, Sessions: &cairn.SessionFilter{ConversationID: conv}})
	if err != nil {
		if strings.Contains(err.Error(), "only common words") || strings.Contains(err.Error(), "no words") {
			return nil, nil
		}
		return nil, err
	}
	want := map[string]bool{}
	for _, e := range evidence {
		want[e] = true
	}
	var out []CalibrationHit
	cache := map[string][]transcript.Span{}
	for _, h := range hits {
		turns, err := hitTurns(ctx, eng, h, cache, locomoSession)
		if err != nil {
			return nil, err
		}
		ch := CalibrationHit{Turns: turns}
		if h.Signals != nil {
			ch.Signals = *h.Signals
		}
		for _, t := range turns {
			ch.Relevant = ch.Relevant || want[t]
		}
		out = append(out, ch)
	}
	return out, nil
}

// hitTurns returns the turn ids ("<session>:<n>", n by message position) a
// session hit's line range covers.
func hitTurns(ctx context.Context, eng *engine.Engine, h cairn.Hit, cache map[string][]transcript.Span, session func(string) string) ([]string, error) {
	spans, ok := cache[h.Path]
	if !ok {
		rel := strings.TrimPrefix(h.Path, engine.Scheme+h.Corpus+"/")
		var err error
		if spans, err = eng.SessionSpans(ctx, h.Corpus, rel); err != nil {
			return nil, err
		}
		cache[h.Path] = spans
	}
	sess := session(h.Session.SessionID)
	var out []string
	for i, sp := range spans {
		if sp.StartLine <= h.EndLine && sp.EndLine >= h.StartLine {
			out = append(out, fmt.Sprintf("%s:%d", sess, i+1))
		}
	}
	return out, nil
}

// FitLogistic fits a logistic model to rows x with labels y and sample
// weights w by Newton's method (iteratively reweighted least squares) with
// an L2 penalty l2 on all weights but the bias. It returns the bias first,
// then one weight per column.
func FitLogistic(x [][]float64, y []bool, w []float64, l2 float64) []float64 {
	if len(x) == 0 {
		return nil
	}
	d := len(x[0]) + 1
	beta := make([]float64, d)
	row := make([]float64, d)
	for iter := 0; iter < 50; iter++ {
		grad := make([]float64, d)
		hess := make([][]float64, d)
		for i := range hess {
			hess[i] = make([]float64, d)
		}
		for i, xi := range x {
			row[0] = 1
			copy(row[1:], xi)
			z := 0.0
			for j, v := range row {
				z += beta[j] * v
			}
			p := 1 / (1 + math.Exp(-z))
			t := 0.0
			if y[i] {
				t = 1
			}
			for j := range d {
				grad[j] += w[i] * (p - t) * row[j]
				for k := range d {
					hess[j][k] += w[i] * p * (1 - p) * row[j] * row[k]
				}
			}
		}
		for j := 1; j < d; j++ {
			grad[j] += l2 * beta[j]
			hess[j][j] += l2
		}
		for j := range d {
			hess[j][j] += 1e-9
		}
		step := solve(hess, grad)
		moved := 0.0
		for j := range d {
			beta[j] -= step[j]
			moved = max(moved, math.Abs(step[j]))
		}
		if moved < 1e-8 {
			break
		}
	}
	return beta
}

// solve solves a x = b by Gaussian elimination with partial pivoting.
func solve(a [][]float64, b []float64) []float64 {
	n := len(b)
	m := make([][]float64, n)
	for i := range a {
		m[i] = append(append([]float64{}, a[i]...), b[i])
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k <= n; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	out := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := m[r][n]
		for k := r + 1; k < n; k++ {
			s -= m[r][k] * out[k]
		}
		out[r] = s / m[r][r]
	}
	return out
}
