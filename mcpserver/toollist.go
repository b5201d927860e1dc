package mcpserver

import (
	"context"
	"slices"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listGranted is receiving middleware that narrows tools/list to the tools
// the request's grant may call: a read-only token (an access file's grant
// without write) is not offered memory_remember, memory_sync_sessions,
// memory_recluster or memory_update_maintenance_task, whose calls the
// HTTP guard answers with 403 (access.go), and a token that writes only
// some corpora is not offered memory_remember without the memories corpus
// nor memory_sync_sessions without the sessions corpus. The MCP server is
// shared by every token of an agent and serves HTTP statelessly, so the
// list is filtered per request (the grant rides in the request's context
// as its engine.Scope) instead of per server or session. Tools whose
// refusal depends on stored state (the clustering run's corpora a
// corpus-limited token may not read all of) stay listed and answer 403
// naming the corpus. Without access control every tool is listed.
func (a *Agent) listGranted(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || method != "tools/list" {
			return res, err
		}
		s, scoped := engine.ScopeOf(ctx)
		if !scoped {
			return res, nil
		}
		out := *list
		out.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcp.Tool) bool { return !a.grantCalls(s, t.Name) })
		return &out, nil
	}
}

// grantCalls reports whether a call of tool under scope s can pass the
// grant checks: those that hold for every argument and any stored state.
func (a *Agent) grantCalls(s engine.Scope, tool string) bool {
	if !slices.Contains(writeTools, tool) {
		return true
	}
	writesNothing := s.Write != nil && len(s.Write) == 0
	switch {
	case writesNothing:
		return false
	case tool == ToolRemember, tool == ToolForget:
		return s.Writes(cairn.MemoriesCorpus)
	case tool == ToolSyncSessions:
		corpus, ok := a.sessionsCorpus()
		return !ok || s.Writes(corpus) // without one it answers unavailable, which says why
	}
	return true
}
