package whisper

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/redact/redacttest"
	wt "github.com/cairnmemory/cairn/whisper/whispertest"
)

// TestMemoryEmitted: the gate says recall helps, the query model writes
// {lex, vec}, the lexical lane finds the note, the judge finds it useful:
// one hint, rendered as C29 says, with every request's body as sent.
func TestMemoryEmitted(t *testing.T) {
	r := newRig(t, newEngine(t), rigOpts{answer: useful("busy_timeout")})
	var secret string
	for _, s := range redacttest.Samples() {
		if s.Kind == "github-token" {
			secret = s.Secret
		}
	}
	tn := turn("s1", "r1", "What busy_timeout did we pick for the writers?",
		user("I am tuning SQLite, token "+secret), assistant("Sure, what do you want to change?"))
	sec, err := r.w.Whisper(context.Background(), tn)
	if err != nil {
		t.Fatal(err)
	}
	if sec.Outcome != "emitted" || sec.Kind != KindMemory {
		t.Fatalf("section %+v, want emitted", sec)
	}
	var hints []map[string]string
	if err := json.Unmarshal([]byte(sec.Body), &hints); err != nil {
		t.Fatalf("body is not a JSON array: %v\n%s", err, sec.Body)
	}
	if len(hints) != 1 || hints[0]["source"] != "cairn://notes/db.md" || hints[0]["lines"] != "1-3" ||
		!strings.Contains(hints[0]["body"], "busy_timeout to 5000 ms") {
		t.Errorf("hints %v", hints)
	}
	if strings.Contains(sec.Body, "<") || strings.Contains(sec.Body, ">") {
		t.Errorf("body holds < or >: %s", sec.Body)
	}
	if want := []string{"queries_generated"}; strings.Join(sec.Also, ",") != strings.Join(want, ",") {
		t.Errorf("also %v, want %v", sec.Also, want)
	}

	// The recall gate: historical-recall-v2 over {history, currentRequest},
	// the secret redacted, one-token answer with logprobs.
	gates := r.judge.ByRubric(judge.HistoricalRecall.ID)
	if len(gates) != 1 {
		t.Fatalf("%d recall gate requests, want 1", len(gates))
	}
	g := gates[0]
	if g.State["currentRequest"] != "What busy_timeout did we pick for the writers?" {
		t.Errorf("gate currentRequest %v", g.State["currentRequest"])
	}
	if h, _ := g.State["history"].([]any); len(h) != 2 {
		t.Errorf("gate history %v, want 2 messages", g.State["history"])
	}
	for _, c := range r.judge.Calls() {
		if strings.Contains(c.Raw, secret) {
			t.Errorf("a %s request holds the secret", c.Rubric)
		}
		if c.Body["logprobs"] != true || c.Body["model"] != "judge-m" {
			t.Errorf("a %s request has logprobs %v, model %v", c.Rubric, c.Body["logprobs"], c.Body["model"])
		}
	}
	// Usefulness: one request per passage, judged against the whole
	// conversation, with asOf and the candidate's corpus and path.
	uses := r.judge.ByRubric(judge.MemoryUsefulness.ID)
	if len(uses) == 0 {
		t.Fatal("no usefulness request")
	}
	for _, u := range uses {
		conv, _ := u.State["conversation"].(map[string]any)
		if h, _ := conv["history"].([]any); len(h) != 2 || conv["currentRequest"] != tn.Prompt {
			t.Errorf("usefulness conversation %v", conv)
		}
		if u.State["asOf"] != "2026-12-01" {
			t.Errorf("asOf %v", u.State["asOf"])
		}
		cands, _ := u.State["candidates"].([]any)
		if len(cands) != 1 {
			t.Fatalf("candidates %v, want one per request", cands)
		}
		c := cands[0].(map[string]any)
		if c["corpus"] != "notes" || !strings.HasPrefix(c["sourcePath"].(string), "cairn://notes/") {
			t.Errorf("candidate %v", c)
		}
	}
	// The query model: memory-query-v2's budget (256 tokens, greedy), the
	// schema {lex, vec}, the conversation redacted.
	qs := r.model.Requests()
	if len(qs) != 1 {
		t.Fatalf("%d query requests, want 1", len(qs))
	}
	q := qs[0]
	if q["max_tokens"] != float64(MaxQueryTokens) || q["temperature"] != float64(0) || q["model"] != "query-m" {
		t.Errorf("query request max_tokens %v temperature %v model %v", q["max_tokens"], q["temperature"], q["model"])
	}
	raw, _ := json.Marshal(q)
	if strings.Contains(string(raw), secret) || !strings.Contains(string(raw), `"lex"`) || !strings.Contains(string(raw), "[REDACTED:") {
		t.Errorf("query request: secret present or schema or redaction missing: %s", raw)
	}
	// Logs: events without text.
	logs := r.logText()
	for _, ev := range []string{`"event":"candidate_completed"`, `"event":"completed"`, `"outcome":"emitted"`} {
		if !strings.Contains(logs, ev) {
			t.Errorf("logs lack %s:\n%s", ev, logs)
		}
	}
	for _, text := range []string{"busy_timeout", "tuning SQLite", "writers", secret} {
		if strings.Contains(logs, text) {
			t.Errorf("logs hold text %q:\n%s", text, logs)
		}
	}
	tel := r.stats.Telemetry("main", "memoryWhisperer")
	if tel.Calls != 1 || tel.Outcomes["ok"] != 1 || tel.Measurements["results"].Total != 1 || tel.Measurements["contextChars"].Total == 0 {
		t.Errorf("telemetry %+v", tel)
	}
}

