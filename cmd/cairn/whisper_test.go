package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/mcpserver"
	wt "github.com/cairnmemory/cairn/whisper/whispertest"
)

// TestCLIWhisper: cairn whisper reads a C28 turn on stdin and prints the
// memory whisperer's context, configured in config.toml ([llm.judge],
// [memoryWhisperer] and its queryModel); a turn that does not run prints
// {}; bad stdin exits 2 naming the field.
func TestCLIWhisper(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "db.md"), []byte("# Database\n\nWe set busy_timeout to 5000 ms so writers wait.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "lunch.md"), []byte("# Lunch\n\nSoup on Mondays.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	fj := wt.NewJudge(t, func(call wt.Call) wt.Verdict {
		if call.Rubric == judge.HistoricalRecall.ID || strings.Contains(wt.Excerpt(call), "busy_timeout") {
			return wt.Verdict{P: 0.9}
		}
		return wt.Verdict{P: 0.1}
	})
	qm := wt.NewModel(t, func(int) (string, time.Duration, int) { return wt.Queries("busy_timeout", "writer wait"), 0, 0 })
	f, _ := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0o600)
	fmt.Fprintf(f, "\n[llm.judge]\nbase_url = %q\nmodel = \"judge-m\"\n\n[memoryWhisperer]\nenabled = true\ncorpora = [\"notes\"]\n\n[memoryWhisperer.queryModel]\nendpoint = %q\nmodel = \"q\"\n", fj.URL, qm.URL)
	f.Close()
	turn := `{"agentId":"default","sessionId":"s","runId":"r1","trigger":"user","prompt":"what busy_timeout do the writers use?","messages":[]}`
	out := c.whisper(turn)
	var res struct{ AppendContext string }
	if err := json.Unmarshal([]byte(out), &res); err != nil || !strings.Contains(res.AppendContext, "<memory>\n[{\"source\":\"cairn://notes/db.md\"") {
		t.Fatalf("cairn whisper: %q (%v)", out, err)
	}
	if len(fj.ByRubric(judge.MemoryUsefulness.ID)) == 0 || len(qm.Requests()) != 1 {
		t.Errorf("judge %d usefulness requests, query model %d", len(fj.ByRubric(judge.MemoryUsefulness.ID)), len(qm.Requests()))
	}
	if out := c.whisper(strings.Replace(turn, `"user"`, `"heartbeat"`, 1)); strings.TrimSpace(out) != "{}" {
		t.Errorf("heartbeat turn: %q", out)
	}
	whisperStdin = strings.NewReader(`{"sessionId":"s","bogus":1}`)
	if _, errs, code := c.run("whisper"); code != 2 || !strings.Contains(errs, "unknown field") {
		t.Errorf("bad stdin: exit %d, %q", code, errs)
	}
	// --server: the same turn through a running server's /v1/whisper.
	h, err := mcpserver.NewHandler(mcpserver.HTTPOptions{Agents: []*mcpserver.Agent{mcpserver.NewUnavailableAgent("default", nil, os.ErrNotExist)}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	whisperStdin = strings.NewReader(turn)
	if out := c.ok("whisper", "--server", srv.URL); strings.TrimSpace(out) != "{}" {
		t.Errorf("--server to a server without whisperers: %q", out)
	}
	whisperStdin = strings.NewReader(`{"sessionId":"s","tool":"read","args":{"path":"/x/SKILL.md"},"ok":true}`)
	if out := c.ok("whisper", "--observe", "--server", srv.URL); !strings.Contains(out, `"ok"`) {
		t.Errorf("--observe: %q", out)
	}
}

func (c *cli) whisper(stdin string) string {
	c.t.Helper()
	whisperStdin = strings.NewReader(stdin)
	defer func() { whisperStdin = os.Stdin }()
	return c.ok("whisper")
}

// TestCLIWhisperBadInput: stdin that is not a turn, an unknown trigger,
// an invalid or conflicting agent exit 2 naming the field; a turn that
// does not run prints {} and says why on stderr.
func TestCLIWhisperBadInput(t *testing.T) {
	c := newCLI(t)
	defer func() { whisperStdin = os.Stdin }()
	turn := `{"agentId":"default","sessionId":"s","runId":"r1","trigger":"user","prompt":"hi","messages":[]}`
	for _, tc := range []struct {
		name, stdin, want string
		args              []string
	}{
		{"messages a string", `{"agentId":"default","sessionId":"s","runId":"r","trigger":"user","prompt":"p","messages":"oops"}`, "messages: got a string, want an array of {role, content} objects", nil},
		{"not json", `not json`, "turn is not valid JSON: want a JSON object {agentId", nil},
		{"array", `[1]`, "turn is an array, want a JSON object", nil},
		{"empty", ``, "turn is empty", nil},
		{"unknown trigger", strings.Replace(turn, `"user"`, `"bogus"`, 1), `trigger "bogus" is unknown: allowed user, session_end`, nil},
		{"bad agent", strings.Replace(turn, `"default"`, `"bad agent!"`, 1), `agentId: agent id "bad agent!"`, nil},
		{"conflicting agent", turn, `agentId "default" differs from --agent "other"`, []string{"--agent", "other"}},
	} {
		whisperStdin = strings.NewReader(tc.stdin)
		out, errs, code := c.run(append([]string{"whisper"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" || strings.Contains(errs, "uint8") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.name, code, out, errs, tc.want)
		}
	}
	for _, tc := range []struct{ stdin, why string }{
		{strings.Replace(turn, `"runId":"r1",`, "", 1), "no runId"},
		{strings.Replace(turn, `"user"`, `"heartbeat"`, 1), `trigger "heartbeat"`},
		{strings.Replace(turn, `"agentId":"default",`, "", 1), `no agentId: whispering for agent "default"`},
	} {
		whisperStdin = strings.NewReader(tc.stdin)
		out, errs, code := c.run("whisper")
		if code != 0 || strings.TrimSpace(out) != "{}" || !strings.Contains(errs, tc.why) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.why, code, out, errs)
		}
	}
}

// TestWhisperHelpPlainWords: the help of the whisper and hooks commands
// and docs/hooks.md name no spec item ("C28"): users never saw the spec.
func TestWhisperHelpPlainWords(t *testing.T) {
	c := newCLI(t)
	jargon := regexp.MustCompile(`\bC[0-9]{1,2}\b`)
	for _, args := range [][]string{{"--help"}, {"help", "whisper"}, {"help", "hooks", "run"}, {"help", "hooks", "install"}} {
		out, _, _ := c.run(args...)
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "whisper") || strings.Contains(line, "hooks") {
				if m := jargon.FindString(line); m != "" {
					t.Errorf("cairn %v: %q names %s", args, line, m)
				}
			}
		}
	}
	doc, err := os.ReadFile("../../docs/hooks.md")
	if err != nil {
		t.Fatal(err)
	}
	if m := jargon.FindAllString(string(doc), -1); len(m) > 0 {
		t.Errorf("docs/hooks.md names %v", m)
	}
}
