package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// LongMemEval cut-offs reported.
var LMEKs = []int{1, 3, 5, 10, 30, 50}

type lmeEntry struct {
	QuestionID         string      `json:"question_id"`
	QuestionType       string      `json:"question_type"`
	Question           string      `json:"question"`
	HaystackSessionIDs []string    `json:"haystack_session_ids"`
	HaystackDates      []string    `json:"haystack_dates"`
	HaystackSessions   [][]lmeTurn `json:"haystack_sessions"`
	AnswerSessionIDs   []string    `json:"answer_session_ids"`
}

type lmeTurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer"`
}

// LongMemEvalOptions tune a LongMemEval run.
type LongMemEvalOptions struct {
	Data     string
	Mode     string
	Embedder cairn.Embedder // serves the vector and hybrid modes
	Dir      string
	Limit    int // hits asked per question (default 50)
}

// LongMemEval runs the retrieval part of LongMemEval: per question, its
// haystack sessions are imported (one conversation per question), the
// question is asked within them, and sessions and turns are scored with
// recall_any@k, recall_all@k and ndcg_any@k as the benchmark's own
// evaluation defines them (binary relevance; ideal ranking puts every
// relevant item first). Abstention questions (ids ending in "_abs") are
// skipped.
func LongMemEval(ctx context.Context, o LongMemEvalOptions) (*Report, error) {
	start := time.Now()
	if err := checkMode(&o.Mode, &o.Limit, o.Embedder); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(o.Data)
	if err != nil {
		return nil, fmt.Errorf("read longmemeval data: %w", err)
	}
	var entries []lmeEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, cairn.Invalidf("longmemeval data %s is not a JSON array of questions: %v", o.Data, err)
	}
	eng, closeEng, err := openEval(ctx, o.Dir, o.Embedder)
	if err != nil {
		return nil, err
	}
	defer closeEng()
	rep := &Report{Dataset: "longmemeval", Mode: o.Mode, ByCategory: map[string]Metrics{}}
	var all []map[string]float64
	byType := map[string][]map[string]float64{}
	for _, q := range entries {
		if strings.HasSuffix(q.QuestionID, "_abs") {
			continue
		}
		sessions, relTurns := lmeSessions(q)
		if _, err := eng.ImportSessions(ctx, "sessions", "longmemeval:"+q.QuestionID, sessions); err != nil {
			return nil, err
		}
		turns, err := retrieveTurns(ctx, eng, q.QuestionID, q.Question, o.Mode, o.Limit, 0, lmeSession)
		if err != nil {
			return nil, fmt.Errorf("question %s: %w", q.QuestionID, err)
		}
		var sessRanked []string
		for _, t := range turns {
			if s := sessionOfLME(t); !slices.Contains(sessRanked, s) {
				sessRanked = append(sessRanked, s)
			}
		}
		m := map[string]float64{}
		for _, k := range LMEKs {
			any, all := recallAt(sessRanked, q.AnswerSessionIDs, k)
			m[fmt.Sprintf("session_recall_any@%d", k)] = any
			m[fmt.Sprintf("session_recall_all@%d", k)] = all
			m[fmt.Sprintf("session_ndcg_any@%d", k)] = ndcgAt(sessRanked, q.AnswerSessionIDs, k)
			if len(relTurns) > 0 {
				any, all = recallAt(dedupe(turns), relTurns, k)
				m[fmt.Sprintf("turn_recall_any@%d", k)] = any
				m[fmt.Sprintf("turn_recall_all@%d", k)] = all
				m[fmt.Sprintf("turn_ndcg_any@%d", k)] = ndcgAt(dedupe(turns), relTurns, k)
			}
		}
		all = append(all, m)
		byType[q.QuestionType] = append(byType[q.QuestionType], m)
	}
	rep.Questions = len(all)
	rep.Metrics = averageMaps(all)
	for t, ms := range byType {
		rep.ByCategory[t] = averageMaps(ms)
	}
	rep.Seconds = cairn.Since(start)
	return rep, nil
}

// lmeSessions imports a question's haystack: session ids are
// "<question>|<haystack session id>", one message per turn.
func lmeSessions(q lmeEntry) ([]cairn.Session, []string) {
	var out []cairn.Session
	var rel []string
	for i, turns := range q.HaystackSessions {
		id := fmt.Sprint(i)
		if i < len(q.HaystackSessionIDs) {
			id = q.HaystackSessionIDs[i]
		}
		var started time.Time
		if i < len(q.HaystackDates) {
			started, _ = time.Parse("2006/01/02 (Mon) 15:04", q.HaystackDates[i])
		}
		s := cairn.Session{Source: "longmemeval", Provider: "longmemeval", ChatType: "direct", ID: q.QuestionID + "|" + id,
			ConversationID: q.QuestionID, StartedAt: started}
		for j, t := range turns {
			role := cairn.RoleUser
			if t.Role == "assistant" {
				role = cairn.RoleAssistant
			}
			text := strings.TrimSpace(t.Content)
			if text == "" {
				text = "(no text)"
			}
			s.Messages = append(s.Messages, cairn.Message{Role: role, Text: text, Time: started})
			if t.HasAnswer {
				rel = append(rel, fmt.Sprintf("%s:%d", id, j+1))
			}
		}
		out = append(out, s)
	}
	return out, rel
}

func sessionOfLME(turn string) string { return turn[:strings.LastIndex(turn, ":")] }

// recallAt returns recall_any@k and recall_all@k of ranked against want.
func recallAt(ranked, want []string, k int) (float64, float64) {
	top := ranked[:min(k, len(ranked))]
	found := 0
	for _, w := range want {
		if slices.Contains(top, w) {
			found++
		}
	}
	anyHit, allHit := 0.0, 0.0
	if found > 0 {
		anyHit = 1
	}
	if len(want) > 0 && found == len(want) {
		allHit = 1
	}
	return anyHit, allHit
}

// ndcgAt is binary-relevance NDCG@k: the ideal ranking puts every relevant
// item first.
func ndcgAt(ranked, want []string, k int) float64 {
	var dcg, idcg float64
	for i, r := range ranked[:min(k, len(ranked))] {
		if slices.Contains(want, r) {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := range min(k, len(want)) {
		idcg += 1 / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

func averageMaps(ms []map[string]float64) Metrics {
	out := Metrics{}
	counts := map[string]int{}
	for _, m := range ms {
		for k, v := range m {
			out[k] += v
			counts[k]++
		}
	}
	for k, v := range out {
		out[k] = math.Round(v/float64(counts[k])*1000) / 10
	}
	return out
}

// lmeSession names a haystack session from its id "<question>|<session>".
func lmeSession(id string) string { _, sid, _ := strings.Cut(id, "|"); return sid }