// TestMemoryOutcomes drives the outcomes that end a whisper without a
// hint.
func TestMemoryOutcomes(t *testing.T) {
	eng := newEngine(t)
	gateNo := func(c wt.Call) wt.Verdict {
		if c.Rubric == judge.HistoricalRecall.ID {
			return wt.Verdict{P: 0.2}
		}
		return wt.Verdict{P: 0.95}
	}
	fail := func(c wt.Call) wt.Verdict {
		if c.Rubric == judge.HistoricalRecall.ID {
			return wt.Verdict{P: 0.9}
		}
		return wt.Verdict{Status: http.StatusInternalServerError}
	}
	tests := []struct {
		name     string
		cred     string
		answer   func(wt.Call) wt.Verdict
		query    func(int) (string, time.Duration, int)
		prompt   string
		want     string
		useCalls int // usefulness requests expected, -1: any
	}{
		{name: "missing key", cred: CredentialMissing, answer: useful("busy_timeout"), want: "missing_key"},
		{name: "judge disabled", cred: CredentialDisabled, answer: useful("busy_timeout"), want: "judge_disabled"},
		{name: "unreadable key", cred: CredentialUnreadable, answer: useful("busy_timeout"), want: "failed"},
		{name: "recall not needed", answer: gateNo, want: "recall_not_needed"},
		{name: "rejected", answer: useful("nothing has this"), want: "rejected", useCalls: -1},
		{name: "no candidates", answer: useful("busy_timeout"), want: "no_candidates",
			query: func(int) (string, time.Duration, int) { return wt.Queries("zyxwv qqqjjj", "nothing"), 0, 0 }},
		{name: "all judgments failed", answer: fail, want: "failed", useCalls: -1},
		{name: "generation failed", answer: useful("busy_timeout"), want: "failed",
			query: func(int) (string, time.Duration, int) { return `{"lex":"a","vec":"b","extra":1}`, 0, 0 }},
		{name: "generation blank", answer: useful("busy_timeout"), want: "failed",
			query: func(int) (string, time.Duration, int) { return `{"lex":"  ","vec":"b"}`, 0, 0 }},
		{name: "input too large", answer: useful("busy_timeout"), want: "input_too_large", prompt: strings.Repeat("word ", 5000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, eng, rigOpts{answer: tt.answer, query: tt.query})
			if tt.cred != "" {
				r.cred = tt.cred
			}
			prompt := tt.prompt
			if prompt == "" {
				prompt = "What busy_timeout did we pick?"
			}
			sec, err := r.w.Whisper(context.Background(), turn("s", "r", prompt))
			if err != nil {
				t.Fatal(err)
			}
			if sec.Outcome != tt.want || sec.Body != "" {
				t.Fatalf("section %+v, want outcome %s and no body", sec, tt.want)
			}
			n := len(r.judge.ByRubric(judge.MemoryUsefulness.ID))
			if (tt.useCalls == 0 && n != 0) || (tt.useCalls < 0 && n == 0) {
				t.Errorf("%d usefulness requests", n)
			}
			if tt.name == "all judgments failed" {
				cnt := 0
				for _, a := range sec.Also {
					if a == "judge_candidate_failed" {
						cnt++
					}
				}
				if cnt != n {
					t.Errorf("judge_candidate_failed %d times, want %d", cnt, n)
				}
				if logs := r.logText(); !strings.Contains(logs, `"code":"http_error"`) || strings.Contains(logs, "provider body") {
					t.Errorf("logs:\n%s", logs)
				}
			}
		})
	}
}

