package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestWithoutName: the query's words with the named participant's left
// out, as the lexical lane is asked again with fusionWeights.SpeakerStrip.
func TestWithoutName(t *testing.T) {
	for _, c := range []struct{ query, name, want string }{
		{"What did Caroline research?", "Caroline", "what did research"},
		{"What is Caroline's relationship status?", "Caroline", "what is relationship status"},
		{"When did Dana Scully and Dana meet?", "Dana Scully", "when did and dana meet"},
		{"Caroline?", "Caroline", ""},
		{"What did Carolines say?", "Caroline", "what did carolines say"}, // whole words only
		{"What did Caroline say?", "", "what did caroline say"},
	} {
		if got := withoutName(c.query, c.name); got != c.want {
			t.Errorf("withoutName(%q, %q) = %q, want %q", c.query, c.name, got, c.want)
		}
	}
}

// TestDeepSpoken: past the vector lane's usual count only the named
// participant's units stay (fusionWeights.SpeakerDepth), and the lane's
// slice is not written (a sweep's memo holds it).
func TestDeepSpoken(t *testing.T) {
	cand := func(line int) cairn.Candidate {
		return cairn.Candidate{Corpus: "s", Path: "c.md", StartLine: line, EndLine: line}
	}
	lane := []cairn.Candidate{cand(1), cand(2), cand(3), cand(4), cand(5), cand(6)}
	spoken := map[string]bool{"cairn://s/c.md#2": true, "cairn://s/c.md#4": true, "cairn://s/c.md#6": true}
	for _, c := range []struct {
		name   string
		n      int
		spoken map[string]bool
		want   string
	}{
		{"two kept, then spoken ones", 2, spoken, "1 2 4 6"},
		{"nobody named: the usual count", 2, nil, "1 2"},
		{"shorter than the count", 8, spoken, "1 2 3 4 5 6"},
	} {
		got := deepSpoken(lane, c.n, c.spoken, fuseKey)
		var lines string
		for i, g := range got {
			if i > 0 {
				lines += " "
			}
			lines += fmt.Sprint(g.StartLine)
		}
		if lines != c.want {
			t.Errorf("%s: lines %s, want %s", c.name, lines, c.want)
		}
	}
	for i, c := range lane {
		if c.StartLine != i+1 {
			t.Fatalf("the lane was written: %+v", lane)
		}
	}
}

// TestFuseSpeakerVec: with SpeakerVec the vector lane weighs more when the
// lift applies (spoken units), and as before when it does not.
func TestFuseSpeakerVec(t *testing.T) {
	lex := []cairn.Hit{{Path: "cairn://s/a.md", StartLine: 1, Score: 10, Signals: &cairn.HitSignals{BM25: 10, LexRank: 1}},
		{Path: "cairn://s/b.md", StartLine: 1, Score: 7, Signals: &cairn.HitSignals{BM25: 7, LexRank: 2}}}
	vec := []cairn.Hit{{Path: "cairn://s/b.md", StartLine: 1, Score: 0.9, Signals: &cairn.HitSignals{Cosine: 0.9}},
		{Path: "cairn://s/c.md", StartLine: 1, Score: 0.5, Signals: &cairn.HitSignals{Cosine: 0.5}}}
	// a 1 + 0.5, b 0.7 + 0.2 + 0.5 (0.4 with the rise), c 0; a and b spoken.
	spoken := map[string]bool{"cairn://s/a.md#1": true, "cairn://s/b.md#1": true}
	base := fusionWeights{Lex: 1, Vec: 0.2, Convex: true, Speaker: 0.5}
	up := base
	up.SpeakerVec = 1
	for _, c := range []struct {
		name   string
		fw     fusionWeights
		spoken map[string]bool
		want   string
	}{
		{"no rise", base, spoken, "a.md:1 b.md:1 c.md:1"},
		{"rise, lift applies", up, spoken, "b.md:1 a.md:1 c.md:1"},
		{"rise, nobody named", up, nil, "a.md:1 b.md:1 c.md:1"},
	} {
		hits := fuseLifted(lex, nil, vec, &cairn.SearchOptions{Limit: 10}, fuseKey, c.fw, c.spoken)
		if got := fusedOrder(hits); got != c.want {
			t.Errorf("%s: order %s, want %s", c.name, got, c.want)
		}
	}
}

// TestFuseFeedbackNamed: with PRFNamed the feedback pass counts only when
// the speaker lift applies (some unit is spoken by the named participant).
func TestFuseFeedbackNamed(t *testing.T) {
	hit := func(path string, bm25 float64) cairn.Hit {
		return cairn.Hit{Path: "cairn://s/" + path, StartLine: 1, EndLine: 2, Score: bm25,
			Signals: &cairn.HitSignals{BM25: bm25, LexRank: 1, Cover: 1}}
	}
	lex := []cairn.Hit{hit("d1.md", 10), hit("d2.md", 8), hit("d3.md", 6)}
	prf := []cairn.Hit{hit("d3.md", 5), hit("d4.md", 4)}
	named := fusionWeights{Lex: 1, Vec: 0.5, Convex: true, PRF: 0.5, PRFNamed: true}
	for _, c := range []struct {
		name   string
		spoken map[string]bool
		want   string
	}{
		{"nobody named: no feedback", nil, "d1.md:1 d2.md:1 d3.md:1"},
		{"one named: feedback", map[string]bool{"cairn://s/d9.md#1": true}, "d3.md:1 d1.md:1 d2.md:1 d4.md:1"},
	} {
		hits := fuseLifted(lex, prf, nil, &cairn.SearchOptions{Limit: 10}, fuseKey, named, c.spoken)
		if got := fusedOrder(hits); got != c.want {
			t.Errorf("%s: order %s, want %s", c.name, got, c.want)
		}
	}
}

// TestSpreadPair: with a penalty, the places go to both named speakers in
// turn where their scores allow (fusionWeights.SpeakerPair); without one,
// the fused order stays.
func TestSpreadPair(t *testing.T) {
	for _, c := range []struct {
		name    string
		penalty float64
		want    string
	}{
		{"no penalty", 0, "a1 a2 a3 n b1"},
		// a2 pays 0.2 once a1 is placed: n (0.75), then b1 (0.7) come first.
		{"penalty 0.2", 0.2, "a1 n b1 a2 a3"},
		{"penalty too small to move", 0.01, "a1 a2 a3 n b1"},
	} {
		hits := []cairn.Hit{{Path: "a1", Score: 0.9}, {Path: "a2", Score: 0.85}, {Path: "a3", Score: 0.8}, {Path: "n", Score: 0.75}, {Path: "b1", Score: 0.7}}
		who := []int{1, 1, 1, 0, 2}
		spreadPair(hits, who, c.penalty)
		var got []string
		for _, h := range hits {
			got = append(got, h.Path)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: order %s, want %s", c.name, g, c.want)
		}
	}
}
