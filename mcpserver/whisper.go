package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/whisper"
)

// ObserveOut is the answer of POST /v1/whisper/observe.
type ObserveOut struct {
	Status string `json:"status"`
}

// Whisper answers one prompt-time turn (C28) with the agent's whisperers:
// {} when nothing is injected, else {appendContext}.
func (a *Agent) Whisper(ctx context.Context, t *whisper.Turn) (*whisper.Result, error) {
	// The whisperers run past the request (a run goes on when the caller
	// stops waiting, and its answer is kept for a repeat of the run id),
	// so a grant limited to some corpora (access.go) cannot go with them:
	// such a token is refused rather than answered from every corpus.
	if s, ok := engine.ScopeOf(ctx); ok && s.Read != nil {
		return nil, cairn.Forbiddenf("whisper: token %q may read only some corpora (%s), and the whisperers read them all: use memory_search", s.Grant, strings.Join(s.Read, ", "))
	}
	if a.Enhanced == nil || a.Enhanced.Whisper == nil {
		return &whisper.Result{}, nil
	}
	res, err := a.Enhanced.Whisper.Whisper(ctx, t)
	if err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("whisper: %w", err)
	}
	return &res, nil
}

// Observe reports a completed tool call to the whisperers (C28, C30).
func (a *Agent) Observe(ctx context.Context, o *whisper.Observation) (*ObserveOut, error) {
	if a.Enhanced != nil && a.Enhanced.Whisper != nil {
		a.Enhanced.Whisper.Observe(ctx, o)
	}
	return &ObserveOut{Status: "ok"}, nil
}

// turnShape is what a whisper request is, for error messages.
const turnShape = "{agentId, sessionId, runId, trigger, prompt, messages: [{role, content}]}"

// DecodeTurn reads a whisper request: its top-level fields strictly (an
// unknown one is an error naming the allowed ones), its messages
// leniently, since harnesses send their own message objects and Cairn
// reads only the fields of whisper.Message. A trigger that no harness
// sends (whisper.Triggers) is an error; missing fields are not (the turn
// then does not run: whisper.NoRunReason).
func DecodeTurn(data []byte) (*whisper.Turn, error) {
	type wire struct {
		AgentID   string          `json:"agentId"`
		SessionID string          `json:"sessionId"`
		RunID     string          `json:"runId"`
		Trigger   string          `json:"trigger"`
		Prompt    string          `json:"prompt"`
		Messages  json.RawMessage `json:"messages"`
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, cairn.Invalidf("turn is empty: want a JSON object %s", turnShape)
	}
	if !json.Valid(data) {
		return nil, cairn.Invalidf("turn is not valid JSON: want a JSON object %s", turnShape)
	}
	if data[0] != '{' {
		return nil, cairn.Invalidf("turn is %s, want a JSON object %s", jsonKind(data[0]), turnShape)
	}
	w, err := decode[wire](data)
	if err != nil {
		return nil, err
	}
	t := &whisper.Turn{AgentID: strings.TrimSpace(w.AgentID), SessionID: strings.TrimSpace(w.SessionID),
		RunID: strings.TrimSpace(w.RunID), Trigger: strings.TrimSpace(w.Trigger), Prompt: w.Prompt}
	if t.Trigger != "" && !slices.Contains(whisper.Triggers, t.Trigger) {
		return nil, cairn.Invalidf("trigger %q is unknown: allowed %s (only user runs the whisperers)", t.Trigger, strings.Join(whisper.Triggers, ", "))
	}
	var raws []json.RawMessage
	if msgs := bytes.TrimSpace(w.Messages); len(msgs) > 0 && !bytes.Equal(msgs, []byte("null")) {
		if msgs[0] != '[' {
			kind := jsonKind(msgs[0])
			if msgs[0] == '{' {
				kind = "an object"
			}
			return nil, cairn.Invalidf("messages: got %s, want an array of {role, content} objects (content: a string or [{type, text}])", kind)
		}
		if err := json.Unmarshal(msgs, &raws); err != nil {
			return nil, cairn.Invalidf("messages: want an array of {role, content} objects: %v", err)
		}
	}
	for i, raw := range raws {
		var m whisper.Message
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, cairn.Invalidf("messages[%d] is not a message: want {role, content: string or [{type, text}]}", i)
		}
		t.Messages = append(t.Messages, m)
	}
	return t, nil
}

