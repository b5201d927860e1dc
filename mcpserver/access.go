package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn/engine"
)

// Grant is what one bearer token may do on a shared server: use these
// agents (AllAgents: every agent served), read these of their corpora
// (Corpora; nil: every corpus, "memories" included) and, with Write,
// change them (sync, remember, curation changes), or only WriteCorpora of
// them when that is not nil. Name is for messages and logs. The corpora
// reach the engine as its engine.Scope, which puts them into every store
// query of the request (engine/scope.go).
type Grant struct {
	Name         string
	Agents       []string
	Corpora      []string
	Write        bool
	WriteCorpora []string
}

// Scope is the engine scope of a request under g.
func (g Grant) Scope() engine.Scope {
	s := engine.Scope{Grant: g.Name, Read: g.Corpora, Write: g.WriteCorpora}
	if !g.Write {
		s.Write = []string{}
	}
	return s
}

// AllAgents in Grant.Agents grants every agent.
const AllAgents = "*"

// Access is the file-configured access control of a team server (the
// [store] access file): bearer tokens, kept as their sha256, each with its
// Grant. With Access set, a request needs a token it knows, may name only
// the agents its grant names, and writes only with Write; each agent's
// engine reads its own tenant of the store, so a granted request reaches
// no other agent's rows (every store query names the agent).
type Access struct {
	grants map[[sha256.Size]byte]Grant
}

// NewAccess returns the access control of grants keyed by the sha256 hex
// of each token.
func NewAccess(byHash map[string]Grant) (*Access, error) {
	a := &Access{grants: map[[sha256.Size]byte]Grant{}}
	for h, g := range byHash {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("access token %q: the sha256 %q is not 64 hex digits", g.Name, h)
		}
		a.grants[[sha256.Size]byte(b)] = g
	}
	return a, nil
}

// grant returns the grant of the request's bearer token.
func (a *Access) grant(r *http.Request) (Grant, bool) {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return Grant{}, false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
	for h, g := range a.grants { // compare every one in constant time
		if subtle.ConstantTimeCompare(h[:], sum[:]) == 1 {
			return g, true
		}
	}
	return Grant{}, false
}

func (g Grant) allows(agent string) bool {
	return slices.Contains(g.Agents, AllAgents) || slices.Contains(g.Agents, agent)
}

// writeTools are the MCP tools that change an agent's state.
var writeTools = []string{"memory_remember", "memory_forget", "memory_sync_sessions", "memory_recluster", "memory_update_maintenance_task"}

// writes reports whether r changes the agent: a write endpoint, or an MCP
// message calling a write tool (the body is read and put back).
func writes(r *http.Request) (bool, error) {
	if r.Method != http.MethodPost {
		return false, nil
	}
	p := r.URL.Path
	if strings.HasSuffix(p, "/v1/sync") || strings.HasSuffix(p, "/v1/memories") || strings.HasSuffix(p, "/v1/memories/forget") ||
		strings.HasSuffix(p, "/v1/clusters/recluster") || strings.HasSuffix(p, "/v1/tasks/update") { // curation_http.go
		return true, nil
	}
	if !strings.HasSuffix(p, "/mcp") {
		return false, nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return false, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msgs []json.RawMessage
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		_ = json.Unmarshal(t, &msgs)
	} else {
		msgs = []json.RawMessage{t}
	}
	return slices.ContainsFunc(msgs, callsWriteTool), nil
}

// callsWriteTool reports whether one JSON-RPC message calls a write tool.
// The SDK matches member names exactly, the last of a repeated one
// winning, as these maps do; a tool's name under any other spelling of
// "name" counts too (encoding/json, which matches names ignoring case,
// read {"name":"memory_remember","NAME":"memory_search"} as the search
// the SDK does not run). checkRPC refuses other spellings of the
// message's own members.
func callsWriteTool(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	var method string
	if json.Unmarshal(raw, &m) != nil || json.Unmarshal(m["method"], &method) != nil || method != "tools/call" {
		return false
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m["params"], &params) != nil {
		return false
	}
	for k, v := range params {
		var name string
		if strings.EqualFold(k, "name") && json.Unmarshal(v, &name) == nil && slices.Contains(writeTools, name) {
			return true
		}
	}
	return false
}

// allow checks the request's grant for agent: 403 with a message when the
// token may not use the agent or may not write. Allowed, it returns the
// grant, whose corpora the request's engine scope limits it to.
func (a *Access) allow(w http.ResponseWriter, r *http.Request, agent string) (Grant, bool) {
	g, ok := a.grant(r)
	if !ok {
		writeError(w, http.StatusUnauthorized, "missing or unknown bearer token: send Authorization: Bearer <token>")
		return g, false
	}
	if !g.allows(agent) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("token %q may not use agent %q", g.Name, agent))
		return g, false
	}
	wr, err := writes(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "read request body: "+err.Error())
		return g, false
	}
	if wr && !g.Write {
		writeError(w, http.StatusForbidden, fmt.Sprintf("token %q is read only: it may not sync, remember or change curation state of agent %q", g.Name, agent))
		return g, false
	}
	return g, true
}

// scopeCorpora refuses a corpus the request's grant does not read
// (engine.Scope) before the corpora are checked against the configured
// ones, whose message would list every corpus of the agent.
func scopeCorpora(ctx context.Context, corpora []string) error {
	for _, c := range corpora {
		if c = strings.TrimSpace(c); c == "" || c == "all" {
			continue
		}
		if err := engine.CanRead(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// scopeArguments is scopeCorpora of a tool call's corpora argument, the
// one name every tool that selects corpora gives it.
func scopeArguments(ctx context.Context, raw json.RawMessage) error {
	var in struct {
		Corpora []string `json:"corpora"`
	}
	if json.Unmarshal(raw, &in) != nil {
		return nil // a malformed call fails the tool's own check
	}
	return scopeCorpora(ctx, in.Corpora)
}
