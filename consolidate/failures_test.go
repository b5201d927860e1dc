package consolidate_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/google/go-cmp/cmp"
)

// reaskMarker is in the prompt of a window asked again.
const reaskMarker = "Your previous answer to this request could not be used:"

// mistyped is the shop's main answer with one field mistyped in every
// item (importance as a word): read leniently, every item would be lost.
func mistyped() string {
	var a map[string]any
	json.Unmarshal([]byte(shopMain), &a)
	for _, it := range a["items"].([]any) {
		it.(map[string]any)["importance"] = "high"
	}
	return mustJSON(a)
}

func isShopMain(req *cairn.LLMRequest) bool {
	return strings.Contains(req.Prompt, "auth/login_test.go") && !strings.HasPrefix(req.System, "You read one small window")
}

// badShop answers the shop's main window with bad until the window is asked
// again, then with the script when fixed is set; everything else with the
// script.
func badShop(bad func() (*cairn.LLMResponse, error), fixed bool) *scripted {
	return &scripted{fn: func(n int, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
		if isShopMain(req) && (!fixed || !strings.Contains(req.Prompt, reaskMarker)) {
			return bad()
		}
		return &cairn.LLMResponse{Text: script(req.System, req.Prompt), TokensIn: 10, TokensOut: 1}, nil
	}}
}

func mistypedAnswer() (*cairn.LLMResponse, error) {
	return &cairn.LLMResponse{Text: mistyped(), TokensIn: 10, TokensOut: 1}, nil
}

// shopReasks returns the prompts of the shop's main window asked again.
func shopReasks(s *scripted) []string {
	var out []string
	for _, r := range s.reqs {
		if isShopMain(r) && strings.Contains(r.Prompt, reaskMarker) {
			out = append(out, r.Prompt)
		}
	}
	return out
}

// TestSchemaViolationAskedAgain: an answer off the schema is asked again
// once with the violation named in the prompt; a good second answer
// stores every memory.
func TestSchemaViolationAskedAgain(t *testing.T) {
	f := newFixture(t, shopSession(), longSession())
	model := badShop(mistypedAnswer, true)
	res := f.run(model, nil)
	want := wantResult()
	want.InvalidAnswers = 1
	if d := cmp.Diff(want, counts(res)); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	reasks := shopReasks(model)
	if len(reasks) != 1 || !strings.Contains(reasks[0], "at /items/0/importance:") {
		t.Fatalf("the window was asked again %d times; the prompt should name the violation:\n%.300s", len(reasks), strings.Join(reasks, "\n"))
	}
	checkComplete(t, f)
}

// TestWindowFailsAfterTwoBadAnswers: a second answer off the schema fails
// the window with its reason (nothing dropped item by item, the records
// stay pending); after MaxFailures such runs it is given up and skipped
// until a run retries failed windows. A persistent 400 goes the same way.
func TestWindowFailsAfterTwoBadAnswers(t *testing.T) {
	tests := []struct {
		name   string
		bad    func() (*cairn.LLMResponse, error)
		reason string
	}{
		{"mistyped every time", mistypedAnswer, "answer violates the schema: at /items/0/importance:"},
		{"cut at the output limit every time", func() (*cairn.LLMResponse, error) {
			return nil, &spentError{InvalidOutputError: cairn.InvalidOutputError{Reason: "answer cut at the output limit (max_tokens 32000)", Raw: `{"segment_summary":"Dana`}, in: 10, out: 32000}
		}, "answer cut at the output limit (max_tokens 32000)"},
		{"persistent 400", func() (*cairn.LLMResponse, error) {
			return nil, fmt.Errorf("chat completion: %w: 400 Bad Request: context length exceeded", cairn.ErrInvalid)
		}, "400 Bad Request: context length exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, shopSession(), longSession())
			for run := 1; run <= consolidate.DefaultMaxFailures; run++ {
				model := badShop(tt.bad, false)
				res := f.run(model, nil)
				status := cairn.ConsolidateCompletedWithFailures
				if run > 1 {
					status = cairn.ConsolidateFailed // the other windows are done: none succeeded
				}
				if res.Status != status || res.Failed != 1 || len(res.Failures) != 1 {
					t.Fatalf("run %d: status %s, %d failed (%+v), want %s and the shop window", run, res.Status, res.Failed, res.Failures, status)
				}
				fl := res.Failures[0]
				if fl.Thread != shopThread || fl.Pass != consolidate.PassMain || fl.Records != 3 || fl.Tries != run ||
					fl.GivenUp != (run == consolidate.DefaultMaxFailures) || fl.Skipped || !strings.Contains(fl.Reason, tt.reason) {
					t.Errorf("run %d: failure %+v, want tries %d and reason %q", run, fl, run, tt.reason)
				}
				if res.Dropped[consolidate.DropMalformedItem] != 0 || res.Dropped[consolidate.DropInvalidAnswer] != 1 {
					t.Errorf("run %d: dropped %v, want only the window's invalid_answer", run, res.Dropped)
				}
				if res.Pending != 3 {
					t.Errorf("run %d: %d records pending, want the shop's 3", run, res.Pending)
				}
				if n := len(shopReasks(model)); n != 1 {
					t.Errorf("run %d: the shop window was asked again %d times, want once", run, n)
				}
				b, _ := json.Marshal(res)
				if !strings.Contains(string(b), `"failures":[{"thread":"`+shopThread) {
					t.Errorf("run %d: JSON does not list the failure: %s", run, b)
				}
			}

			// Given up: the next run asks nothing about it and says so.
			model := badShop(tt.bad, false)
			res := f.run(model, nil)
			if len(model.reqs) != 0 || res.Status != cairn.ConsolidateCompletedWithFailures || len(res.Failures) != 1 ||
				!res.Failures[0].Skipped || !res.Failures[0].GivenUp || res.Pending != 3 {
				t.Errorf("run after giving up: %d requests, %+v, want none and the window skipped", len(model.reqs), counts(res))
			}
			// Asked to retry, with a model that answers well: done.
			res = f.run(&scripted{}, &cairn.ConsolidateOptions{RetryFailed: true})
			if res.Status != cairn.ConsolidateCompleted || res.Windows != 1 || res.Failed != 0 {
				t.Errorf("retry: %+v", counts(res))
			}
			checkComplete(t, f)
			if res := f.run(badShop(tt.bad, false), nil); res.Failed != 0 || res.Status != cairn.ConsolidateCompleted {
				t.Errorf("after the retry: %+v, want the failure forgotten", counts(res))
			}
		})
	}
}

