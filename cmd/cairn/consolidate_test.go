package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeChat answers chat completions for consolidation: the first record of
// a main window is kept as an episode with one fact; observation windows
// get none.
func fakeChat(t *testing.T) *httptest.Server {
	rec := regexp.MustCompile(`=== Record (\d+)`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		answer := `{"observations":[]}`
		if !strings.Contains(string(body), "cairn_observations") {
			n := 1
			if m := rec.FindStringSubmatch(string(body)); m != nil {
				fmt.Sscan(m[1], &n)
			}
			answer = fmt.Sprintf(`{"segment_summary":"A chat about units.","episodes":[{"request":%d,"outcome":"success","keep":true,"title":"Convert recipe units to metric","summary":"The person asked for metric units and got them.","cues":["metric units"],"concepts":["grams"]}],
"items":[{"kind":"preference","title":"Prefers zebrafish calibration in metric units","summary":"The person wants metric units.","body":"Use grams and litres.","applies_when":"When giving quantities.","scope":"person","requests":[%d],"confidence":"stated","importance":3,"contested":false,"ambiguous":false,"cues":["which units"],"concepts":["metric"]}]}`, n, n)
		}
		out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
			"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 5}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCLIConsolidate(t *testing.T) {
	c := newCLI(t)
	root := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openai-chat")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openai-chat", "--root", "openai-chat="+root)
	c.ok("sync")
	resultKeys := []string{"threads", "windows", "episodes", "items", "observations", "dropped", "pending", "status", "held", "replaced", "invalid_answers", "failed"}

	// Dry run: windows with characters and token estimates, no model.
	out := c.ok("consolidate", "--idle", "0", "--dry-run", "--json")
	wantKeys(t, "dry run", json.RawMessage(out), append(resultKeys, "plan")...)
	var dry struct {
		Windows, Pending int
		Plan             []json.RawMessage
	}
	json.Unmarshal([]byte(out), &dry)
	if dry.Windows == 0 || dry.Pending == 0 || len(dry.Plan) != dry.Windows {
		t.Fatalf("dry run = %s", out)
	}
	wantKeys(t, "planned window", dry.Plan[0], "thread", "pass", "records", "parts", "chars", "tokens_est")
	if text := c.ok("consolidate", "--idle", "0", "--dry-run"); !strings.Contains(text, "chars, ~") || !strings.Contains(text, "dry run:") {
		t.Errorf("dry run text = %q", text)
	}

	// No [llm.consolidate]: paused, exit 0, nothing lost.
	out = c.ok("consolidate", "--idle", "0", "--json")
	wantKeys(t, "consolidate", json.RawMessage(out), resultKeys...)
	if !strings.Contains(out, `"status":"paused_unavailable"`) || !strings.Contains(out, fmt.Sprintf(`"pending":%d`, dry.Pending)) {
		t.Errorf("consolidate without a model = %s", out)
	}

	srv := fakeChat(t)
	cfg := filepath.Join(c.home, "config.toml")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[llm.consolidate]\napi = \"openai\"\nbase_url = %q\nmodel = \"test\"\n", srv.URL+"/v1")
	f.Close()
	out = c.ok("consolidate", "--idle", "0", "--json")
	var res struct {
		Status            string
		Episodes, Pending int
	}
	json.Unmarshal([]byte(out), &res)
	if res.Status != "completed" || res.Episodes == 0 || res.Pending != 0 {
		t.Fatalf("consolidate = %s", out)
	}

	var list struct{ Memories []json.RawMessage }
	out = c.ok("memories", "list", "--json")
	json.Unmarshal([]byte(out), &list)
	if len(list.Memories) == 0 {
		t.Fatalf("memories list = %s", out)
	}
	for _, k := range []string{"id", "kind", "title", "summary", "provenance", "cues", "concepts", "told_at", "status"} {
		if !slices.Contains(keys(t, list.Memories[0]), k) {
			t.Errorf("memories list entry lacks %q: %s", k, list.Memories[0])
		}
	}
	out = c.ok("memories", "list", "--kind", "preference", "--json")
	var m struct{ Memories []struct{ ID, Kind string } }
	json.Unmarshal([]byte(out), &m)
	if len(m.Memories) == 0 || m.Memories[0].Kind != "preference" {
		t.Fatalf("memories list --kind preference = %s", out)
	}
	out = c.ok("memories", "show", m.Memories[0].ID, "--json")
	if !strings.Contains(out, `"id":"`+m.Memories[0].ID+`"`) || !strings.Contains(out, `"provenance":[{`) {
		t.Errorf("memories show = %s", out)
	}
	if text := c.ok("memories", "show", m.Memories[0].ID); !strings.Contains(text, "# Prefers zebrafish calibration") || !strings.Contains(text, "Sources:") {
		t.Errorf("memories show text = %q", text)
	}
	out = c.ok("search", "zebrafish calibration", "--json")
	if !strings.Contains(out, `"corpus":"memories"`) || !strings.Contains(out, `"memory":{"id":"`) || !strings.Contains(out, `"sources":[{`) {
		t.Errorf("search does not find the memory with its sources: %s", out)
	}
	// A consolidate output limit under what a window may need warns; a
	// retry of failed windows with none failed does nothing.
	appendConfig(t, c, "max_output_tokens = 8192\n") // into [llm.consolidate], the last table
	if _, stderr, code := c.run("consolidate", "--idle", "0", "--retry-failed"); code != 0 ||
		!strings.Contains(stderr, "warning: [llm.consolidate] max_output_tokens 8192 is under the 32000") {
		t.Errorf("consolidate with max_output_tokens 8192: exit %d, stderr %q, want a warning", code, stderr)
	}
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"memories", "list", "--kind", "gossip"}, 2},
		{[]string{"memories", "show"}, 2},
		{[]string{"memories", "show", "m-0000000000000000"}, 1},
		{[]string{"memories", "frobnicate"}, 2},
		{[]string{"consolidate", "--limit", "-1"}, 2},
		{[]string{"consolidate", "--idle", "-1m"}, 2},
		{[]string{"consolidate", "--thread", "no-such-session"}, 2},
	} {
		if _, stderr, code := c.run(tt.args...); code != tt.code {
			t.Errorf("cairn %v: exit %d (%s), want %d", tt.args, code, stderr, tt.code)
		}
	}
}

