package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/eval"
	"github.com/cairnmemory/cairn/search"
)

// cross reports whether q is a LoCoMo question asked of another
// conversation: its hits cannot be its answer, but they can be on its
// topic (the conversations share many), so they weigh crossShare of the
// negatives; the off-topic lists weigh the rest.
func cross(q eval.CalibrationQuery) bool { return q.Conv != q.Target }

func readDump(path string) (Dump, error) {
	var d Dump
	if path == "" {
		return d, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("read dump %s: %w", path, err)
	}
	return d, nil
}

// signals returns q's hits' signals with the query's signals set as
// search.Calibrate sets them.
func signals(q eval.CalibrationQuery) []cairn.HitSignals {
	out := make([]cairn.HitSignals, len(q.Hits))
	for i, h := range q.Hits {
		out[i] = h.Signals
	}
	search.QuerySignals(out)
	return out
}

// parseFeatures reads -features: "mode=name,name;mode=..." over the
// features search.Models use.
func parseFeatures(spec string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, m := range modes {
		out[m] = search.FeatureNames(m)
	}
	for _, part := range strings.Split(spec, ";") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		mode, names, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("parse -features %q: want mode=name,name", part)
		}
		out[mode] = strings.Split(names, ",")
		for _, n := range out[mode] {
			if !search.HasFeature(n) {
				return nil, fmt.Errorf("parse -features: no feature %q", n)
			}
		}
	}
	return out, nil
}

// runFit fits and reports; test, when given, is a dump of -list
// engine/testdata/offtopic.txt, scored with the models fitted on all of
// path, never fitted to.
func runFit(path, test, featureSpec string, l2, minScore, crossShare, posShare float64) error {
	d, err := readDump(path)
	if err != nil {
		return err
	}
	td, err := readDump(test)
	if err != nil {
		return err
	}
	feats, err := parseFeatures(featureSpec)
	if err != nil {
		return err
	}
	for _, mode := range modes {
		qs := d[mode]
		names := feats[mode]
		var convs []string
		for _, q := range qs {
			if q.Conv != "fixture" && !slices.Contains(convs, q.Conv) {
				convs = append(convs, q.Conv)
			}
		}
		var cv foldStats
		for _, c := range convs {
			held := func(q eval.CalibrationQuery) bool { return q.Conv == c || q.Target == c }
			m := fitModel(names, qs, func(q eval.CalibrationQuery) bool { return !held(q) }, l2, crossShare, posShare)
			cv.add(score(m, qs, held, minScore))
		}
		m := fitModel(names, qs, func(eval.CalibrationQuery) bool { return true }, l2, crossShare, posShare)
		all := score(m, qs, func(q eval.CalibrationQuery) bool { return q.Conv != "fixture" }, minScore)
		fx := score(m, qs, func(q eval.CalibrationQuery) bool { return q.Conv == "fixture" }, minScore)
		fmt.Printf("%s (cut at %.2f)\n", mode, minScore)
		fmt.Printf("  cross-validated by conversation: %s\n", cv)
		fmt.Printf("  fitted on all, LoCoMo:           %s\n", all)
		fmt.Printf("  fitted on all, fixture:          %s\n", fx)
		if td != nil {
			tq := td[mode]
			all := func(eval.CalibrationQuery) bool { return true }
			fmt.Printf("  test list:                       %s\n", score(m, tq, all, minScore))
			for _, q := range tq {
				if n := kept(m, q, minScore); n > 0 {
					fmt.Printf("    %q in %s: %d hits\n", q.Question, q.Target, n)
				}
			}
		}
		fmt.Printf("  model: %#v\n", m)
	}
	return nil
}

// fitModel fits a model over features names to the queries use selects:
// the relevant hits of on-topic queries (weighing posShare) against every
// hit of off-topic ones (the rest).
func fitModel(names []string, qs []eval.CalibrationQuery, use func(eval.CalibrationQuery) bool, l2, crossShare, posShare float64) search.Model {
	m := search.Model{Features: names}
	var x [][]float64
	var y []bool
	var isCross []bool
	var pos, neg, negCross float64
	for _, q := range qs {
		if !use(q) {
			continue
		}
		sigs := signals(q)
		for i, h := range q.Hits {
			if q.OnTopic && !h.Relevant {
				continue
			}
			x = append(x, m.Inputs(sigs[i]))
			y = append(y, q.OnTopic)
			isCross = append(isCross, cross(q))
			switch {
			case q.OnTopic:
				pos++
			case cross(q):
				negCross++
			default:
				neg++
			}
		}
	}
	w := make([]float64, len(x))
	for i := range w {
		switch {
		case y[i]:
			w[i] = posShare / pos
		case isCross[i]:
			w[i] = (1 - posShare) * crossShare / max(negCross, 1)
		default:
			w[i] = (1 - posShare) * (1 - crossShare) / max(neg, 1)
		}
	}
	m.Weights = eval.FitLogistic(x, y, w, l2/float64(len(x)))
	return m
}

type foldStats struct {
	onTopic, offTopic, offWithHits int
	cross, crossWithHits           int     // LoCoMo questions asked of another conversation
	recallBefore, recallAfter      float64 // sums of turn recall@10
	emptied                        int     // on-topic queries left with no hit
}

func (s *foldStats) add(o foldStats) {
	s.onTopic += o.onTopic
	s.offTopic += o.offTopic
	s.offWithHits += o.offWithHits
	s.cross += o.cross
	s.crossWithHits += o.crossWithHits
	s.recallBefore += o.recallBefore
	s.recallAfter += o.recallAfter
	s.emptied += o.emptied
}

func (s foldStats) String() string {
	n := float64(max(s.onTopic, 1))
	return fmt.Sprintf("recall@10 %.2f -> %.2f (%+.2f) over %d questions (%d left empty); off-topic with hits %d of %d; other conversation's questions with hits %d of %d",
		100*s.recallBefore/n, 100*s.recallAfter/n, 100*(s.recallAfter-s.recallBefore)/n, s.onTopic, s.emptied, s.offWithHits, s.offTopic, s.crossWithHits, s.cross)
}

// score applies model m to the queries sel selects, cutting as
// search.Calibrate does, and counts what the cut costs and removes.
func score(m search.Model, qs []eval.CalibrationQuery, sel func(eval.CalibrationQuery) bool, minScore float64) foldStats {
	var s foldStats
	for _, q := range qs {
		if !sel(q) {
			continue
		}
		var before, after []string
		kept := 0
		for i, p := range m.Scores(signals(q)) {
			h := q.Hits[i]
			before = append(before, h.Turns...)
			if p >= minScore {
				after = append(after, h.Turns...)
				kept++
			}
		}
		switch {
		case cross(q):
			s.cross++
			if kept > 0 {
				s.crossWithHits++
			}
			continue
		case !q.OnTopic:
			s.offTopic++
			if kept > 0 {
				s.offWithHits++
			}
			continue
		}
		s.onTopic++
		if kept == 0 {
			s.emptied++
		}
		sessionOf := func(t string) string { return t }
		s.recallBefore += eval.Score(before, q.Evidence, sessionOf).TurnRecall[10]
		s.recallAfter += eval.Score(after, q.Evidence, sessionOf).TurnRecall[10]
	}
	return s
}

// kept counts the hits of q that model m keeps at minScore.
func kept(m search.Model, q eval.CalibrationQuery, minScore float64) int {
	n := 0
	for _, p := range m.Scores(signals(q)) {
		if p >= minScore {
			n++
		}
	}
	return n
}