// TestMemoryCooldown: a passage shown is not shown again until more than
// cooldownTurns turns have passed; with nothing else eligible the outcome
// is cooldown.
func TestMemoryCooldown(t *testing.T) {
	cfg := config.DefaultMemoryWhisperer()
	cfg.Enabled, cfg.Corpora, cfg.CooldownTurns = true, []string{"notes"}, 1
	r := newRig(t, newEngine(t), rigOpts{cfg: cfg, answer: useful("busy_timeout")})
	want := []string{"emitted", "cooldown", "emitted"}
	for i, w := range want {
		sec, err := r.w.Whisper(context.Background(), turn("s", string(rune('a'+i)), "What busy_timeout did we pick?"))
		if err != nil {
			t.Fatal(err)
		}
		if sec.Outcome != w {
			t.Errorf("turn %d: outcome %s, want %s", i+1, sec.Outcome, w)
		}
	}
	// Another session has its own cooldowns.
	sec, _ := r.w.Whisper(context.Background(), turn("other", "x", "What busy_timeout did we pick?"))
	if sec.Outcome != "emitted" {
		t.Errorf("another session: %s", sec.Outcome)
	}
	// EndSession forgets them.
	r.w.EndSession("main", "s")
	sec, _ = r.w.Whisper(context.Background(), turn("s", "z", "What busy_timeout did we pick?"))
	if sec.Outcome != "emitted" {
		t.Errorf("after EndSession: %s", sec.Outcome)
	}
}

// TestMemoryPayloadLimit: two hints whose rendering (< and > escaped to
// six characters each) passes 5,000 characters give no hint.
func TestMemoryPayloadLimit(t *testing.T) {
	r := newRig(t, newEngine(t), rigOpts{answer: func(c wt.Call) wt.Verdict { return wt.Verdict{P: 0.95} },
		query: func(int) (string, time.Duration, int) { return wt.Queries("markup", "markup"), 0, 0 }})
	sec, err := r.w.Whisper(context.Background(), turn("s", "r", "Show the markup notes"))
	if err != nil {
		t.Fatal(err)
	}
	if sec.Outcome != "payload_limit" || sec.Body != "" {
		t.Errorf("section %+v, want payload_limit", sec)
	}
}

