package eval

import (
	"context"
	"fmt"
	"time"

	"github.com/cairnmemory/cairn"
)

// LocomoMemory runs LoCoMo in memory mode (see memory.go): each sample is
// consolidated in a store of its own, its questions are scored by the
// turns the memory hits' provenance names, and, with a fast model and a
// judge, answered from gathered memories and graded. o.QA is not used
// (the answers come from m.Fast and m.Judge); o.Limit is the memory hits
// asked per question.
func LocomoMemory(ctx context.Context, o LocomoOptions, m MemoryOptions) (*MemoryReport, error) {
	start := time.Now()
	if err := m.check(); err != nil {
		return nil, err
	}
	if err := checkMode(&o.Mode, &o.Limit, o.Embedder); err != nil {
		return nil, err
	}
	samples, audit, err := loadLocomo(o)
	if err != nil {
		return nil, err
	}
	rep := &MemoryReport{Report: &Report{Dataset: "locomo", Mode: "memory-" + o.Mode, ByCategory: map[string]Metrics{}},
		Memory: newMemoryStats(&m)}
	if m.Judge != nil {
		rep.QA = &QAStats{}
	}
	byCat := map[string][]Scores{}
	var all []Scores
	for ci, sample := range samples {
		if m.MaxConversations > 0 && ci == m.MaxConversations {
			break
		}
		scores, err := locomoMemorySample(ctx, o, &m, ci, sample, audit, rep)
		if err != nil {
			return nil, err
		}
		for _, s := range scores {
			all = append(all, s.Scores)
			byCat[s.category] = append(byCat[s.category], s.Scores)
		}
	}
	rep.Questions = len(all)
	rep.Metrics = Average(all)
	if rep.QA != nil && rep.QA.Answered > 0 {
		rep.QA.JScore = rep.Metrics["j_score"]
	}
	for name, s := range byCat {
		rep.ByCategory[name] = Average(s)
	}
	rep.Seconds = cairn.Since(start)
	return rep, nil
}

type categoryScores struct {
	Scores
	category string
}

// locomoMemorySample consolidates one sample and scores its questions.
func locomoMemorySample(ctx context.Context, o LocomoOptions, m *MemoryOptions, ci int, sample locomoSample, audit map[string]auditFix,
	rep *MemoryReport) ([]categoryScores, error) {
	sessions, turns, _, err := locomoSessions(sample)
	if err != nil {
		return nil, err
	}
	eng, closeEng, err := conversationStore(ctx, o.Dir, sample.SampleID, o.Embedder)
	if err != nil {
		return nil, err
	}
	defer closeEng()
	if err := consolidateConversation(ctx, eng, "locomo:"+sample.SampleID, sessions, m, &rep.Memory); err != nil {
		return nil, err
	}
	var out []categoryScores
	for qi, qa := range sample.QA {
		if qa.Category == 5 && !o.IncludeAdversarial || LocomoCategories[qa.Category] == "" {
			continue
		}
		evidence := qa.Evidence
		if fix, ok := auditEvidence(audit, ci, qi, qa.Question); ok {
			evidence = fix
		}
		ids, bad := resolveEvidence(evidence, turns)
		rep.Unresolved += bad
		if len(ids) == 0 {
			rep.Skipped++
			continue
		}
		got, err := memoryTurns(ctx, eng, qa.Question, o.Mode, o.Limit, locomoSession)
		if err != nil {
			return nil, fmt.Errorf("question %d of %s: %w", qi+1, sample.SampleID, err)
		}
		sc := Score(got, ids, sessionOfTurn)
		if m.Fast != nil {
			g, err := gatherQuestion(ctx, eng, qa.Question, m, rep.Memory.Gather)
			if err != nil {
				return nil, fmt.Errorf("question %d of %s: %w", qi+1, sample.SampleID, err)
			}
			if m.Judge != nil {
				j, err := answerFromMemories(ctx, m, qa.Question, goldAnswer(qa.Answer), g, rep.QA)
				if err != nil {
					return nil, fmt.Errorf("question %d of %s: %w", qi+1, sample.SampleID, err)
				}
				sc.J = &j
			}
		}
		out = append(out, categoryScores{sc, LocomoCategories[qa.Category]})
	}
	return out, nil
}
