package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolRemember writes a memory directly (also POST /v1/memories).
const ToolRemember = "memory_remember"

// RememberIn is the input of memory_remember and POST /v1/memories: one
// memory, validated like a consolidated item (consolidate.Told).
type RememberIn struct {
	Kind        string   `json:"kind" jsonschema:"what the memory is: decision, procedure, snippet, template, pitfall, fact, architecture, preference, reference (items) or observation (something that happened or holds about a person or thing)"`
	Title       string   `json:"title,omitempty" jsonschema:"items: a short line naming it (required); observations take none (made from about and summary)"`
	Summary     string   `json:"summary" jsonschema:"the memory itself in one or a few sentences; an observation's text (required)"`
	Body        string   `json:"body,omitempty" jsonschema:"more detail: steps, code, commands (lines kept)"`
	AppliesWhen string   `json:"appliesWhen,omitempty" jsonschema:"items: when it applies"`
	Scope       string   `json:"scope,omitempty" jsonschema:"items: project (default), global or person"`
	Confidence  string   `json:"confidence,omitempty" jsonschema:"items: stated (default: someone said so) or verified (seen to hold)"`
	Importance  *int     `json:"importance,omitempty" jsonschema:"items: 2 to 5 (default 3)"`
	About       string   `json:"about,omitempty" jsonschema:"observations: who or what it is about"`
	Phase       string   `json:"phase,omitempty" jsonschema:"observations: done (default), plan, ongoing or state"`
	EventDate   string   `json:"eventDate,omitempty" jsonschema:"when it happened: YYYY, YYYY-MM or YYYY-MM-DD (or give startDate/endDate, not both)"`
	StartDate   string   `json:"startDate,omitempty" jsonschema:"start of the span it happened over: YYYY, YYYY-MM or YYYY-MM-DD"`
	EndDate     string   `json:"endDate,omitempty" jsonschema:"end of the span, inclusive: YYYY, YYYY-MM or YYYY-MM-DD"`
	Cues        []string `json:"cues,omitempty" jsonschema:"questions or phrases someone would search it by (observations: at most 4)"`
	Concepts    []string `json:"concepts,omitempty" jsonschema:"names of the things it is about: tools, files, people, places (observations: at most 6)"`
}

// RememberOut is the output of memory_remember.
type RememberOut struct {
	ID         string `json:"id" jsonschema:"the memory's id (cairn memories show ID)"`
	Kind       string `json:"kind"`
	Title      string `json:"title"`
	Path       string `json:"path" jsonschema:"cairn://memories/<kind>/<id>.md: pass it to memory_get"`
	Created    bool   `json:"created" jsonschema:"false when the same agent had told the same memory before: it was replaced"`
	Provenance string `json:"provenance" jsonschema:"told by <agent> at <time, UTC>"`
	ToldAt     string `json:"toldAt" jsonschema:"ISO-8601 UTC"`
	Embedded   int    `json:"embedded" jsonschema:"chunks embedded in this call (0 without an embedder)"`
	Warning    string `json:"warning,omitempty" jsonschema:"why the memory is not in vector search yet (the embedder failed; lexical search finds it, the next sync embeds it)"`
}

// tellerKey carries the name of the MCP client calling memory_remember.
type tellerKey struct{}

// CLITeller is the teller of a memory told with cairn remember. An MCP
// client names itself as it likes (its clientInfo): one that calls itself
// "cli" is told by this agent's id instead, so its memories never read as
// typed by the user at the command line (ux F28). Other names are kept as
// given: they are the client's own word, not checked.
const CLITeller = "cli"

// Remember runs memory_remember and POST /v1/memories: the memory is
// stored, redacted, with provenance "told by <agent>": the MCP client's
// name (its clientInfo), else this agent's id (HTTP calls, clients that
// give no name).
func (a *Agent) Remember(ctx context.Context, in RememberIn) (*RememberOut, error) {
	req, err := rememberRequest(in)
	if err != nil {
		return nil, err
	}
	req.Agent = a.name
	if t, _ := ctx.Value(tellerKey{}).(string); strings.TrimSpace(t) != "" {
		req.Agent = t
	}
	if _, err := consolidate.Told(&req, time.Now()); err != nil {
		return nil, surfaceNames(err) // bad input first: the same error with or without an index
	}
	if err := a.unavailable(); err != nil {
		return nil, err
	}
	res, err := a.eng.Remember(ctx, &req)
	if err != nil {
		return nil, fmt.Errorf("remember: %w", err)
	}
	m := &res.Memory
	out := &RememberOut{ID: m.ID, Kind: m.Kind, Title: m.Title, Path: "cairn://" + cairn.MemoriesCorpus + "/" + consolidate.DocumentPath(m),
		Created: res.Created, Provenance: res.Provenance, ToldAt: m.ToldAt.UTC().Format(time.RFC3339), Embedded: res.Embedded}
	if res.EmbedError != "" {
		out.Warning = "not embedded yet, lexical search finds it: " + res.EmbedError
	}
	return out, nil
}