// TestMemoryRedundancy: with complementaryHints, a later passage that an
// earlier one covers (p ≥ 0.9) is dropped; a failed redundancy request
// leaves the top two standing and counts redundancy_unavailable.
func TestMemoryRedundancy(t *testing.T) {
	eng := newEngine(t)
	cfg := config.DefaultMemoryWhisperer()
	cfg.Enabled, cfg.Corpora, cfg.ComplementaryHints = true, []string{"notes"}, true
	fence := func(cover wt.Verdict) func(c wt.Call) wt.Verdict {
		return func(c wt.Call) wt.Verdict {
			switch c.Rubric {
			case judge.HistoricalRecall.ID:
				return wt.Verdict{P: 0.9}
			case judge.Redundancy.ID:
				return cover
			case judge.MemoryUsefulness.ID:
				if strings.Contains(wt.Excerpt(c), "cedar") {
					return wt.Verdict{P: 0.95}
				}
				if strings.Contains(wt.Excerpt(c), "fence") {
					return wt.Verdict{P: 0.85}
				}
			}
			return wt.Verdict{P: 0.05}
		}
	}
	q := func(int) (string, time.Duration, int) {
		return wt.Queries("garden fence", "what we decided about the fence"), 0, 0
	}
	for _, tt := range []struct {
		name  string
		cover wt.Verdict
		hints int
		also  string
	}{
		{"covered", wt.Verdict{P: 0.95}, 1, "queries_generated"},
		{"complementary", wt.Verdict{P: 0.3}, 2, "queries_generated"},
		{"unavailable", wt.Verdict{Status: http.StatusBadGateway}, 2, "queries_generated,redundancy_unavailable"},
	} {
		r := newRig(t, eng, rigOpts{cfg: cfg, answer: fence(tt.cover), query: q})
		sec, err := r.w.Whisper(context.Background(), turn("s", "r", "What did we decide about the garden fence?"))
		if err != nil {
			t.Fatal(err)
		}
		var hints []map[string]string
		json.Unmarshal([]byte(sec.Body), &hints)
		if sec.Outcome != "emitted" || len(hints) != tt.hints || !strings.Contains(hints[0]["body"], "cedar") {
			t.Errorf("%s: outcome %s, %d hints, want %d, cedar first: %v", tt.name, sec.Outcome, len(hints), tt.hints, hints)
		}
		if got := strings.Join(sec.Also, ","); got != tt.also {
			t.Errorf("%s: also %s, want %s", tt.name, got, tt.also)
		}
		pairs := r.judge.ByRubric(judge.Redundancy.ID)
		if len(pairs) == 0 || len(pairs) > MaxRedundancyReqs {
			t.Errorf("%s: %d redundancy requests", tt.name, len(pairs))
		}
		for _, p := range pairs {
			ps, _ := p.State["pairs"].([]any)
			if len(ps) != 1 || p.State["currentRequest"] == nil {
				t.Errorf("%s: redundancy state %v", tt.name, p.State)
			}
		}
	}
}

// TestMemoryDeadline: a judge that answers after the whisper's total
// deadline gives no hint (timed_out), and the late answer never shows up
// in the next run.
func TestMemoryDeadline(t *testing.T) {
	slow := true
	var mu sync.Mutex
	cfg := config.DefaultMemoryWhisperer()
	cfg.Enabled, cfg.Corpora, cfg.TimeoutMs = true, []string{"notes"}, 300
	r := newRig(t, newEngine(t), rigOpts{cfg: cfg, answer: func(c wt.Call) wt.Verdict {
		conv, _ := c.State["conversation"].(map[string]any)
		mu.Lock()
		slow := slow
		mu.Unlock()
		switch {
		case c.Rubric == judge.HistoricalRecall.ID:
			return wt.Verdict{P: 0.9}
		case strings.Contains(conv["currentRequest"].(string), "lunch"):
			return wt.Verdict{P: 0.05}
		case slow && strings.Contains(wt.Excerpt(c), "busy_timeout"):
			return wt.Verdict{P: 0.95, Delay: 600 * time.Millisecond}
		case strings.Contains(wt.Excerpt(c), "busy_timeout"):
			return wt.Verdict{P: 0.95}
		}
		return wt.Verdict{P: 0.05}
	}})
	s := NewService(r.stats, nil, r.w)
	defer s.Close()
	res, err := s.Whisper(context.Background(), turn("s", "r1", "What busy_timeout did we pick?"))
	if err != nil {
		t.Fatal(err)
	}
	if res.AppendContext != "" {
		t.Fatalf("a hint after the deadline: %s", res.AppendContext)
	}
	if n := r.stats.OutcomesOf("main", KindMemory)["timed_out"]; n != 1 {
		t.Errorf("timed_out %d, want 1", n)
	}
	mu.Lock()
	slow = false
	mu.Unlock()
	// The next run: the judge now rejects everything; the slow run's
	// answer (which arrives meanwhile) must not appear.
	time.Sleep(400 * time.Millisecond) // let the slow answer arrive at the fake
	res, err = s.Whisper(context.Background(), turn("s", "r2", "Anything about lunch?"))
	if err != nil {
		t.Fatal(err)
	}
	if res.AppendContext != "" {
		t.Errorf("a late hint in the next run: %s", res.AppendContext)
	}
	// The timed-out run's passage was never recorded as shown.
	res, _ = s.Whisper(context.Background(), turn("s", "r3", "What busy_timeout did we pick?"))
	if !strings.Contains(res.AppendContext, "busy_timeout") {
		t.Errorf("run 3: %q, want the hint (no cooldown from a run that showed nothing)", res.AppendContext)
	}
}

