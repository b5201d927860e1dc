package consolidate_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// offSchema is the shop's main answer with segment_summary a number: off
// the schema, and also unreadable into the answer's Go types, so the
// reason a re-ask names tells which check ran first.
func offSchema() (*cairn.LLMResponse, error) {
	var a map[string]any
	json.Unmarshal([]byte(shopMain), &a)
	a["segment_summary"] = 7
	return &cairn.LLMResponse{Text: "```json\n" + mustJSON(a) + "\n```", TokensIn: 10, TokensOut: 1}, nil
}

// TestViolationNeverDecoded: an answer that fails validation is not
// decoded: the reason the window is asked again with is the schema's
// ("at /segment_summary: ..."), never a decoding error, and the second,
// good answer is the one stored. (Decoding first, the re-ask said "read
// answer: json: cannot unmarshal number ...".)
func TestViolationNeverDecoded(t *testing.T) {
	f := newFixture(t, shopSession(), longSession())
	model := badShop(offSchema, true)
	res := f.run(model, nil)
	reasks := shopReasks(model)
	if len(reasks) != 1 {
		t.Fatalf("the window was asked again %d times, want once", len(reasks))
	}
	const want = "answer violates the schema: at /segment_summary: type: 7 is an integer, want string"
	if !strings.Contains(reasks[0], want) || strings.Contains(reasks[0], "unmarshal") {
		t.Errorf("re-ask prompt does not name the violation %q:\n%s", want, reasks[0][strings.Index(reasks[0], reaskMarker):])
	}
	if res.InvalidAnswers != 1 || res.Failed != 0 {
		t.Errorf("%+v, want one invalid answer and no failure", counts(res))
	}
	checkComplete(t, f)
}

// TestSleepViolationNeverDecoded: the same for the sleep pass's answers.
func TestSleepViolationNeverDecoded(t *testing.T) {
	f := newFixture(t)
	f.storeMemories(sleepMemories())
	model := &scripted{fn: func(n int, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
		if !strings.Contains(req.Prompt, reaskMarker) {
			return &cairn.LLMResponse{Text: `{"duplicates":5,"supersedes":[],"related":[]}`}, nil
		}
		return &cairn.LLMResponse{Text: sleepAnswer(req.System, req.Prompt)}, nil
	}}
	res, err := f.eng.Sleep(context.Background(), model, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	const want = "answer violates the schema: at /duplicates: type: 5 is an integer, want array"
	reasked := 0
	for _, r := range model.reqs {
		if p := r.Prompt; strings.Contains(p, reaskMarker) {
			reasked++
			if !strings.Contains(p, want) || strings.Contains(p, "unmarshal") {
				t.Errorf("re-ask prompt does not name the violation %q:\n%s", want, p[strings.Index(p, reaskMarker):])
			}
		}
	}
	if reasked == 0 || res.InvalidAnswers != reasked || res.Failed != 0 {
		t.Errorf("%d re-asks, %+v; want every group asked again once and judged", reasked, res)
	}
}
