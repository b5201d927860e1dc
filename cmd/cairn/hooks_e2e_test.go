package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestMain lets the test binary stand in for the cairn executable: with
// CAIRN_TEST_AS_CLI=1 it runs the command line it was given, so a hook
// command installed into Claude Code's settings (which names
// os.Executable, the test binary here) runs as Claude Code would run it.
func TestMain(m *testing.M) {
	if os.Getenv("CAIRN_TEST_AS_CLI") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// wordEmbeddings is an OpenAI-compatible /embeddings endpoint giving each
// text a vector of hashed word counts, so texts sharing words are close.
func wordEmbeddings(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if r.URL.Path != "/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, text := range req.Input {
			v := make([]float32, 256)
			v[255] = 0.01 // never the zero vector
			for _, word := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
				h := fnv.New32a()
				h.Write([]byte(word))
				v[h.Sum32()%255]++
			}
			data = append(data, item{i, v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// claudeTranscript writes a Claude Code transcript (the records Claude
// Code writes under projects/) with one exchange before the prompt.
func claudeTranscript(t *testing.T, dir, session string) string {
	path := filepath.Join(dir, "projects", "-home-dev-site", session+".jsonl")
	os.MkdirAll(filepath.Dir(path), 0o700)
	lines := []string{
		`{"type":"summary","summary":"Site work","leafUuid":"u2"}`,
		fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/site","sessionId":%q,"version":"2.1.150","type":"user","message":{"role":"user","content":"The website build passes now."},"uuid":"u1","timestamp":"2026-11-30T09:00:00.000Z"}`, session),
		fmt.Sprintf(`{"parentUuid":"u1","isSidechain":false,"userType":"external","cwd":"/home/dev/site","sessionId":%q,"version":"2.1.150","type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"text","text":"Good: the build is green, ready to ship."}],"stop_reason":"end_turn"},"uuid":"u2","timestamp":"2026-11-30T09:00:05.000Z"}`, session),
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// runHook runs an installed hook command as Claude Code does: through the
// shell, the hook input on stdin.
func runHook(t *testing.T, command string, input any) (stdout, stderr string) {
	t.Helper()
	in, _ := json.Marshal(input)
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Env = append(os.Environ(), "CAIRN_TEST_AS_CLI=1")
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook %s: %v (stderr %s)", command, err, errb.String())
	}
	return out.String(), errb.String()
}

// installedCommand returns the command of Cairn's hook on an event.
func installedCommand(t *testing.T, settings []byte, event string) string {
	t.Helper()
	for _, c := range hookCommands(t, settings, event) {
		if _, cmd, _ := strings.Cut(c, "|"); isCairnCommand(cmd) {
			return cmd
		}
	}
	t.Fatalf("no Cairn hook on %s", event)
	return ""
}

// TestHooksClaudeCodeEndToEnd installs the hooks, runs the installed
// UserPromptSubmit command with a UserPromptSubmit input as Claude Code
// sends it, and checks the context it emits: the skill whisperer (local
// mode: no judge configured) names the deploy skill. Uninstall then
// restores the settings file byte for byte.
func TestHooksClaudeCodeEndToEnd(t *testing.T) {
	c := newCLI(t)
	claude := claudeDir(t)
	settingsPath := filepath.Join(claude, "settings.json")
	os.MkdirAll(claude, 0o700)
	os.WriteFile(settingsPath, []byte(userSettings), 0o600)
	skillsDir := filepath.Join(t.TempDir(), "skills")
	for name, desc := range map[string]string{"deploy": "Ship the website to the staging server", "review": "Review a pull request for bugs"} {
		p := filepath.Join(skillsDir, name, "SKILL.md")
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\n\nSteps.\n"), 0o600)
	}
	emb := wordEmbeddings(t)
	cfg := fmt.Sprintf("[[corpus]]\nname = \"skills\"\nkind = \"skills\"\npaths = [%q]\n\n[embedder]\nprovider = \"openai\"\nbase_url = %q\nmodel = \"words\"\n\n[skillWhisperer]\nenabled = true\n", skillsDir, emb.URL)
	if err := os.WriteFile(filepath.Join(c.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok("hooks", "install", "claude-code")
	installed := readFile(t, settingsPath)
	command := installedCommand(t, installed, "UserPromptSubmit")

	session := "0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b"
	input := map[string]any{
		"session_id": session, "transcript_path": claudeTranscript(t, claude, session), "cwd": "/home/dev/site",
		"permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": "Please ship the website to the staging server",
	}
	stdout, stderr := runHook(t, command, input)
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("hook stdout is not JSON: %q (stderr %q)", stdout, stderr)
	}
	want := fmt.Sprintf("<cairn_memory>\n<skill>\nThe skill \"deploy\" may be relevant to this request; to use it, read its instructions at %q.\n</skill>\n</cairn_memory>",
		filepath.Join(skillsDir, "deploy", "SKILL.md"))
	if out.HookSpecificOutput.HookEventName != "UserPromptSubmit" || out.HookSpecificOutput.AdditionalContext != want {
		t.Fatalf("hook output = %+v\nwant context %q", out.HookSpecificOutput, want)
	}
	// A prompt no skill fits (in a session with no history) prints nothing at all.
	input["prompt"], input["session_id"], input["transcript_path"] = "zebra quantum", "other-session", ""
	if stdout, stderr := runHook(t, command, input); stdout != "" {
		t.Fatalf("unrelated prompt printed %q (stderr %q)", stdout, stderr)
	}
	// A broken input never blocks the prompt: exit 0, nothing on stdout.
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Env = append(os.Environ(), "CAIRN_TEST_AS_CLI=1")
	cmd.Stdin = strings.NewReader("not json")
	if got, err := cmd.Output(); err != nil || len(got) != 0 {
		t.Fatalf("broken input: %v, stdout %q", err, got)
	}
	c.ok("hooks", "uninstall", "claude-code")
	if back := readFile(t, settingsPath); string(back) != userSettings {
		t.Fatalf("uninstall left:\n%s", back)
	}
}

// TestHooksServer: with --server, the installed commands send the turn to
// POST /v1/whisper and a Read to /v1/whisper/observe of a running cairn
// serve (here a recording stand-in), with the bearer token, and print the
// context the server answers.
func TestHooksServer(t *testing.T) {
	c := newCLI(t)
	claude := claudeDir(t)
	t.Setenv("CAIRN_TOKEN", "tok-1")
	var mu sync.Mutex
	got := map[string][]byte{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[r.URL.Path] = body
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer tok-1" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/v1/whisper" {
			io.WriteString(w, `{"appendContext":"<cairn_memory>\n<skill>\nx\n</skill>\n</cairn_memory>"}`)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	c.ok("hooks", "install", "claude-code", "--server", srv.URL, "--agent", "work")
	settings := readFile(t, filepath.Join(claude, "settings.json"))
	session := "s-1"
	stdout, stderr := runHook(t, installedCommand(t, settings, "UserPromptSubmit"), map[string]any{
		"session_id": session, "prompt_id": "p-7", "transcript_path": claudeTranscript(t, claude, session),
		"hook_event_name": "UserPromptSubmit", "prompt": "ship it",
	})
	if !strings.Contains(stdout, `"additionalContext":"\u003ccairn_memory\u003e\n\u003cskill\u003e\nx`) {
		t.Fatalf("stdout %q, stderr %q", stdout, stderr)
	}
	var turn struct {
		AgentID, SessionID, RunID, Trigger, Prompt string
		Messages                                   []struct{ Role, Content string }
	}
	json.Unmarshal(got["/v1/whisper"], &turn)
	if turn.AgentID != "work" || turn.SessionID != session || turn.RunID != "p-7" || turn.Trigger != "user" || turn.Prompt != "ship it" ||
		len(turn.Messages) != 2 || turn.Messages[0].Content != "The website build passes now." || turn.Messages[1].Role != "assistant" {
		t.Fatalf("turn sent = %s", got["/v1/whisper"])
	}
	readPath := "/home/dev/skills/deploy/SKILL.md"
	runHook(t, installedCommand(t, settings, "PostToolUse"), map[string]any{
		"session_id": session, "hook_event_name": "PostToolUse", "tool_name": "Read",
		"tool_input": map[string]any{"file_path": readPath}, "tool_response": map[string]any{"type": "text"},
	})
	var obs struct {
		AgentID, SessionID, Tool string
		Args                     map[string]string
		OK                       bool
	}
	json.Unmarshal(got["/v1/whisper/observe"], &obs)
	if obs.AgentID != "work" || obs.SessionID != session || obs.Tool != "read" || obs.Args["file_path"] != readPath || !obs.OK {
		t.Fatalf("observation sent = %s", got["/v1/whisper/observe"])
	}
}

// TestHooksWithServe: hooks installed with --server talk to a real cairn
// serve, whose skill whisperer keeps its cooldowns across the hook
// processes: a skill named at one turn cools for cooldownTurns, and the
// PostToolUse hook's Read of its SKILL.md (opened) starts the cooldown
// again.
func TestHooksWithServe(t *testing.T) {
	c := newCLI(t)
	claude := claudeDir(t)
	t.Setenv("CAIRN_TOKEN", "")
	skillsDir := filepath.Join(t.TempDir(), "skills")
	deploy := filepath.Join(skillsDir, "deploy", "SKILL.md")
	os.MkdirAll(filepath.Dir(deploy), 0o700)
	os.WriteFile(deploy, []byte("---\nname: deploy\ndescription: Ship the website to the staging server\n---\n"), 0o600)
	emb := wordEmbeddings(t)
	cfg := fmt.Sprintf("[[corpus]]\nname = \"skills\"\nkind = \"skills\"\npaths = [%q]\n\n[embedder]\nprovider = \"openai\"\nbase_url = %q\nmodel = \"words\"\n\n[skillWhisperer]\nenabled = true\ncooldownTurns = 1\n", skillsDir, emb.URL)
	os.WriteFile(filepath.Join(c.home, "config.toml"), []byte(cfg), 0o600)
	url := startServe(t)
	c.ok("hooks", "install", "claude-code", "--server", url)
	settings := readFile(t, filepath.Join(claude, "settings.json"))
	prompt, observe := installedCommand(t, settings, "UserPromptSubmit"), installedCommand(t, settings, "PostToolUse")
	turn := func(id string) bool {
		t.Helper()
		stdout, stderr := runHook(t, prompt, map[string]any{"session_id": "s1", "prompt_id": id,
			"hook_event_name": "UserPromptSubmit", "prompt": "Please ship the website to the staging server"})
		if stderr != "" {
			t.Fatalf("turn %s: stderr %q", id, stderr)
		}
		return strings.Contains(stdout, "deploy")
	}
	for i, want := range []bool{true, false, true} { // named at 1, cooling at 2, named at 3
		if got := turn(fmt.Sprint("p", i+1)); got != want {
			t.Fatalf("turn %d named deploy: %v, want %v", i+1, got, want)
		}
	}
	runHook(t, observe, map[string]any{"session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": "Read",
		"tool_input": map[string]any{"file_path": deploy}})
	// Turn 4 cools either way (named at 3); a read at turn 4 makes turn 5
	// cool too, which a named-at-3 skill alone would not (5 - 3 > 1).
	if turn("p4") {
		t.Fatal("turn 4 named deploy, opened at 3")
	}
	runHook(t, observe, map[string]any{"session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": "Read",
		"tool_input": map[string]any{"file_path": deploy}})
	if turn("p5") {
		t.Fatal("turn 5 named deploy, opened at 4")
	}
	if !turn("p6") {
		t.Fatal("turn 6 did not name deploy (opened at 4, cooldown 1)")
	}
	if !turn("p6") { // the same prompt id again: the cached answer
		t.Fatal("repeated run p6 answered differently")
	}
}
