// Package mcpserver serves Cairn's memory tools to agents: memory_search,
// memory_get, memory_sync_sessions, memory_sync_status and
// memory_diagnostics (spec tools-and-corpora.md C11 to C16), as typed MCP
// tools of the official Go SDK and as a JSON API over HTTP.
//
// An Agent holds the tools of one agent over its engine; each tool is a
// method taking and returning the In and Out types of types.go, so the MCP
// server and the HTTP API validate and answer alike. Bad input is an error
// matching cairn.ErrInvalid that names the field (a tool error over MCP, 400
// over HTTP).
//
//	a := mcpserver.NewAgent("default", eng)   // eng from local.Open or engine.Open
//	defer a.Close(ctx)
//	a.StartBackground(mcpserver.BackgroundOptions{SyncInterval: time.Hour, Watch: true, FirstSync: true})
//	mcpserver.NewMCPServer(a, nil).Run(ctx, &mcpserver.StdioTransport{}) // cairn mcp
//
//	h, _ := mcpserver.NewHandler(mcpserver.HTTPOptions{Agents: []*mcpserver.Agent{a}, Token: token})
//	http.ListenAndServe("127.0.0.1:7777", h) // cairn serve
//
// The HTTP handler serves MCP (streamable HTTP, stateless) at /mcp and the
// JSON API at /v1/, checks the Host header on loopback listeners and the
// Origin header against DNS rebinding, requires the bearer token when one is
// set, limits body size and request time, and picks the agent per request
// (/agents/{agent}/..., or the X-Cairn-Agent header) among those it was
// given. StdioTransport and /mcp answer a malformed JSON-RPC message with a
// JSON-RPC error (jsonrpc.go) where the SDK alone would end a stdio session
// or answer with plain text. StartBackground adds the first sync (searches
// wait for its full-text index, not its vectors), the periodic session sync
// and a debounced fsnotify watcher over the files corpora; Close cancels the
// first sync and waits for the others. An agent whose index or
// configuration cannot be opened is NewUnavailableAgent: its tools answer
// with the reason instead of the server exiting; an embedder that cannot
// load is Agent.EmbedderError, and search goes lexical and says why.
// docs/mcp.md has the client setup.
package mcpserver
