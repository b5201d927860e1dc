package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/llm"
	"github.com/cairnmemory/cairn/whisper"
	wt "github.com/cairnmemory/cairn/whisper/whispertest"
)

// enhance makes f's agent judged over a fake judge answering answer, with
// the credential state cred.
func enhance(t *testing.T, f *fixture, cred string, answer func(wt.Call) wt.Verdict) *wt.Judge {
	t.Helper()
	fj := wt.NewJudge(t, answer)
	j, err := judge.FromConfig(config.Judge{LLM: config.LLM{API: "openai", BaseURL: fj.URL, Model: "judge-m"}, From: "llm.judge", TimeoutMs: 3000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Cache = nil
	f.agent.Enhanced = &Enhanced{Judged: true, Judge: j, Credential: func() string { return cred }}
	return fj
}

// usefulIf answers usefulness yes for excerpts holding want.
func usefulIf(want string) func(wt.Call) wt.Verdict {
	return func(c wt.Call) wt.Verdict {
		if strings.Contains(wt.Excerpt(c), want) {
			return wt.Verdict{P: 0.92}
		}
		return wt.Verdict{P: 0.2}
	}
}

// TestJudgedSearch: memory_search in judged mode takes bm25Query and
// vectorQuery, judges one passage per request against vectorQuery, and
// returns those at p ≥ minUsefulness with the judged score.
func TestJudgedSearch(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	fj := enhance(t, f, whisper.CredentialAvailable, usefulIf("busy_timeout"))
	cs := connect(t, f.agent)
	var out SearchOut
	callOK(t, cs, ToolSearch, map[string]any{"bm25Query": `"busy_timeout" writers deploys`, "vectorQuery": "how long writers wait for the lock"}, &out)
	if len(out.Results) != 1 || out.Results[0].Path != "cairn://notes/db.md" || out.Results[0].Score != 0.92 || out.Warning != "" {
		t.Fatalf("results %+v warning %q", out.Results, out.Warning)
	}
	if s, _ := out.Results[0].Snippet.(string); !strings.Contains(s, "Set busy_timeout to 5000 ms") || out.Results[0].TextScore != nil {
		t.Errorf("hit %+v", out.Results[0])
	}
	calls := fj.Calls()
	if len(calls) < 2 {
		t.Fatalf("%d judge requests, want one per candidate", len(calls))
	}
	for _, c := range calls {
		conv, _ := c.State["conversation"].(map[string]any)
		if c.Rubric != judge.MemoryUsefulness.ID || conv["currentRequest"] != "how long writers wait for the lock" {
			t.Errorf("request rubric %s conversation %v", c.Rubric, conv)
		}
		if h, _ := conv["history"].([]any); h == nil || len(h) != 0 {
			t.Errorf("history %v, want []", conv["history"])
		}
		if cands, _ := c.State["candidates"].([]any); len(cands) != 1 {
			t.Errorf("candidates %v, want one", cands)
		}
	}
	// minUsefulness lowers the bar.
	callOK(t, cs, ToolSearch, map[string]any{"bm25Query": "busy_timeout writers", "vectorQuery": "writers", "minUsefulness": 0.1, "maxResults": 1}, &out)
	if len(out.Results) != 1 {
		t.Errorf("maxResults 1: %d results", len(out.Results))
	}
	// Local mode's field is a tool error in judged mode, and bad values
	// name their field.
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "x", "bm25Query": "a", "vectorQuery": "b"}, "unknown field \"query\""},
		{map[string]any{"bm25Query": " ", "vectorQuery": "b"}, "bm25Query is blank"},
		{map[string]any{"bm25Query": "a"}, "vectorQuery is blank"},
		{map[string]any{"bm25Query": "a", "vectorQuery": strings.Repeat("b", 24001)}, "vectorQuery is too large"},
		{map[string]any{"bm25Query": "a", "vectorQuery": "b", "minUsefulness": 1.5}, "minUsefulness"},
		{map[string]any{"bm25Query": "a", "vectorQuery": "b", "maxResults": 21}, "maxResults"},
		{map[string]any{"bm25Query": "a", "vectorQuery": "b", "corpora": []string{"nope"}}, "unknown corpus"},
	} {
		text, isErr := call(t, cs, ToolSearch, tt.args)
		if !isErr || !strings.Contains(text, tt.want) {
			t.Errorf("%v: error %v %q, want %q", tt.args, isErr, text, tt.want)
		}
	}
	tel := f.agent.tel.snapshot("memorySearch")["memorySearch"]
	if tel.Outcomes["ok"] != 2 || tel.Measurements["judgeMs"].Samples != 2 {
		t.Errorf("telemetry %+v", tel)
	}
	// POST /v1/search takes the judged input in judged mode.
	srv := serve(t, HTTPOptions{Agents: []*Agent{f.agent}})
	code, body := do(t, srv, request{method: "POST", path: "/v1/search", body: `{"bm25Query":"busy_timeout","vectorQuery":"how long writers wait"}`})
	if code != 200 || !strings.Contains(body, `"path":"cairn://notes/db.md"`) || !strings.Contains(body, `"score":0.92`) {
		t.Errorf("/v1/search: %d %s", code, body)
	}
	if code, body := do(t, srv, request{method: "POST", path: "/v1/search", body: `{"query":"busy_timeout"}`}); code != 400 || !strings.Contains(body, `unknown field \"query\"`) {
		t.Errorf("/v1/search with local input: %d %s", code, body)
	}
}

