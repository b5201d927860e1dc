package eval

import (
	"math"
	"slices"
)

// TurnKs are the cut-offs of turn recall.
var TurnKs = []int{1, 5, 10, 25, 50}

// SessionKs are the cut-offs of session recall.
var SessionKs = []int{1, 3, 5}

// Scores holds one question's metrics, as fractions in 0..1.
type Scores struct {
	TurnRecall    map[int]float64
	SessionRecall map[int]float64
	NDCG10        float64
	MRR           float64
	J             *float64 // 1 when the judged answer was correct; nil without QA
}

// Score computes the metrics of one question. turns are the retrieved turn
// ids in rank order (duplicates are ignored after their first place);
// evidence the relevant turn ids; sessionOf maps a turn id to its session.
func Score(turns, evidence []string, sessionOf func(string) string) Scores {
	s := Scores{TurnRecall: map[int]float64{}, SessionRecall: map[int]float64{}}
	ranked := dedupe(turns)
	want := map[string]bool{}
	for _, e := range evidence {
		want[e] = true
	}
	if len(want) == 0 {
		return s
	}
	for _, k := range TurnKs {
		found := 0
		for _, t := range ranked[:min(k, len(ranked))] {
			if want[t] {
				found++
			}
		}
		s.TurnRecall[k] = float64(found) / float64(len(want))
	}
	wantSessions := map[string]bool{}
	for e := range want {
		wantSessions[sessionOf(e)] = true
	}
	var sessions []string
	for _, t := range ranked {
		if ss := sessionOf(t); !slices.Contains(sessions, ss) {
			sessions = append(sessions, ss)
		}
	}
	for _, k := range SessionKs {
		for _, ss := range sessions[:min(k, len(sessions))] {
			if wantSessions[ss] {
				s.SessionRecall[k] = 1
				break
			}
		}
	}
	var dcg, idcg float64
	for i, t := range ranked[:min(10, len(ranked))] {
		if want[t] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := range min(10, len(want)) {
		idcg += 1 / math.Log2(float64(i+2))
	}
	s.NDCG10 = dcg / idcg
	for i, t := range ranked {
		if want[t] {
			s.MRR = 1 / float64(i+1)
			break
		}
	}
	return s
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// Metrics is the averaged, rounded report of a set of questions. JSON names
// are fixed.
type Metrics map[string]float64

// Average averages scores into percent with one decimal.
func Average(all []Scores) Metrics {
	m := Metrics{}
	if len(all) == 0 {
		return m
	}
	add := func(key string, v float64) { m[key] += v }
	for _, s := range all {
		for _, k := range TurnKs {
			add(turnKey(k), s.TurnRecall[k])
		}
		for _, k := range SessionKs {
			add(sessionKey(k), s.SessionRecall[k])
		}
		add("ndcg@10", s.NDCG10)
		add("mrr", s.MRR)
		if s.J != nil {
			add("j_score", *s.J)
		}
	}
	for k, v := range m {
		m[k] = math.Round(v/float64(len(all))*1000) / 10
	}
	return m
}

func turnKey(k int) string    { return "turn_recall@" + itoa(k) }
func sessionKey(k int) string { return "session_recall_any@" + itoa(k) }

func itoa(k int) string {
	const digits = "0123456789"
	if k < 10 {
		return digits[k : k+1]
	}
	return itoa(k/10) + digits[k%10:k%10+1]
}
