package whisper

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVisible: C29's conversation rules, one message kind per line.
func TestVisible(t *testing.T) {
	envelope := "Conversation info: ⟦openclaw:ctx⟧\n```json\n{\"chat_id\": 1, \"sender\": {\"name\": \"Dana\"}}\n```\n\nwhat about the fence?"
	msgs := []Message{
		user("before the compaction"),
		{Role: "assistant", Content: "summary of it all", Kind: "summary"},
		user("first question"),
		{Role: "assistant", Content: "thinking aloud", Channel: "analysis"},
		{Role: "assistant", Content: "half an answer", StopReason: "aborted"},
		{Role: "assistant", Content: "mirror copy", Delivery: "mirror"},
		assistant("NO_REPLY"),
		assistant("HEARTBEAT_OK"),
		{Role: "tool", Content: "tool output"},
		assistant("the answer"),
		assistant("the answer"),
		user(envelope),
		assistant("cedar"),
		user("next question"),
	}
	got := Visible(&Turn{Prompt: "next question", Messages: msgs})
	want := Conversation{CurrentRequest: "next question", History: []Msg{
		{"user", "first question"}, {"assistant", "the answer"}, {"user", "what about the fence?"}, {"assistant", "cedar"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("conversation (-want +got):\n%s", d)
	}
	for _, reset := range []Message{
		{Role: "user", Content: "from another session", Provenance: json.RawMessage(`{"kind":"inter_session"}`)},
		{Role: "user", Content: "bot says", Source: "bot"},
		{Role: "user", Content: "[OpenClaw heartbeat poll]"},
		{Role: "user", Content: "<relevant-memories>old</relevant-memories>"},
		{Role: "assistant", Content: "compacted", Kind: "compaction"},
	} {
		got := Visible(&Turn{Prompt: "q", Messages: []Message{user("old"), reset, user("new")}})
		if d := cmp.Diff([]Msg{{"user", "new"}}, got.History); d != "" {
			t.Errorf("after %+v (-want +got):\n%s", reset, d)
		}
	}
}

// TestContentBlocks: content as a string or as blocks, only text read.
func TestContentBlocks(t *testing.T) {
	var m Message
	if err := json.Unmarshal([]byte(`{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"},{"type":"toolCall","name":"Read"},{"type":"text","text":"b"}],"extra":1}`), &m); err != nil {
		t.Fatal(err)
	}
	if m.Content != "a\nb" {
		t.Errorf("content %q", m.Content)
	}
}

// TestFit: the newest whole messages within the budget, the request
// whole; a request alone over it does not fit.
func TestFit(t *testing.T) {
	big := strings.Repeat("x", 9000)
	c := Conversation{CurrentRequest: "now", History: []Msg{{"user", big}, {"assistant", big}, {"user", big}, {"assistant", "short"}}}
	got, ok := Fit(c)
	if !ok || len(got.History) != 3 || got.History[2].Text != "short" || got.History[0].Text != big {
		t.Errorf("fit kept %d messages, ok %v", len(got.History), ok)
	}
	if _, ok := Fit(Conversation{CurrentRequest: strings.Repeat("y", MaxInputBytes)}); ok {
		t.Error("a request over the budget fits")
	}
	// Tokens bind before bytes for text of many small non-ASCII characters.
	if _, ok := Fit(Conversation{CurrentRequest: strings.Repeat("é", 8200)}); ok {
		t.Error("8,200 two-byte characters (16,400 bytes) fit 8,192 tokens")
	}
}

// FuzzVisible: any turn a harness sends reads without a panic, and what
// Fit keeps is within the budget.
func FuzzVisible(f *testing.F) {
	f.Add(`{"prompt":"q","messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"text","text":"b"}]}]}`)
	f.Add(`{"prompt":"Conversation info: ⟦openclaw:ctx⟧\n` + "```json\\n{}\\n```" + `\n\nhi","messages":[{"role":"user","content":"x","provenance":{}}]}`)
	f.Fuzz(func(t *testing.T, data string) {
		var tn Turn
		if json.Unmarshal([]byte(data), &tn) != nil {
			return
		}
		c, ok := Fit(Visible(&tn))
		if ok && !withinBudget(c) {
			t.Fatalf("Fit kept %d messages over the budget", len(c.History))
		}
		for _, m := range c.History {
			if m.Text == "" || (m.Role != "user" && m.Role != "assistant") {
				t.Fatalf("message %+v", m)
			}
		}
	})
}
