package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// lmeGold is what the memory mode reads of a LongMemEval question besides
// lmeEntry: its gold answer.
type lmeGold struct {
	QuestionID string          `json:"question_id"`
	Answer     json.RawMessage `json:"answer"`
}

// LongMemEvalMemory runs LongMemEval in memory mode (see memory.go): each
// question's haystack is consolidated in a store of its own, and sessions
// and turns are scored through the memory hits' provenance with the
// metrics of LongMemEval (recall_any, recall_all, ndcg_any at LMEKs);
// with a fast model and a judge the question is also answered from
// gathered memories and graded (j_score). Abstention questions are
// skipped.
func LongMemEvalMemory(ctx context.Context, o LongMemEvalOptions, m MemoryOptions) (*MemoryReport, error) {
	start := time.Now()
	if err := m.check(); err != nil {
		return nil, err
	}
	if err := checkMode(&o.Mode, &o.Limit, o.Embedder); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(o.Data)
	if err != nil {
		return nil, fmt.Errorf("read longmemeval data: %w", err)
	}
	var entries []lmeEntry
	var golds []lmeGold
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, cairn.Invalidf("longmemeval data %s is not a JSON array of questions: %v", o.Data, err)
	}
	json.Unmarshal(data, &golds) // the same array: it decoded above
	rep := &MemoryReport{Report: &Report{Dataset: "longmemeval", Mode: "memory-" + o.Mode, ByCategory: map[string]Metrics{}},
		Memory: newMemoryStats(&m)}
	if m.Judge != nil {
		rep.QA = &QAStats{}
	}
	var all []map[string]float64
	byType := map[string][]map[string]float64{}
	done := 0
	for i, q := range entries {
		if strings.HasSuffix(q.QuestionID, "_abs") {
			continue
		}
		if m.MaxConversations > 0 && done == m.MaxConversations {
			break
		}
		done++
		sc, err := lmeMemoryQuestion(ctx, o, &m, q, goldAnswer(golds[i].Answer), rep)
		if err != nil {
			return nil, fmt.Errorf("question %s: %w", q.QuestionID, err)
		}
		all = append(all, sc)
		byType[q.QuestionType] = append(byType[q.QuestionType], sc)
	}
	rep.Questions = len(all)
	rep.Metrics = averageMaps(all)
	if rep.QA != nil && rep.QA.Answered > 0 {
		rep.QA.JScore = rep.Metrics["j_score"]
	}
	for t, ms := range byType {
		rep.ByCategory[t] = averageMaps(ms)
	}
	rep.Seconds = cairn.Since(start)
	return rep, nil
}

// lmeMemoryQuestion consolidates one question's haystack and scores it.
func lmeMemoryQuestion(ctx context.Context, o LongMemEvalOptions, m *MemoryOptions, q lmeEntry, gold string, rep *MemoryReport) (map[string]float64, error) {
	sessions, relTurns := lmeSessions(q)
	eng, closeEng, err := conversationStore(ctx, o.Dir, q.QuestionID, o.Embedder)
	if err != nil {
		return nil, err
	}
	defer closeEng()
	if err := consolidateConversation(ctx, eng, "longmemeval:"+q.QuestionID, sessions, m, &rep.Memory); err != nil {
		return nil, err
	}
	turns, err := memoryTurns(ctx, eng, q.Question, o.Mode, o.Limit, lmeSession)
	if err != nil {
		return nil, err
	}
	sc := lmeScores(turns, relTurns, q.AnswerSessionIDs)
	if m.Fast != nil {
		g, err := gatherQuestion(ctx, eng, q.Question, m, rep.Memory.Gather)
		if err != nil {
			return nil, err
		}
		if m.Judge != nil {
			j, err := answerFromMemories(ctx, m, q.Question, gold, g, rep.QA)
			if err != nil {
				return nil, err
			}
			sc["j_score"] = j
		}
	}
	return sc, nil
}

// lmeScores are LongMemEval's metrics of the retrieved turns, as the
// session mode computes them.
func lmeScores(turns, relTurns, answerSessions []string) map[string]float64 {
	var sessRanked []string
	for _, t := range turns {
		if s := sessionOfLME(t); !slices.Contains(sessRanked, s) {
			sessRanked = append(sessRanked, s)
		}
	}
	m := map[string]float64{}
	for _, k := range LMEKs {
		any, all := recallAt(sessRanked, answerSessions, k)
		m[fmt.Sprintf("session_recall_any@%d", k)] = any
		m[fmt.Sprintf("session_recall_all@%d", k)] = all
		m[fmt.Sprintf("session_ndcg_any@%d", k)] = ndcgAt(sessRanked, answerSessions, k)
		if len(relTurns) > 0 {
			any, all = recallAt(dedupe(turns), relTurns, k)
			m[fmt.Sprintf("turn_recall_any@%d", k)] = any
			m[fmt.Sprintf("turn_recall_all@%d", k)] = all
			m[fmt.Sprintf("turn_ndcg_any@%d", k)] = ndcgAt(dedupe(turns), relTurns, k)
		}
	}
	return m
}
