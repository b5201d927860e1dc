package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestRecallAndNDCG(t *testing.T) {
	ranked := []string{"a", "b", "c"}
	if any, all := recallAt(ranked, []string{"b", "z"}, 2); any != 1 || all != 0 {
		t.Errorf("recall@2 = %v %v; want any 1, all 0", any, all)
	}
	if any, all := recallAt(ranked, []string{"a", "c"}, 3); any != 1 || all != 1 {
		t.Errorf("recall@3 = %v %v; want 1 1", any, all)
	}
	if got := ndcgAt(ranked, []string{"b"}, 3); !near(got, 1/1.5849625007211563) {
		t.Errorf("ndcg = %v", got)
	}
	if got := ndcgAt(nil, []string{"b"}, 3); got != 0 {
		t.Errorf("ndcg of nothing = %v", got)
	}
}

// TestLongMemEvalGenerated runs a small file in the LongMemEval format that
// the test writes: two questions with haystacks, one abstention question.
func TestLongMemEvalGenerated(t *testing.T) {
	entries := []map[string]any{
		{
			"question_id": "q1", "question_type": "single-session-user", "question": "What breed is my dog Biscuit?",
			"haystack_session_ids": []string{"s-a", "s-b", "s-c"},
			"haystack_dates":       []string{"2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 10:00", "2023/05/22 (Mon) 09:00"},
			"haystack_sessions": [][]map[string]any{
				{{"role": "user", "content": "I need a recipe for lemon bars."}, {"role": "assistant", "content": "Here is one with shortbread crust."}},
				{{"role": "user", "content": "My dog Biscuit is a border collie and loves frisbee.", "has_answer": true}, {"role": "assistant", "content": "Border collies need lots of exercise."}},
				{{"role": "user", "content": "Plan a trip to Lisbon."}, {"role": "assistant", "content": "Visit Alfama and Belem."}},
			},
			"answer_session_ids": []string{"s-b"},
		},
		{
			"question_id": "q2", "question_type": "multi-session", "question": "Which cities did I plan trips to?",
			"haystack_session_ids": []string{"t-a", "t-b"},
			"haystack_dates":       []string{"2023/06/01 (Thu) 08:00", "2023/06/02 (Fri) 08:00"},
			"haystack_sessions": [][]map[string]any{
				{{"role": "user", "content": "Plan trips to Porto next month.", "has_answer": true}},
				{{"role": "user", "content": "Plan trips to Kyoto in spring.", "has_answer": true}},
			},
			"answer_session_ids": []string{"t-a", "t-b"},
		},
		{"question_id": "q3_abs", "question_type": "single-session-user", "question": "What is my cat called?",
			"haystack_session_ids": []string{}, "haystack_sessions": [][]map[string]any{}, "answer_session_ids": []string{}},
	}
	data, _ := json.Marshal(entries)
	file := filepath.Join(t.TempDir(), "lme.json")
	os.WriteFile(file, data, 0o644)
	rep, err := LongMemEval(context.Background(), LongMemEvalOptions{Data: file, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 2 {
		t.Fatalf("questions = %d, want 2 (the abstention question is skipped)", rep.Questions)
	}
	m := rep.Metrics
	if m["session_recall_any@1"] != 100 || m["session_recall_all@5"] != 100 || m["turn_recall_all@5"] != 100 {
		t.Errorf("metrics = %v", m)
	}
	if got := rep.ByCategory["single-session-user"]["session_ndcg_any@1"]; got != 100 {
		t.Errorf("q1 ndcg@1 = %v, want 100", got)
	}
	if got := rep.ByCategory["multi-session"]["session_recall_all@1"]; got != 0 {
		t.Errorf("q2 recall_all@1 = %v, want 0: two answer sessions cannot both be in the top 1", got)
	}
}