// TestJudgedSearchOutcomes: no judge, a disabled one, every judgment
// failing, some failing, none eligible, an unreadable key.
func TestJudgedSearchOutcomes(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	args := map[string]any{"bm25Query": "busy_timeout writers deploys", "vectorQuery": "writers"}
	for _, tt := range []struct {
		name, cred string
		answer     func(wt.Call) wt.Verdict
		args       map[string]any
		toolErr    bool
		errText    string
		warning    string
		results    int
	}{
		{name: "missing key", cred: whisper.CredentialMissing, errText: "no judge"},
		{name: "disabled", cred: whisper.CredentialDisabled, errText: "the judge is disabled"},
		{name: "unreadable", cred: whisper.CredentialUnreadable, toolErr: true, errText: "cannot be read"},
		{name: "all failed", answer: func(wt.Call) wt.Verdict { return wt.Verdict{Status: http.StatusInternalServerError} },
			errText: "every judgment failed"},
		{name: "some failed", answer: func(c wt.Call) wt.Verdict {
			if strings.Contains(wt.Excerpt(c), "busy_timeout") {
				return wt.Verdict{P: 0.9}
			}
			return wt.Verdict{Status: http.StatusBadGateway}
		}, warning: "judgments failed (http_error)", results: 1},
		{name: "none eligible", args: map[string]any{"bm25Query": "zzqqx", "vectorQuery": "zzqqx"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cred := tt.cred
			if cred == "" {
				cred = whisper.CredentialAvailable
			}
			answer := tt.answer
			if answer == nil {
				answer = usefulIf("busy_timeout")
			}
			enhance(t, f, cred, answer)
			a := args
			if tt.args != nil {
				a = tt.args
			}
			text, isErr := call(t, connect(t, f.agent), ToolSearch, a)
			if isErr != tt.toolErr {
				t.Fatalf("tool error %v: %s", isErr, text)
			}
			if tt.toolErr {
				if !strings.Contains(text, tt.errText) {
					t.Errorf("error %q, want %q", text, tt.errText)
				}
				return
			}
			var out SearchOut
			json.Unmarshal([]byte(text), &out)
			if !strings.Contains(out.Error, tt.errText) || (tt.errText == "" && out.Error != "") || !strings.Contains(out.Warning, tt.warning) || len(out.Results) != tt.results {
				t.Errorf("out %+v", out)
			}
		})
	}
}

// TestJudgedGolden pins the judged memory_search schema; the default
// tools golden stays the local one (TestToolSchemasGolden).
func TestJudgedGolden(t *testing.T) {
	f := newFixture(t, fixtureOpts{noSync: true})
	f.agent.Enhanced = &Enhanced{Judged: true}
	res, err := connect(t, f.agent).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == ToolSearch {
			got, _ := json.MarshalIndent(tool, "", "  ")
			golden(t, "search.judged.golden.json", append(got, '\n'))
			return
		}
	}
	t.Fatal("no memory_search")
}