// fakeFast answers the sleep pass: every group's memories are duplicates.
func fakeFast(t *testing.T) *httptest.Server {
	ids := regexp.MustCompile(`=== (m-[0-9a-f]{16}) ·`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.Unmarshal(body, &req)
		var group []string
		for _, m := range ids.FindAllStringSubmatch(req.Messages[len(req.Messages)-1].Content, -1) {
			group = append(group, m[1])
		}
		answer, _ := json.Marshal(map[string]any{"duplicates": []any{map[string]any{"ids": group, "reason": "The same preference."}},
			"supersedes": []any{}, "related": []any{}})
		out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(answer)}}},
			"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 5}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func appendConfig(t *testing.T, c *cli, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprint(f, text)
}

func TestCLIMemoriesSleep(t *testing.T) {
	c := newCLI(t)
	root := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openai-chat")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openai-chat", "--root", "openai-chat="+root)
	c.ok("sync")
	appendConfig(t, c, fmt.Sprintf("\n[llm.consolidate]\napi = \"openai\"\nbase_url = %q\nmodel = \"test\"\n", fakeChat(t).URL+"/v1"))
	c.ok("consolidate", "--idle", "0", "--json")
	count := func(args ...string) int {
		var list struct{ Memories []json.RawMessage }
		json.Unmarshal([]byte(c.ok(append([]string{"memories", "list", "--json"}, args...)...)), &list)
		return len(list.Memories)
	}
	prefs := count("--kind", "preference")
	if prefs < 2 {
		t.Fatalf("%d preference memories, want near-duplicates to sleep on", prefs)
	}
	before := count()
	sleepKeys := []string{"groups", "merged", "superseded", "linked", "profiles", "dropped", "status", "pending", "invalid_answers", "failed"}

	out := c.ok("memories", "sleep", "--dry-run", "--json")
	wantKeys(t, "sleep dry run", json.RawMessage(out), append(sleepKeys, "plan")...)
	out = c.ok("memories", "sleep", "--json") // no [llm.fast]: paused, exit 0
	wantKeys(t, "sleep", json.RawMessage(out), sleepKeys...)
	if !strings.Contains(out, `"status":"paused_unavailable"`) || count() != before {
		t.Errorf("sleep without a fast model = %s", out)
	}

	appendConfig(t, c, fmt.Sprintf("\n[llm.fast]\napi = \"openai\"\nbase_url = %q\nmodel = \"fast\"\n", fakeFast(t).URL+"/v1"))
	var res struct {
		Status         string
		Groups, Merged int
	}
	json.Unmarshal([]byte(c.ok("memories", "sleep", "--json")), &res)
	if res.Status != "completed" || res.Groups == 0 || res.Merged != prefs-1 {
		t.Fatalf("sleep = %+v, want the %d preferences merged into one", res, prefs)
	}
	if n := count(); n != before-res.Merged {
		t.Errorf("%d active memories after merging %d of %d", n, res.Merged, before)
	}
	if n := count("--status", "all"); n != before {
		t.Errorf("%d memories in all, want %d", n, before)
	}
	var gone struct{ Memories []struct{ ID string } }
	json.Unmarshal([]byte(c.ok("memories", "list", "--status", "superseded", "--json")), &gone)
	if len(gone.Memories) != res.Merged {
		t.Fatalf("superseded = %+v", gone)
	}
	id := gone.Memories[0].ID
	out = c.ok("memories", "show", id, "--json")
	if !strings.Contains(out, `"status":"superseded"`) || !strings.Contains(out, `"links":[{`) || !strings.Contains(out, `"kind":"merged"`) {
		t.Errorf("memories show of a merged memory = %s", out)
	}
	if text := c.ok("memories", "show", id); !strings.Contains(text, "Links:\n- merged into m-") {
		t.Errorf("memories show text = %q", text)
	}
	if again := c.ok("memories", "sleep"); !strings.HasPrefix(again, "completed: 0 groups") {
		t.Errorf("a second sleep = %q, want nothing to judge", again)
	}
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"memories", "sleep", "--limit", "-1"}, 2},
		{[]string{"memories", "sleep", "extra"}, 2},
		{[]string{"memories", "list", "--status", "gone"}, 2},
	} {
		if _, stderr, code := c.run(tt.args...); code != tt.code {
			t.Errorf("cairn %v: exit %d (%s), want %d", tt.args, code, stderr, tt.code)
		}
	}
}