// WhisperSkippedHeader, on an answer of POST /v1/whisper, says why the
// turn ran no whisperer (whisper.NoRunReason).
const WhisperSkippedHeader = "X-Cairn-Whisper-Skipped"

// whisperAPI serves POST /v1/whisper: the turn's agentId picks the agent
// when the path and header name none, and must agree with them when they
// do.
func (h *httpServer) whisperAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		t, err := DecodeTurn(body)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		a, ok := h.turnAgent(w, r, t.AgentID)
		if !ok {
			return
		}
		out, err := a.Whisper(r.Context(), t)
		if errors.Is(err, cairn.ErrForbidden) {
			writeError(w, http.StatusForbidden, err.Error())
			return
		}
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		if reason := whisper.NoRunReason(t); reason != "" {
			w.Header().Set(WhisperSkippedHeader, reason) // why {} (the body has no place for it, C28)
		}
		writeJSON(w, http.StatusOK, out)
	})
}

// observeAPI serves POST /v1/whisper/observe.
func (h *httpServer) observeAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		o, err := decode[whisper.Observation](body)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		a, ok := h.turnAgent(w, r, o.AgentID)
		if !ok {
			return
		}
		out, _ := a.Observe(r.Context(), &o)
		writeJSON(w, http.StatusOK, out)
	})
}

// turnAgent resolves the agent of a whisper request: the body's agentId
// when the path and header name none (it must be served), else the one
// they name, which the body must not contradict.
func (h *httpServer) turnAgent(w http.ResponseWriter, r *http.Request, id string) (*Agent, bool) {
	a := r.Context().Value(agentKey{}).(*Agent)
	named := r.PathValue("agent") != "" || r.Header.Get(AgentHeader) != ""
	switch {
	case id == "" || id == a.name:
		return a, true
	case named:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("agentId %q differs from the agent the request names (%q): send one", id, a.name))
		return nil, false
	case h.agents[id] == nil:
		writeError(w, http.StatusForbidden, fmt.Sprintf("agent %q is not served here: allowed %s", id, strings.Join(h.names(), ", ")))
		return nil, false
	}
	if h.opts.Access != nil { // the body names another agent than the one checked: its grant too (access.go)
		if _, ok := h.opts.Access.allow(w, r, id); !ok {
			return nil, false
		}
	}
	return h.agents[id], true
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", tooBig.Limit))
		return nil, false
	case err != nil:
		writeError(w, http.StatusBadRequest, "read request body: "+err.Error())
		return nil, false
	}
	return bytes.TrimSpace(body), true
}

// searchAPI serves POST /v1/search in the agent's mode: the judged input
// in judged mode, the local one otherwise.
func searchAPI() http.Handler {
	local, judged := api((*Agent).Search), api((*Agent).JudgedSearch)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Context().Value(agentKey{}).(*Agent); a.judged() {
			judged.ServeHTTP(w, r)
			return
		}
		local.ServeHTTP(w, r)
	})
}

// enhancedDiag fills C16's judge and whisperer parts of diagnostics: the
// credential's state (never the key), what is enabled, the whisperers'
// outcome counts and the memoryWhisperer telemetry of this agent.
func (a *Agent) enhancedDiag(out *DiagnosticsOut) {
	e := a.Enhanced
	if e == nil {
		return
	}
	if e.Credential != nil {
		out.Credential = e.Credential()
	}
	judgeOn := e.Judge != nil && out.Credential != whisper.CredentialDisabled
	out.Enabled.Memory = e.Memory && judgeOn
	out.Enabled.Skill = e.Skill
	out.Enabled.ComplementaryHints = e.ComplementaryHints && out.Enabled.Memory
	if e.Whisper == nil {
		return
	}
	st := e.Whisper.Stats
	out.Whisperers.Memory = st.OutcomesOf(a.name, whisper.KindMemory)
	out.Whisperers.Skill = st.OutcomesOf(a.name, whisper.KindSkill)
	t := st.Telemetry(a.name, "memoryWhisperer")
	o := OpTelemetry{Calls: t.Calls, Outcomes: t.Outcomes, Measurements: map[string]Measurement{}}
	for k, m := range t.Measurements {
		o.Measurements[k] = Measurement(m)
	}
	out.Whisperers.Telemetry["memoryWhisperer"] = o
}
