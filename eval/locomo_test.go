package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/llm/openai"
)

func TestResolveEvidence(t *testing.T) {
	turns := map[string]bool{"D1:1": true, "D1:2": true, "D2:7": true}
	tests := []struct {
		in   []string
		want []string
		bad  int
	}{
		{[]string{"D1:1"}, []string{"D1:1"}, 0},
		{[]string{" D1 : 2 "}, []string{"D1:2"}, 0},
		{[]string{"1:2"}, []string{"D1:2"}, 0},
		{[]string{"D1:1; D2:7"}, []string{"D1:1", "D2:7"}, 0},
		{[]string{"D9:9", "nonsense", "D1:1", "D1:1"}, []string{"D1:1"}, 2},
	}
	for _, tt := range tests {
		got, bad := resolveEvidence(tt.in, turns)
		b1, _ := json.Marshal(got)
		b2, _ := json.Marshal(tt.want)
		if string(b1) != string(b2) || bad != tt.bad {
			t.Errorf("resolveEvidence(%q) = %v, %d; want %v, %d", tt.in, got, bad, tt.want, tt.bad)
		}
	}
}

// TestLocomoEndToEnd runs a tiny hand-made sample through the whole path.
func TestLocomoEndToEnd(t *testing.T) {
	file := writeTinyLocomo(t)
	rep, err := Locomo(context.Background(), LocomoOptions{Data: file, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 2 || rep.Skipped != 1 || rep.Unresolved != 1 {
		t.Fatalf("report = %+v; want 2 questions scored, 1 skipped, 1 unresolved id", rep)
	}
	if rep.Metrics["turn_recall@1"] != 100 || rep.Metrics["mrr"] != 100 || rep.ByCategory["temporal"]["turn_recall@5"] != 100 {
		t.Errorf("metrics = %v by category %v; both questions should find their turn first", rep.Metrics, rep.ByCategory)
	}
	if _, err := Locomo(context.Background(), LocomoOptions{Data: file, Dir: t.TempDir(), Mode: "hybrid"}); err == nil {
		t.Error("hybrid mode without an embedder should be refused")
	}
}

// TestLocomoQA answers and judges through the real OpenAI-compatible client
// against a fake endpoint that checks each request it receives.
func TestLocomoQA(t *testing.T) {
	var answers, judged int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string
			Messages []struct{ Role, Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "fast-model" || len(req.Messages) != 2 {
			t.Errorf("request %+v, %v", req, err)
		}
		sys, prompt := req.Messages[0].Content, req.Messages[1].Content
		reply := ""
		switch {
		case strings.Contains(sys, "You answer a question"):
			answers++
			if !strings.Contains(prompt, "Question: ") || !strings.Contains(prompt, "Excerpts:\n[1] (") {
				t.Errorf("answer prompt %q", prompt)
			}
			reply = "unknown"
			if strings.Contains(prompt, "What did Melanie paint?") && strings.Contains(prompt, "Melanie: I painted a sunrise") {
				reply = "a sunrise"
			}
		case strings.Contains(sys, "You grade an answer"):
			judged++
			if !strings.Contains(prompt, "Gold answer: ") {
				t.Errorf("judge prompt %q", prompt)
			}
			reply = "WRONG"
			if strings.Contains(prompt, "Gold answer: a sunrise\nGenerated answer: a sunrise") {
				reply = "CORRECT"
			}
		default:
			t.Errorf("unexpected system prompt %q", sys)
		}
		fmt.Fprintf(w, `{"choices":[{"message":{"content":%q}}],"usage":{"prompt_tokens":10,"completion_tokens":2}}`, reply)
	}))
	defer srv.Close()
	file := writeTinyLocomo(t)
	rep, err := Locomo(context.Background(), LocomoOptions{Data: file, Dir: t.TempDir(), QA: openai.New(srv.URL, "fast-model", "")})
	if err != nil {
		t.Fatal(err)
	}
	if answers != 2 || judged != 2 || rep.QA.Answered != 2 || rep.QA.Correct != 1 || rep.QA.JScore != 50 || rep.Metrics["j_score"] != 50 {
		t.Errorf("answers %d judged %d qa %+v metrics %v", answers, judged, rep.QA, rep.Metrics)
	}
	if rep.QA.TokensIn != 40 || rep.QA.TokensOut != 8 {
		t.Errorf("tokens %+v", rep.QA)
	}
}

func writeTinyLocomo(t *testing.T) string {
	t.Helper()
	sample := []map[string]any{{
		"sample_id": "conv-t",
		"conversation": map[string]any{
			"speaker_a": "Caroline", "speaker_b": "Melanie",
			"session_1_date_time": "1:56 pm on 8 May, 2023",
			"session_1": []map[string]string{
				{"speaker": "Caroline", "dia_id": "D1:1", "text": "I went to the LGBTQ support group yesterday."},
				{"speaker": "Melanie", "dia_id": "D1:2", "text": "That sounds wonderful, how was it?"},
			},
			"session_2_date_time": "10:00 am on 20 May, 2023",
			"session_2": []map[string]string{
				{"speaker": "Melanie", "dia_id": "D2:1", "text": "I painted a sunrise over the lake last week."},
				{"speaker": "Caroline", "dia_id": "D2:2", "text": "Pottery class is next on my list."},
			},
		},
		"qa": []map[string]any{
			{"question": "When did Caroline go to the support group?", "evidence": []string{"D1:1"}, "category": 2, "answer": "7 May 2023"},
			{"question": "What did Melanie paint?", "evidence": []string{"D2:1"}, "category": 4, "answer": "a sunrise"},
			{"question": "What is Caroline's pottery teacher called?", "evidence": []string{}, "category": 5},
			{"question": "Unresolvable?", "evidence": []string{"D7:7"}, "category": 1, "answer": "x"},
		},
	}}
	data, _ := json.Marshal(sample)
	file := filepath.Join(t.TempDir(), "locomo.json")
	os.WriteFile(file, data, 0o644)
	return file
}

// TestLocomoAsked: Locomo hands each question it scores to Asked, with
// the evidence's ranks and, with KeepTurns, the turns retrieved; skipped
// questions are not handed over.
func TestLocomoAsked(t *testing.T) {
	file := writeTinyLocomo(t)
	var got []SweepQuestion
	rep, err := Locomo(context.Background(), LocomoOptions{Data: file, Dir: t.TempDir(), KeepTurns: true, Asked: func(q SweepQuestion) { got = append(got, q) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != rep.Questions || len(got) != 2 {
		t.Fatalf("Asked %d times for %d questions scored; want 2", len(got), rep.Questions)
	}
	for _, q := range got {
		if q.Conv != "conv-t" || len(q.Evidence) != 1 || len(q.Ranks) != 1 || q.Ranks[0] != 1 || len(q.Turns) == 0 || q.Turns[0] != q.Evidence[0] {
			t.Errorf("question %+v: want its one evidence turn retrieved first, with the turns", q)
		}
	}
	if got[0].Category != "temporal" || got[1].Category != "single-hop" {
		t.Errorf("categories %q, %q; want temporal, single-hop", got[0].Category, got[1].Category)
	}
}
