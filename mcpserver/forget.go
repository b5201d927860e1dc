package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolForget removes a memory (also POST /v1/memories/forget).
const ToolForget = "memory_forget"

// ForgetIn is the input of memory_forget and POST /v1/memories/forget.
type ForgetIn struct {
	ID string `json:"id" jsonschema:"the memory's id: a memory_search hit's memory.id, memory_remember's id (required)"`
}

// ForgetOut is the output of memory_forget.
type ForgetOut struct {
	ID    string `json:"id" jsonschema:"the memory forgotten"`
	Kind  string `json:"kind"`
	Title string `json:"title"`
	Path  string `json:"path" jsonschema:"the cairn://memories/ path it had: memory_get no longer finds it"`
	// Restored and Reduced are the other memories the forget changed
	// (engine.ForgetResult).
	Restored []ForgetChanged `json:"restored" jsonschema:"memories the forgotten one had absorbed or replaced, active again: one may say the same, forget it too"`
	Reduced  []ForgetChanged `json:"reduced" jsonschema:"memories the forgotten one had been merged into, with what it added taken out"`
	Profiles []ForgetChanged `json:"profiles" jsonschema:"profiles built from a forgotten observation, forgotten with it (the next sleep pass builds them again without it)"`
}

// ForgetChanged names one memory a forget changed.
type ForgetChanged struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Title string `json:"title"`
}

// Forget runs memory_forget and POST /v1/memories/forget: the memory is
// removed from the durable store and the memories corpus
// (engine.Forget). The caller's grant must allow changing the memories
// corpus. An unknown id is an error naming it.
func (a *Agent) Forget(ctx context.Context, in ForgetIn) (*ForgetOut, error) {
	id, err := forgetID(in)
	if err != nil {
		return nil, err
	}
	if err := a.unavailable(); err != nil {
		return nil, err
	}
	res, err := a.eng.Forget(ctx, id)
	if err != nil {
		return nil, err
	}
	m := &res.Memory
	out := &ForgetOut{ID: m.ID, Kind: m.Kind, Title: m.Title, Path: "cairn://" + cairn.MemoriesCorpus + "/" + consolidate.DocumentPath(m),
		Restored: changedOf(res.Restored), Reduced: changedOf(res.Reduced), Profiles: changedOf(res.Profiles)}
	return out, nil
}

func changedOf(ms []cairn.Memory) []ForgetChanged {
	out := make([]ForgetChanged, 0, len(ms))
	for _, m := range ms {
		out = append(out, ForgetChanged{ID: m.ID, Kind: m.Kind, Title: m.Title})
	}
	return out
}

// forgetID is the id a forget names, refused when blank.
func forgetID(in ForgetIn) (string, error) {
	id := strings.TrimSpace(in.ID)
	if id == "" {
		return "", cairn.Invalidf("forget: id is required: a memory's id (memory_search hits carry it as memory.id)")
	}
	return id, nil
}

// checkForget validates memory_forget's arguments as Forget will.
func checkForget(raw json.RawMessage) error {
	in, err := decode[ForgetIn](raw)
	if err != nil {
		return err
	}
	_, err = forgetID(in)
	return err
}

func forgetSchema() *jsonschema.Schema {
	return inputSchema[ForgetIn](func(p map[string]*jsonschema.Schema) {
		p["id"].MinLength = jsonschema.Ptr(1)
	})
}

// addForget registers memory_forget on s.
func addForget(s *mcp.Server, a *Agent) {
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolForget, InputSchema: forgetSchema(),
		Annotations: &mcp.ToolAnnotations{IdempotentHint: false, DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
		Description: "Forget a memory, told or consolidated, by its id: it is removed from memory and memory_search, memory_get, " +
			"memory_explore and memory_gather no longer return it; a later consolidation of the same sessions does not write it again. " +
			"Use it for a memory that is wrong or private. It answers which other memories changed (one it had absorbed is active again). " +
			"Telling the same memory again with memory_remember stores it again.",
	}, handler(a.Forget))
}