// TestCLIConsolidateFailures: a model whose main-window answers break the
// schema: each run reports the failed windows (text and JSON), exit 0;
// after 3 runs they are given up and skipped until --retry-failed.
func TestCLIConsolidateFailures(t *testing.T) {
	c := newCLI(t)
	root := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openai-chat")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openai-chat", "--root", "openai-chat="+root)
	c.ok("sync")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		answer := `{"observations":[]}`
		if !strings.Contains(string(body), "cairn_observations") {
			answer = `{"segment_summary":7,"episodes":[],"items":[]}`
		}
		out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
			"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 5}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	appendConfig(t, c, fmt.Sprintf("\n[llm.consolidate]\napi = \"openai\"\nbase_url = %q\nmodel = \"test\"\n", srv.URL+"/v1"))
	var res struct {
		Status         string
		InvalidAnswers int `json:"invalid_answers"`
		Failed         int
		Failures       []struct {
			Tries   int
			Reason  string
			GivenUp bool `json:"given_up"`
			Skipped bool
		}
	}
	for run := 1; run <= 3; run++ {
		json.Unmarshal([]byte(c.ok("consolidate", "--idle", "0", "--json")), &res)
		want := "failed" // no window succeeded
		if run == 1 {
			want = "completed_with_failures" // the observation windows did
		}
		if res.Status != want || res.Failed == 0 || res.InvalidAnswers != 2*res.Failed || res.Failures[0].Tries != run ||
			!strings.Contains(res.Failures[0].Reason, "at /segment_summary") || res.Failures[0].GivenUp != (run == 3) {
			t.Fatalf("run %d: %+v", run, res)
		}
	}
	if out := c.ok("consolidate", "--idle", "0"); !strings.HasPrefix(out, "completed_with_failures:") || !strings.Contains(out, "given up: skipped") {
		t.Errorf("a run after giving up: %q", out)
	}
	if out := c.ok("consolidate", "--idle", "0", "--dry-run"); !strings.Contains(out, "given up: skipped") {
		t.Errorf("a dry run does not list the given-up windows: %q", out)
	}
	json.Unmarshal([]byte(c.ok("consolidate", "--idle", "0", "--retry-failed", "--json")), &res)
	if res.Status != "failed" || res.Failures[0].Tries != 4 || res.Failures[0].Skipped {
		t.Errorf("--retry-failed: %+v, want the windows asked again", res)
	}
}

// TestConsolidateInterrupt: Ctrl-C while the model answers a window says
// that finished windows are kept (not "context canceled"), and the next
// run consolidates the rest.
func TestConsolidateInterrupt(t *testing.T) {
	c := newCLI(t)
	root := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openai-chat")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openai-chat", "--root", "openai-chat="+root)
	c.ok("sync")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inner := fakeChat(t).Config.Handler
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 2 {
			cancel() // the user presses Ctrl-C while the second window is asked
			http.Error(w, "interrupted", http.StatusServiceUnavailable)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	defer srv.Close()
	f, _ := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0o600)
	fmt.Fprintf(f, "\n[llm.consolidate]\napi = \"openai\"\nbase_url = %q\nmodel = \"test\"\n", srv.URL+"/v1")
	f.Close()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"consolidate", "--idle", "0", "--json"}, &out, &errb)
	if want := "cairn: interrupted: the windows consolidated so far are kept; run cairn consolidate to continue\n"; code != 1 || !strings.HasSuffix(errb.String(), want) {
		t.Fatalf("interrupted consolidate: exit %d, stderr %q; want 1 and %q", code, errb.String(), want)
	}
	if got := c.ok("consolidate", "--idle", "0"); !strings.Contains(got, "completed:") || !strings.Contains(got, "0 records pending") {
		t.Errorf("the next run: %s", got)
	}
}
