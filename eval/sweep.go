package eval

import (
	"context"
	"fmt"
)

// SweepQuestion is one question's scores under one setting of a sweep.
type SweepQuestion struct {
	Conv, Category string
	Scores         Scores
	// Question and Evidence (the evidence turns' ids) for reading the
	// misses of a sweep's JSON.
	Question string   `json:",omitempty"`
	Evidence []string `json:",omitempty"`
	// Ranks are the evidence turns' places among the turns retrieved (1
	// first), in Evidence's order; 0 for a turn not retrieved.
	Ranks []int `json:",omitempty"`
	// Turns are the turns retrieved, in rank order, when the sweep was
	// asked to keep them (LocomoOptions.KeepTurns).
	Turns []string `json:",omitempty"`
}

// evidenceRanks is each evidence turn's place in got (1 first), 0 when
// got does not hold it.
func evidenceRanks(got, evidence []string) []int {
	at := make(map[string]int, len(got))
	for i, id := range got {
		if _, ok := at[id]; !ok {
			at[id] = i + 1
		}
	}
	out := make([]int, len(evidence))
	for i, id := range evidence {
		out[i] = at[id]
	}
	return out
}

// LocomoSweep imports every conversation of o.Data once, then, for each of
// n settings, calls set(i) (which returns the mode to ask in, "" for
// o.Mode) and asks every question (categories 1 to 4,
// audit corrections applied) as Locomo does, returning the questions'
// scores per setting. It is for tuning a ranking knob with
// cross-validation by conversation: unlike Locomo, every conversation is
// in the index when the first question is asked, so IDFs differ a little
// from a Locomo run's.
func LocomoSweep(ctx context.Context, o LocomoOptions, n int, set func(i int) string) ([][]SweepQuestion, error) {
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
		conv, category, question string
		evidence                 []string
	}
	var qs []asked
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
			if ids, _ := resolveEvidence(evidence, turns); len(ids) > 0 {
				qs = append(qs, asked{sample.SampleID, LocomoCategories[qa.Category], qa.Question, ids})
			}
		}
	}
	out := make([][]SweepQuestion, n)
	for i := range n {
		mode := set(i)
		if mode == "" {
			mode = o.Mode
		}
		for _, q := range qs {
			got, err := retrieveTurns(ctx, eng, q.conv, q.question, mode, o.Limit, o.MinScore, locomoSession)
			if err != nil {
				return nil, fmt.Errorf("setting %d, %q of %s: %w", i, q.question, q.conv, err)
			}
			sq := SweepQuestion{Conv: q.conv, Category: q.category, Scores: Score(got, q.evidence, sessionOfTurn),
				Question: q.question, Evidence: q.evidence, Ranks: evidenceRanks(got, q.evidence)}
			if o.KeepTurns {
				sq.Turns = got
			}
			out[i] = append(out[i], sq)
		}
		if o.SettingDone != nil {
			o.SettingDone(i, out[i])
		}
	}
	return out, nil
}