// spentError is how the clients report an answer that was billed and
// unusable.
type spentError struct {
	cairn.InvalidOutputError
	in, out int
}

func (e *spentError) Unwrap() error         { return &e.InvalidOutputError }
func (e *spentError) Tokens() (in, out int) { return e.in, e.out }

// TestTokensOfInvalidAnswers: the tokens of answers cut short count in the
// run's totals, the retries' too.
func TestTokensOfInvalidAnswers(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			f := newFixture(t, shopSession(), longSession())
			srv := newWireServer(t, format, nil)
			srv.setFault(func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n <= 2 { // the shop's main window and its retry, cut short
					sys, prompt := srv.read(mustRead(r))
					a := script(sys, prompt)
					w.Write([]byte(srv.wrap(a[:len(a)/2], "length")))
					return true
				}
				return false
			})
			res := f.run(client(format, srv.URL, 0), nil)
			calls := len(srv.requests()) // every response bills 1000 in, 100 out
			if res.TokensIn != 1000*calls || res.TokensOut != 100*calls || res.InvalidAnswers != 2 {
				t.Errorf("%d calls: tokens %d in, %d out, %d invalid; want %d, %d, 2", calls, res.TokensIn, res.TokensOut,
					res.InvalidAnswers, 1000*calls, 100*calls)
			}
		})
	}
}

// TestSleepAllAnswersInvalid: a sleep pass whose every answer is unusable
// is not completed: it fails, counting the invalid answers and their
// tokens; a pass with some unusable groups completes with failures.
func TestSleepAllAnswersInvalid(t *testing.T) {
	for _, tt := range []struct {
		name       string
		badFrom    int // requests from this one are off the schema
		status     string
		groups     int
		invalid    int
		wantFailed int
	}{
		{"every answer", 1, cairn.ConsolidateFailed, 0, 4, 2},
		{"the second group", 2, cairn.ConsolidateCompletedWithFailures, 1, 2, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.storeMemories(sleepMemories())
			srv := newWireServer(t, "openai", nil)
			srv.answer = func(system, prompt string) string {
				if len(srv.requests()) >= tt.badFrom {
					return `{"duplicates":[{"keep":"x","merge":"y"}],"supersedes":[],"related":[]}`
				}
				return sleepAnswer(system, prompt)
			}
			res := f.sleep(srv.URL, nil)
			calls := len(srv.requests())
			if res.Status != tt.status || res.Groups != tt.groups || res.InvalidAnswers != tt.invalid || res.Failed != tt.wantFailed {
				t.Errorf("%+v, want status %s, %d groups, %d invalid answers, %d failed", sleepCounts(res), tt.status, tt.groups, tt.invalid, tt.wantFailed)
			}
			if res.TokensIn != 1000*calls || res.TokensOut != 100*calls {
				t.Errorf("%d calls: tokens %d in, %d out, want every call counted", calls, res.TokensIn, res.TokensOut)
			}
		})
	}
}

// TestLongRecordLastPartNotKept: the long record's last part answers
// keep: false with an empty title and summary; the episode the earlier
// parts wrote is stored (the run used to drop it without a trace).
func TestLongRecordLastPartNotKept(t *testing.T) {
	f := newFixture(t, longSession())
	model := &scripted{fn: func(n int, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
		text := script(req.System, req.Prompt)
		if strings.Contains(req.Prompt, "this is part 3.") && !strings.HasPrefix(req.System, "You read one small window") {
			text = mustJSON(map[string]any{"segment_summary": "The rest of the log.", "episodes": []any{map[string]any{"request": 1,
				"outcome": "success", "keep": false, "title": "", "summary": "", "cues": []string{}, "concepts": []string{}}}, "items": []any{}})
		}
		return &cairn.LLMResponse{Text: text}, nil
	}}
	res := f.run(model, nil)
	if res.Episodes != 1 || res.Dropped[consolidate.DropEpisodeNotKept] != 0 {
		t.Fatalf("%+v, want the long record's episode kept", counts(res))
	}
	var ep *cairn.Memory
	for _, m := range f.memories() {
		if m.Kind == cairn.MemoryEpisode {
			ep = &m
		}
	}
	if ep == nil || ep.Title != "Find why the queue backs up (through part 2)" {
		t.Errorf("episode %+v, want the title of part 2", ep)
	}
}