// failingRetriever is an index that cannot be read.
type failingRetriever struct{}

func (failingRetriever) Lanes(context.Context, LaneQuery) ([]Passage, []Passage, error) {
	return nil, nil, fmt.Errorf("open index: %w", cairn.ErrUnavailable)
}

// TestMemoryUnavailable: an index that cannot be read is unavailable,
// with a stage_failed event.
func TestMemoryUnavailable(t *testing.T) {
	r := newRig(t, newEngine(t), rigOpts{answer: useful("busy_timeout")})
	r.w.o.Retriever = failingRetriever{}
	sec, err := r.w.Whisper(context.Background(), turn("s", "r", "What busy_timeout did we pick?"))
	if err != nil || sec.Outcome != "unavailable" || sec.Body != "" {
		t.Fatalf("section %+v, %v", sec, err)
	}
	if !strings.Contains(r.logText(), `"event":"stage_failed"`) {
		t.Errorf("logs:\n%s", r.logText())
	}
}

// TestMemoryBudget: what the models are sent is the whole request and
// the newest whole messages within 24,000 bytes; judge requests ask for
// a one-line answer.
func TestMemoryBudget(t *testing.T) {
	r := newRig(t, newEngine(t), rigOpts{answer: useful("busy_timeout")})
	var msgs []Message
	for i := range 5 {
		msgs = append(msgs, user(fmt.Sprintf("message %d %s", i, strings.Repeat("x", 9000))))
	}
	if _, err := r.w.Whisper(context.Background(), turn("s", "r", "What busy_timeout did we pick?", msgs...)); err != nil {
		t.Fatal(err)
	}
	for _, c := range r.judge.Calls() {
		var hist []any
		if c.Rubric == judge.HistoricalRecall.ID {
			hist, _ = c.State["history"].([]any)
		} else {
			conv, _ := c.State["conversation"].(map[string]any)
			hist, _ = conv["history"].([]any)
		}
		if len(hist) != 2 || !strings.HasPrefix(hist[0].(map[string]any)["text"].(string), "message 3 ") {
			t.Errorf("%s: history of %d messages, want the newest 2", c.Rubric, len(hist))
		}
		if c.Body["max_tokens"] != float64(20) {
			t.Errorf("%s: max_tokens %v, want 20 (one answer line)", c.Rubric, c.Body["max_tokens"])
		}
	}
	q := r.model.Requests()[0]
	raw, _ := json.Marshal(q)
	if !strings.Contains(string(raw), "message 4 ") || strings.Contains(string(raw), "message 2 ") {
		t.Error("the query model was not sent the newest two messages alone")
	}
}

// TestMemoryCooldownTurns: every user turn counts toward a cooldown, also
// one that ends without a search (here a missing key).
func TestMemoryCooldownTurns(t *testing.T) {
	cfg := config.DefaultMemoryWhisperer()
	cfg.Enabled, cfg.Corpora, cfg.CooldownTurns = true, []string{"notes"}, 1
	r := newRig(t, newEngine(t), rigOpts{cfg: cfg, answer: useful("busy_timeout")})
	for i, step := range []struct{ cred, want string }{
		{CredentialAvailable, "emitted"}, {CredentialMissing, "missing_key"}, {CredentialAvailable, "emitted"},
	} {
		r.cred = step.cred
		sec, _ := r.w.Whisper(context.Background(), turn("s", fmt.Sprint(i), "What busy_timeout did we pick?"))
		if sec.Outcome != step.want {
			t.Errorf("turn %d: %s, want %s", i+1, sec.Outcome, step.want)
		}
	}
}