// TestWhisperHTTP: POST /v1/whisper runs the agent's whisperers and
// answers {appendContext}; observe reaches them; the body's agentId picks
// the agent; diagnostics counts the outcomes without text.
func TestWhisperHTTP(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	fj := wt.NewJudge(t, func(c wt.Call) wt.Verdict {
		if c.Rubric == judge.HistoricalRecall.ID || strings.Contains(wt.Excerpt(c), "busy_timeout") {
			return wt.Verdict{P: 0.9}
		}
		return wt.Verdict{P: 0.1}
	})
	j, err := judge.FromConfig(config.Judge{LLM: config.LLM{API: "openai", BaseURL: fj.URL, Model: "judge-m"}, From: "llm.judge"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	qm := wt.NewModel(t, func(int) (string, time.Duration, int) { return wt.Queries("busy_timeout", "writer wait"), 0, 0 })
	model, err := llm.New(config.LLM{API: "openai", BaseURL: qm.URL, Model: "q"}, cairn.PurposeFast, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.DefaultMemoryWhisperer()
	cfg.Enabled, cfg.Corpora = true, []string{"notes"}
	stats := &whisper.Stats{}
	cred := func() string { return whisper.CredentialAvailable }
	mw := whisper.NewMemoryWhisperer(whisper.MemoryOptions{Config: cfg, Retriever: whisper.EngineRetriever{Engine: f.eng},
		Judge: j, Credential: cred, QueryModel: model, Stats: stats})
	svc := whisper.NewService(stats, nil, mw)
	t.Cleanup(svc.Close)
	f.agent.Enhanced = &Enhanced{Judge: j, Credential: cred, Whisper: svc, Memory: true}
	srv := serve(t, HTTPOptions{Agents: []*Agent{f.agent}})
	body := `{"agentId":"default","sessionId":"s1","runId":"r1","trigger":"user","prompt":"what busy_timeout do writers use?",` +
		`"messages":[{"role":"user","content":[{"type":"text","text":"hi"}],"id":"m1","timestamp":1733040000000},{"role":"assistant","content":"hello"}]}`
	code, got := do(t, srv, request{method: "POST", path: "/v1/whisper", body: body})
	if code != 200 {
		t.Fatalf("status %d: %s", code, got)
	}
	var res whisper.Result
	json.Unmarshal([]byte(got), &res)
	if !strings.HasPrefix(res.AppendContext, "<cairn_memory>\n"+whisper.RetrievedNote+"\n<memory>\n[{\"source\":\"cairn://notes/db.md\"") || !strings.HasSuffix(res.AppendContext, "</memory>\n</cairn_memory>") {
		t.Errorf("appendContext %q", res.AppendContext)
	}
	for _, tt := range []struct {
		body string
		code int
		want string
	}{
		{strings.Replace(body, `"r1"`, `"r2"`, 1), 200, `{}`}, // cooling: the only useful passage was just shown
		{`{"agentId":"default","sessionId":"s1","runId":"r3","trigger":"heartbeat","prompt":"x"}`, 200, `{}`},
		{`{"agentId":"other","sessionId":"s1","runId":"r3","trigger":"user","prompt":"x"}`, 403, "not served here"},
		{`{"agentId":"default","sessionId":"s1","runId":"r3","trigger":"user","prompt":"x","extra":1}`, 400, "unknown field"},
	} {
		code, got := do(t, srv, request{method: "POST", path: "/v1/whisper", body: tt.body})
		if code != tt.code || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %d %s, want %d %s", tt.body, code, got, tt.code, tt.want)
		}
	}
	code, got = do(t, srv, request{method: "POST", path: "/v1/whisper/observe", body: `{"agentId":"default","sessionId":"s1","tool":"Read","args":{"file_path":"/x/SKILL.md"},"ok":true}`})
	if code != 200 || !strings.Contains(got, `"ok"`) {
		t.Errorf("observe: %d %s", code, got)
	}
	var d DiagnosticsOut
	callOK(t, connect(t, f.agent), ToolDiagnostics, map[string]any{}, &d)
	if d.Credential != "available" || !d.Enabled.Memory || d.Enabled.Skill || d.Whisperers.Memory["emitted"] != 1 ||
		d.Whisperers.Memory["cooldown"] != 1 || d.Whisperers.Memory["queries_generated"] != 2 || len(d.Whisperers.Memory) != len(whisper.Outcomes) {
		t.Errorf("diagnostics credential %s enabled %+v memory %v", d.Credential, d.Enabled, d.Whisperers.Memory)
	}
	if tel := d.Whisperers.Telemetry["memoryWhisperer"]; tel.Calls != 2 || tel.Outcomes["ok"] != 1 {
		t.Errorf("memoryWhisperer telemetry %+v", tel)
	}
	raw, _ := json.Marshal(d.Whisperers)
	for _, text := range []string{"busy_timeout", "writer", "notes/db.md"} {
		if strings.Contains(string(raw), text) {
			t.Errorf("diagnostics hold %q: %s", text, raw)
		}
	}
}
