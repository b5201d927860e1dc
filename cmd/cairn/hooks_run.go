package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/ingest"
	"github.com/cairnmemory/cairn/whisper"
)

// cairn hooks run claude-code user-prompt-submit|post-tool-use: what the
// installed hooks run. Input is Claude Code's hook JSON on stdin
// (https://code.claude.com/docs/en/hooks#common-input-fields): session_id,
// transcript_path, cwd, hook_event_name, prompt_id, and prompt
// (UserPromptSubmit, #userpromptsubmit-input) or tool_name, tool_input and
// tool_response (PostToolUse, #posttooluse-input).
//
// user-prompt-submit turns it into a C28 turn (agent from --agent, session
// from session_id, run id from prompt_id, or a hash of session, prompt and
// transcript size when absent; the conversation from the transcript's
// last messages), runs the whisperers, and prints
// {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
// "additionalContext": "<cairn_memory>…</cairn_memory>"}}
// (#userpromptsubmit-decision-control), or nothing when there is nothing
// to add. post-tool-use reports a Read as an observation (C28, C30: the
// skill whisperer's "opened").
//
// A hook must never stand between the user and the model: every failure
// is a line on stderr and exit status 0 (exit status 2 would block the
// prompt), and nothing is printed on stdout but the JSON above.
//
// With --server URL the turn goes to POST URL/v1/whisper and the
// observation to /v1/whisper/observe of a running cairn serve, the only
// place cooldowns outlive one turn (they are in memory only, C28), with
// $CAIRN_TOKEN as the bearer token when set. Without it the whisperers
// run in this process (hookWhisper): each turn starts with no cooldowns,
// and an observation has nowhere to go.

// Limits of a hook run.
const (
	maxHookInput      = 4 << 20 // bytes of stdin read
	maxTranscriptTail = 4 << 20 // bytes read from the end of the transcript
	hookHistory       = 40      // messages before the prompt sent as the conversation
)

