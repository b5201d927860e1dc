package skills

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/whisper"
)

// judgeState is the state of one skill-useful judgment (C30 step 3).
type judgeState struct {
	CurrentRequest string         `json:"currentRequest"`
	History        string         `json:"history"`
	Candidate      judgeCandidate `json:"candidate"`
}

type judgeCandidate struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// judged asks the judge about the top JudgedCandidates matches and picks
// the most useful at or above judge.MinSkillUse.
func (w *Whisperer) judged(ctx context.Context, t *whisper.Turn, hist []whisper.Msg, request string, matches []Match, turn int) (*Match, string, error) {
	if len(matches) == 0 {
		return nil, "no_candidates", nil
	}
	top := matches[:min(JudgedCandidates, len(matches))]
	cool := 0
	for _, m := range top {
		if w.cooling(t.AgentID, t.SessionID, m.Skill, turn) {
			cool++
		}
	}
	if cool == len(top) {
		return nil, "cooldown", nil
	}
	histText := tail(historyText(hist), MaxQueryChars)
	req := tail(request, MaxQueryChars)
	ps := make([]float64, len(top))
	errs := make([]error, len(top))
	var wg sync.WaitGroup
	for i, m := range top {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := judgeState{CurrentRequest: req, History: histText, Candidate: judgeCandidate{Name: m.Name, Description: m.Description}}
			got, err := w.Judge.Ask(ctx, &judge.Request{Rubric: judge.SkillUseful, State: st})
			if err != nil {
				errs[i] = err
				return
			}
			a, ok := got.Answers["useful"]
			if !ok {
				errs[i] = fmt.Errorf("judge %s: no answer to useful", got.Policy)
				return
			}
			ps[i] = a.P
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, outcomeOf(ctx, "failed"), fmt.Errorf("whisper skill: %w", err)
	}
	best, failed := -1, 0
	for i := range top {
		if errs[i] != nil {
			failed++
			continue
		}
		if ps[i] >= judge.MinSkillUse && (best < 0 || ps[i] > ps[best]) {
			best = i
		}
	}
	switch {
	case failed == len(top):
		return nil, "failed", fmt.Errorf("whisper skill: every judgment failed: %w", errors.Join(errs...))
	case best < 0:
		return nil, "rejected", nil
	case w.cooling(t.AgentID, t.SessionID, top[best].Skill, turn):
		return nil, "cooldown", nil
	}
	return &top[best], "", nil
}