func rememberRequest(in RememberIn) (cairn.RememberRequest, error) {
	r := cairn.RememberRequest{Kind: in.Kind, Title: in.Title, Summary: in.Summary, Body: in.Body, AppliesWhen: in.AppliesWhen,
		Scope: in.Scope, Confidence: in.Confidence, About: in.About, Phase: in.Phase, EventDate: in.EventDate,
		StartDate: in.StartDate, EndDate: in.EndDate, Cues: in.Cues, Concepts: in.Concepts}
	if in.Importance != nil {
		if *in.Importance == 0 { // given as 0: out of range, not the default
			return r, cairn.Invalidf("remember: importance 0: allowed 2 to 5 (default 3)")
		}
		r.Importance = *in.Importance
	}
	return r, nil
}

// checkRemember validates memory_remember's arguments as Remember will.
func checkRemember(raw json.RawMessage) error {
	in, err := decode[RememberIn](raw)
	if err != nil {
		return err
	}
	req, err := rememberRequest(in)
	if err != nil {
		return err
	}
	req.Agent = "check"
	_, err = consolidate.Told(&req, time.Now())
	return surfaceNames(err)
}

// toolNames spells the fields of consolidate.Told's errors as RememberIn
// names them.
var toolNames = strings.NewReplacer("event_date", "eventDate", "start_date", "startDate", "end_date", "endDate",
	"applies_when", "appliesWhen")

// surfaceNames rewrites a validation error's field names to the tool's.
func surfaceNames(err error) error {
	if err == nil || !errors.Is(err, cairn.ErrInvalid) {
		return err
	}
	return cairn.Invalidf("%s", toolNames.Replace(err.Error()))
}

func rememberSchema() *jsonschema.Schema {
	return inputSchema[RememberIn](func(p map[string]*jsonschema.Schema) {
		var kinds []any
		for _, k := range append(slices.Clone(cairn.ItemKinds), cairn.MemoryObservation) {
			kinds = append(kinds, k)
		}
		p["kind"].Enum = kinds
		p["scope"].Enum = []any{"project", "global", "person"}
		p["confidence"].Enum = []any{"stated", "verified"}
		p["phase"].Enum = []any{"done", "plan", "ongoing", "state"}
		// No "default": the SDK fills schema defaults into the arguments,
		// and an observation given importance 3 is refused ("importance is
		// for items"; ux U15). Told gives items 3 when it is left out.
		rangeOf(p["importance"], 2, 5, nil)
		p["summary"].MinLength = jsonschema.Ptr(1)
		p["cues"].MaxItems = jsonschema.Ptr(consolidate.MaxToldList)
		p["concepts"].MaxItems = jsonschema.Ptr(consolidate.MaxToldList)
	})
}

// addRemember registers memory_remember on s: the handler passes the
// client's name on to Remember.
func addRemember(s *mcp.Server, a *Agent) {
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolRemember, InputSchema: rememberSchema(),
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
		Description: "Write a memory directly: a fact, decision, preference, procedure, ... or a dated observation, " +
			"with optional dates, concepts and cues. It is redacted, checked like a consolidated memory (a bad field is an error naming it " +
			"and what is allowed), stored with provenance \"told by <you> at <time>\" and found by memory_search at once " +
			"(corpora [\"memories\"]). Telling the same kind, title and summary again replaces it.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in RememberIn) (*mcp.CallToolResult, *RememberOut, error) {
		if ci := req.ClientInfo(); ci != nil && !strings.EqualFold(strings.TrimSpace(ci.Name), CLITeller) {
			ctx = context.WithValue(ctx, tellerKey{}, ci.Name)
		}
		out, err := a.Remember(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		return nil, out, nil
	})
}