// claudeHookInput is the part of Claude Code's hook input Cairn reads.
type claudeHookInput struct {
	SessionID      string          `json:"session_id"`
	PromptID       string          `json:"prompt_id"`
	TranscriptPath string          `json:"transcript_path"`
	HookEventName  string          `json:"hook_event_name"`
	Prompt         string          `json:"prompt"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
}

// hookWhisper answers a turn in this process: the seam the hook command
// runs through, and tests replace. By default it builds the whisper
// Service over the configured whisperers, memory and skill, for this one
// turn (whisperHere, whisper.go).
var hookWhisper = func(ctx context.Context, e *env, t *whisper.Turn) (whisper.Result, error) {
	return e.whisperHere(ctx, t)
}

func cmdHooksRun(ctx context.Context, e *env, args []string) error {
	fs := e.flags("hooks run")
	server := fs.String("server", "", "URL of a running cairn serve (default: whisper in this process)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "claude-code" || (pos[1] != hookPromptSubmit && pos[1] != hookPostToolUse) {
		return usagef("hooks run: want claude-code %s|%s", hookPromptSubmit, hookPostToolUse)
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, maxHookInput))
	if err != nil {
		e.logf("cairn hook: read stdin: %v", err)
		return nil
	}
	var in claudeHookInput
	if err := json.Unmarshal(data, &in); err != nil {
		e.logf("cairn hook: stdin is not Claude Code hook JSON: %v", err)
		return nil
	}
	if _, err := config.AgentDir("", e.agent); err != nil {
		e.logf("cairn hook: --agent: %v; nothing whispered", err)
		return nil
	}
	if pos[1] == hookPostToolUse {
		if err := hookObserve(ctx, e, &in, *server); err != nil {
			e.logf("cairn hook: %v", err)
		}
		return nil
	}
	out, err := hookPrompt(ctx, e, &in, *server)
	if err != nil {
		e.logf("cairn hook: %v", err)
		return nil
	}
	if out != nil {
		e.stdout.Write(out)
	}
	return nil
}

// hookPrompt answers a UserPromptSubmit: the JSON to print, nil for none.
func hookPrompt(ctx context.Context, e *env, in *claudeHookInput, server string) ([]byte, error) {
	if strings.TrimSpace(in.SessionID) == "" || strings.TrimSpace(in.Prompt) == "" {
		return nil, nil
	}
	t := &whisper.Turn{AgentID: e.agent, SessionID: in.SessionID, RunID: in.PromptID,
		Trigger: whisper.TriggerUser, Prompt: in.Prompt, Messages: transcriptMessages(in.TranscriptPath, in.Prompt)}
	if t.RunID == "" {
		t.RunID = derivedRunID(in)
	}
	var res whisper.Result
	var err error
	if server != "" {
		err = postJSON(ctx, strings.TrimRight(server, "/")+"/v1/whisper", t, &res)
	} else {
		res, err = hookWhisper(ctx, e, t)
	}
	if err != nil || res.AppendContext == "" {
		return nil, err
	}
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	out, err := json.Marshal(map[string]specific{"hookSpecificOutput": {HookEventName: "UserPromptSubmit", AdditionalContext: res.AppendContext}})
	return append(out, '\n'), err
}

// hookObserve reports a Read to the server's whisperers.
func hookObserve(ctx context.Context, e *env, in *claudeHookInput, server string) error {
	if in.ToolName != "Read" || in.SessionID == "" {
		return nil
	}
	if server == "" {
		return nil // in-process whisperers live for one turn: nothing to tell
	}
	o := whisper.Observation{AgentID: e.agent, SessionID: in.SessionID, Tool: "read", Args: in.ToolInput, OK: true}
	return postJSON(ctx, strings.TrimRight(server, "/")+"/v1/whisper/observe", o, nil)
}

// derivedRunID stands in for a missing prompt_id: the same prompt of the
// same session at the same transcript length is the same run.
func derivedRunID(in *claudeHookInput) string {
	size := int64(-1)
	if fi, err := os.Stat(in.TranscriptPath); err == nil {
		size = fi.Size()
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d", in.SessionID, in.Prompt, size))
	return "cc-" + hex.EncodeToString(h[:8])
}

// transcriptMessages reads the last messages of a Claude Code transcript
// (its last maxTranscriptTail bytes), leaving out side chains and a last
// user message equal to the prompt (the transcript may hold it already).
// A transcript that cannot be read gives none: the turn goes on with the
// prompt alone.
func transcriptMessages(path, prompt string) []whisper.Message {
	if path == "" {
		return nil
	}
	data, err := readTail(path, maxTranscriptTail)
	if err != nil {
		return nil
	}
	r, ok := ingest.Reader(cairn.SourceClaudeCode)
	if !ok {
		return nil
	}
	sessions, err := r.Parse(data, ingest.ParseOptions{Path: path})
	if err != nil {
		return nil
	}
	var out []whisper.Message
	for _, s := range sessions {
		for _, m := range s.Messages {
			if m.Sidechain || strings.TrimSpace(m.Text) == "" {
				continue
			}
			wm := whisper.Message{Role: m.Role, Content: whisper.Content(m.Text)}
			if m.Kind == cairn.KindSummary {
				wm.Kind = "summary"
			}
			out = append(out, wm)
		}
	}
	if n := len(out); n > 0 && out[n-1].Role == "user" && strings.TrimSpace(string(out[n-1].Content)) == strings.TrimSpace(prompt) {
		out = out[:n-1]
	}
	if len(out) > hookHistory {
		out = out[len(out)-hookHistory:]
	}
	return out
}

// readTail reads the last n bytes of a file, from the first whole line.
func readTail(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(fi.Size()-n, 0)
	data := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(data, off); err != nil && err != io.EOF {
		return nil, err
	}
	if off > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return data, nil
}

// postJSON posts v to url and decodes the answer into out (nil: ignored).
func postJSON(ctx context.Context, url string, v, out any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, promptHookTimeout*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("whisper via %s: %w", url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if tok := strings.TrimSpace(os.Getenv("CAIRN_TOKEN")); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("whisper via %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("whisper via %s: HTTP %d", url, resp.StatusCode)
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxHookInput))
	if err != nil {
		return fmt.Errorf("whisper via %s: %w", url, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("whisper via %s: answer is not JSON: %w", url, err)
	}
	return nil
}
