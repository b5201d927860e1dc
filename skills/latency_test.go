package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestSkillWhispererLatency (skipped unless CAIRN_SKILL_BENCH=N) measures
// what the Skill Whisperer adds to a turn over 200 skills, N turns per
// mode: local, and judged by an httptest judge that holds each answer
// 200 ms (the three judgments run concurrently, so a judged turn's own
// work is its time less 200 ms). The embedder is the in-memory word
// embedder: a real one adds its query embedding.
//
//	CAIRN_SKILL_BENCH=200 go test -tags sqlite_fts5 ./skills/ -run TestSkillWhispererLatency -v
func TestSkillWhispererLatency(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CAIRN_SKILL_BENCH"))
	if n <= 0 {
		t.Skip("set CAIRN_SKILL_BENCH=N to measure")
	}
	root := t.TempDir()
	for i := range 200 {
		write(t, filepath.Join(root, fmt.Sprintf("s%03d", i), "SKILL.md"), skill(fmt.Sprintf("skill-%d", i), fmt.Sprintf("Do task %d on the website, step %d", i, i%7)))
	}
	write(t, filepath.Join(root, "deploy", "SKILL.md"), skill("deploy", "Ship the website to the staging server"))
	const hold = 200 * time.Millisecond
	f := newJudgeFake(t, map[string]float64{})
	f.delay = hold
	for _, mode := range []string{"local", "judged"} {
		w := NewWhisperer(NewIndex([]string{root}, &wordEmbedder{}), nil)
		if mode == "judged" {
			f.mu.Lock()
			for i := range 200 {
				f.useful[fmt.Sprintf("skill-%d", i)] = 0.1
			}
			f.useful["deploy"] = 0.9
			f.mu.Unlock()
			w.Judge = f.judge(t)
		}
		w.CooldownTurns = 0
		mustWhisper(t, w, turn("warm", "ship the website")) // builds the index
		var own []time.Duration
		for i := range n {
			start := time.Now()
			sec := mustWhisper(t, w, turn(fmt.Sprint(i), "please ship the website to the staging server"))
			d := time.Since(start)
			if sec.Outcome != "emitted" {
				t.Fatalf("%s turn %d: %+v", mode, i, sec)
			}
			if mode == "judged" {
				d -= hold
			}
			own = append(own, d)
		}
		slices.Sort(own)
		p := func(q float64) time.Duration { return own[min(len(own)-1, int(q*float64(len(own))))] }
		t.Logf("%s: %d turns, own time p50 %v, p99 %v", mode, n, p(0.50), p(0.99))
	}
}
