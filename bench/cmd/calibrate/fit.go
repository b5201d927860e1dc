package main

import (
	"encoding/json"
	"fmt"
	"math"
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
func cross(q eval.CalibrationQuery) bool { return q.Conv != q.Target && !fixtureConv(q) }

// offTopic reports whether q is one of the off-topic list's searches.
func offTopic(q eval.CalibrationQuery) bool { return !q.OnTopic && !cross(q) }

// readDump reads the dumps of paths (comma-separated; "": none), their
// searches of each mode together.
func readDump(paths string) (Dump, error) {
	if paths == "" {
		return nil, nil
	}
	d := Dump{}
	for _, path := range strings.Split(paths, ",") {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var one Dump
		if err := json.Unmarshal(data, &one); err != nil {
			return nil, fmt.Errorf("read dump %s: %w", path, err)
		}
		for mode, qs := range one {
			d[mode] = append(d[mode], qs...)
		}
	}
	return d, nil
}

// fixtureConv reports whether q is a search of the ranking fixture or of
// the small and mid-sized indexes of its notes.
func fixtureConv(q eval.CalibrationQuery) bool {
	return q.Conv == "fixture" || q.Conv == smallConv || q.Conv == midConv
}

// signals returns q's hits' signals with the query's signals set as
// search.Calibrate sets them.
func signals(q eval.CalibrationQuery) []cairn.HitSignals {
	out := make([]cairn.HitSignals, len(q.Hits))
	n := 0
	if pq, err := search.Parse(q.Question); err == nil {
		n = len(pq.Terms)
	}
	for i, h := range q.Hits {
		out[i] = h.Signals
		if out[i].Held == 0 && out[i].Terms > 0 { // a dump from before Held
			out[i].Held = int(math.Round(out[i].Terms * float64(n)))
		}
		out[i].Symbols = search.QuerySymbols(q.Question) // a dump from before Symbols
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
// fitOptions are the fit's settings (the flags of the same names).
type fitOptions struct {
	features                    string
	why                         int
	l2, minScore                float64
	crossShare, posShare, fixed float64 // fixed: the fixture's share of the answers' weight
	// others: the share of the negatives' weight given to the notes a
	// fixture question (of the fixture or a small index) does not expect.
	others float64
	// para: the share of the answers' weight given to the paraphrase
	// questions of the small indexes (smallParaphrases; 0: they count as
	// fixture answers).
	para float64
	// mid: the share of the answers' weight given to the mid-sized
	// indexes' answers but their paraphrases' (0: they count as fixture
	// answers).
	mid float64
}

// paraphrase reports whether q is one of smallParaphrases (asked of the
// small and the mid-sized indexes).
func paraphrase(q eval.CalibrationQuery) bool {
	return (q.Conv == smallConv || q.Conv == midConv) && slices.ContainsFunc(smallParaphrases, func(p fixtureQuestion) bool { return p.text == q.Question })
}

func runFit(path, test string, o fitOptions) error {
	l2, minScore := o.l2, o.minScore
	d, err := readDump(path)
	if err != nil {
		return err
	}
	td, err := readDump(test)
	if err != nil {
		return err
	}
	feats, err := parseFeatures(o.features)
	if err != nil {
		return err
	}
	for _, mode := range modes {
		// Off-topic searches of queries since taken off the list are left
		// out.
		qs := slices.DeleteFunc(d[mode], func(q eval.CalibrationQuery) bool {
			return offTopic(q) && !slices.Contains(trainOffTopic, q.Question)
		})
		names := feats[mode]
		var convs []string
		for _, q := range qs {
			if !fixtureConv(q) && !slices.Contains(convs, q.Conv) {
				convs = append(convs, q.Conv)
			}
		}
		// Each fold holds out one conversation (its questions, and the
		// questions asked of it) and a share of the off-topic queries (in
		// every conversation and the fixture): the off-topic count is of
		// queries the fold's model never saw.
		group := map[string]int{}
		for _, q := range qs {
			if offTopic(q) {
				if _, ok := group[q.Question]; !ok {
					group[q.Question] = len(group) % len(convs)
				}
			}
		}
		var cv foldStats
		for i, c := range convs {
			own := func(q eval.CalibrationQuery) bool { return q.Conv == c || q.Target == c }
			heldOff := func(q eval.CalibrationQuery) bool { return offTopic(q) && group[q.Question] == i }
			m := fitModel(names, qs, func(q eval.CalibrationQuery) bool { return !own(q) && !heldOff(q) }, l2, o)
			cv.add(score(m, qs, func(q eval.CalibrationQuery) bool { return heldOff(q) || own(q) && !offTopic(q) }, minScore))
		}
		// Each mid-sized index held out in turn (its searches, fitted on
		// everything else): what a model that never saw that index keeps.
		var midCV foldStats
		var mids []string
		for _, q := range qs {
			if q.Conv == midConv && !slices.Contains(mids, q.Target) {
				mids = append(mids, q.Target)
			}
		}
		for _, target := range mids {
			held := func(q eval.CalibrationQuery) bool { return q.Conv == midConv && q.Target == target }
			mm := fitModel(names, qs, func(q eval.CalibrationQuery) bool { return !held(q) }, l2, o)
			midCV.add(score(mm, qs, held, minScore))
		}
		m := fitModel(names, qs, func(eval.CalibrationQuery) bool { return true }, l2, o)
		all := score(m, qs, func(q eval.CalibrationQuery) bool { return !fixtureConv(q) }, minScore)
		fx := score(m, qs, func(q eval.CalibrationQuery) bool { return q.Conv == "fixture" }, minScore)
		sm := score(m, qs, func(q eval.CalibrationQuery) bool { return q.Conv == smallConv }, minScore)
		fmt.Printf("%s (cut at %.2f)\n", mode, minScore)
		fmt.Printf("  cross-validated by conversation and off-topic query: %s\n", cv)
		fmt.Printf("  fitted on all, LoCoMo:           %s\n", all)
		fmt.Printf("  fitted on all, fixture:          %s; %s\n", fx, fx.answers())
		fmt.Printf("  fitted on all, small indexes:    %s; %s\n", sm, sm.answers())
		if len(mids) > 0 {
			md := score(m, qs, func(q eval.CalibrationQuery) bool { return q.Conv == midConv }, minScore)
			fmt.Printf("  fitted on all, mid indexes:      %s; %s\n", md, md.answers())
			fmt.Printf("  mid indexes, one held out:       %s; %s\n", midCV, midCV.answers())
		}
		if td != nil {
			tq := td[mode]
			all := func(eval.CalibrationQuery) bool { return true }
			fmt.Printf("  test list:                       %s\n", score(m, tq, all, minScore))
			tm := score(m, tq, func(q eval.CalibrationQuery) bool { return q.Conv == midConv }, minScore)
			fmt.Printf("  test list, mid indexes:          %s\n", tm)
			for _, q := range tq {
				if n := kept(m, q, minScore); n > 0 {
					fmt.Printf("    %q in %s: %d hits\n", q.Question, q.Target, n)
				}
			}
		}
		fmt.Printf("  model: %#v\n", m)
		if o.why > 0 {
			explainCuts(m, qs, minScore, o.why)
		}
	}
	return nil
}

// fitModel fits a model over features names to the queries use selects:
// the relevant hits of on-topic queries (weighing o.posShare, of which the
// fixture's answers o.fixed when it is not 0; else by count) against every
// hit of off-topic ones (the rest).
func fitModel(names []string, qs []eval.CalibrationQuery, use func(eval.CalibrationQuery) bool, l2 float64, o fitOptions) search.Model {
	m := search.Model{Features: names}
	type row struct {
		y     bool
		class int // 0 answer, 1 fixture answer, 2 other conversation, 3 off-topic, 4 a fixture question's other note, 5 a paraphrase's answer, 6 a mid-sized index's answer
	}
	var x [][]float64
	var rows []row
	var n [7]float64
	for _, q := range qs {
		if !use(q) {
			continue
		}
		sigs := signals(q)
		for i, h := range q.Hits {
			if q.OnTopic && !h.Relevant && (!fixtureConv(q) || o.others == 0) {
				continue // a LoCoMo hit off the evidence may still be on it
			}
			r := row{y: q.OnTopic && h.Relevant}
			switch {
			case q.OnTopic && !h.Relevant:
				r.class = 4
			case q.OnTopic && paraphrase(q) && o.para > 0:
				r.class = 5
			case q.OnTopic && q.Conv == midConv && o.mid > 0:
				r.class = 6
			case q.OnTopic && fixtureConv(q) && o.fixed > 0:
				r.class = 1
			case q.OnTopic:
				r.class = 0
			case cross(q):
				r.class = 2
			default:
				r.class = 3
			}
			x = append(x, m.Inputs(sigs[i]))
			rows = append(rows, r)
			n[r.class]++
		}
	}
	neg := 1 - o.posShare
	share := [7]float64{o.posShare * (1 - o.fixed - o.para - o.mid), o.posShare * o.fixed, neg * o.crossShare, neg * (1 - o.crossShare - o.others), neg * o.others,
		o.posShare * o.para, o.posShare * o.mid}
	w := make([]float64, len(x))
	y := make([]bool, len(x))
	for i, r := range rows {
		w[i], y[i] = share[r.class]/max(n[r.class], 1), r.y
	}
	m.Weights = eval.FitLogistic(x, y, w, l2/float64(len(x)))
	return m
}

type foldStats struct {
	onTopic, offTopic, offWithHits int
	cross, crossWithHits           int     // LoCoMo questions asked of another conversation
	recallBefore, recallAfter      float64 // sums of turn recall@10
	emptied                        int     // on-topic queries left with no hit
	// Of fixture questions: the answers kept, and the other notes kept
	// (hits that are not the expected note).
	answersKept, othersKept, others int
}

func (s foldStats) answers() string {
	return fmt.Sprintf("answers kept %d of %d, other notes kept %d of %d", s.answersKept, s.onTopic, s.othersKept, s.others)
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
	s.answersKept += o.answersKept
	s.othersKept += o.othersKept
	s.others += o.others
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
			if q.OnTopic && fixtureConv(q) {
				switch {
				case h.Relevant && p >= minScore:
					s.answersKept++
				case !h.Relevant:
					s.others++
					if p >= minScore {
						s.othersKept++
					}
				}
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

// explainCuts prints up to n relevant hits in the top 10 that m cuts, and
// n off-topic searches that m answers, with the inputs, for choosing
// features (never the test list's).
func explainCuts(m search.Model, qs []eval.CalibrationQuery, minScore float64, n int) {
	lost, leaked := 0, 0
	for _, q := range qs {
		sigs := signals(q)
		ps := m.Scores(sigs)
		for i, p := range ps {
			h := q.Hits[i]
			switch {
			case q.OnTopic && h.Relevant && i < 10 && p < minScore && lost < n:
				lost++
				fmt.Printf("    cut %s rank %d p %.3f %q %v\n", q.Conv, i+1, p, q.Question, fmtInputs(m, sigs[i]))
			case offTopic(q) && i == 0 && p >= minScore && leaked < n:
				leaked++
				fmt.Printf("    kept %s p %.3f %q %v\n", q.Target, p, q.Question, fmtInputs(m, sigs[i]))
			}
		}
	}
}

func fmtInputs(m search.Model, s cairn.HitSignals) string {
	var b strings.Builder
	for i, x := range m.Inputs(s) {
		fmt.Fprintf(&b, " %s=%.2f", m.Features[i], x)
	}
	return b.String()
}
