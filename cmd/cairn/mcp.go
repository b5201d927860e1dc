package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/mcpserver"
)

// closeTimeout bounds how long a server waits, when it stops, for a
// running sync to finish before cancelling it.
const closeTimeout = 2 * time.Minute

// cmdMCP serves the agent's tools over stdio: the protocol alone on
// stdout, logs on stderr. Like cairn serve it keeps the index current on
// its own: a first sync at the start, the file watcher and the periodic
// session sync (spec C1, C6, C10). It starts even when the index, the
// configuration or the embedder cannot be loaded, since an MCP client only
// shows "connection closed" for a server that exits: the tools then say
// why (memory_diagnostics names the file).
func cmdMCP(ctx context.Context, e *env, args []string) error {
	fs := e.flags("mcp")
	watch := true
	fs.BoolVar(&watch, "watch", true, "watch the files corpora and sync on change")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("mcp", pos); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg, cfgErr := e.loadConfig()
	e.serverCommand = "mcp"
	a := e.serveAgent(ctx, cfg, cfgErr, e.agent)
	defer closeAgent(e, a)
	if err := a.StartBackground(mcpserver.BackgroundOptions{SyncInterval: time.Duration(syncInterval(cfg)) * time.Minute,
		Watch: watch, FirstSync: true, Logger: logger}); err != nil {
		fmt.Fprintf(e.stderr, "cairn: agent %s: %v; changed notes are indexed by the periodic sync or cairn sync\n", e.agent, err)
	}
	// Cairn's stdio transport answers a malformed line with a JSON-RPC
	// error and reads on, where the SDK's would end the session; at the end
	// of stdin it answers the calls already read (up to 20 s) before Run
	// returns.
	err = mcpserver.NewMCPServer(a, logger).Run(ctx, &mcpserver.StdioTransport{})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil // interrupted, or the client hung up
	}
	if err != nil {
		return fmt.Errorf("serve mcp on stdio: %w", err)
	}
	return nil
}

// serveAgent opens an agent for a long-running server. Whatever cannot be
// loaded is said on stderr and served as a reason instead of ending the
// process: a configuration or index that fails to open gives an
// unavailable agent (its tools answer with the error, which names the
// file), an embedder that fails (an ONNX Runtime library missing from the
// MCP client's environment) gives lexical search with the reason in
// search results and diagnostics.
func (e *env) serveAgent(ctx context.Context, cfg *config.Config, cfgErr error, agent string) *mcpserver.Agent {
	if cfgErr != nil {
		fmt.Fprintf(e.stderr, "cairn: agent %s: %v; serving the error to the client\n", agent, cfgErr)
		return mcpserver.NewUnavailableAgent(agent, nil, cfgErr)
	}
	emb, embErr := e.embedder(cfg)
	if embErr != nil {
		emb = nil // a typed nil from a failed constructor is no embedder
		fmt.Fprintf(e.stderr, "cairn: agent %s: the embedder could not load, serving lexical search only: %v\n", agent, embErr)
	}
	eng, err := e.openAgent(ctx, cfg, agent, emb)
	if err != nil {
		if c, ok := emb.(interface{ Close() error }); ok {
			c.Close()
		}
		fmt.Fprintf(e.stderr, "cairn: %v; serving the error to the client\n", err)
		a := mcpserver.NewUnavailableAgent(agent, e.corpora(cfg), err)
		a.ConfigPath = cfg.Path
		return a
	}
	a := mcpserver.NewAgent(agent, eng)
	a.ConfigPath = cfg.Path
	a.FastModel = e.serverFastModel(cfg, agent) // gather.go
	a.Enhanced = e.enhanced(cfg, eng, agent)    // whisper.go: judged search, whisperers
	a.Curation = e.curation(cfg, agent)         // curation_serve.go: judged curation tools
	if embErr != nil {
		a.EmbedderError = embErr.Error()
	}
	e.shareAgent(ctx, agent, cfg, eng) // embedshare.go: one-shot searches use this engine
	return a
}

// openAgent opens an agent's engine for a long-running process (memory
// mapped reads, unlike the one-shot commands) with embedder emb (nil:
// none).
func (e *env) openAgent(ctx context.Context, cfg *config.Config, agent string, emb cairn.Embedder) (*engine.Engine, error) {
	_, dataDir := e.paths()
	dir, err := config.AgentDir(dataDir, agent)
	if err != nil {
		return nil, err
	}
	// The folders the index and memories live in, as every one-shot
	// command checks them (env.privateDirs, ux F15): serve, mcp and ui
	// open agents here.
	if err := checkAgentCase(dataDir, agent, dir); err != nil {
		return nil, err
	}
	if err := e.privateDirs(os.Getuid(), dataDir, dir); err != nil {
		return nil, fmt.Errorf("open agent %s: %w", agent, err)
	}
	name := agent
	if agent == "default" {
		name = ""
	}
	eng, err := local.Open(ctx, engine.Options{Dir: dir, Corpora: e.corpora(cfg), Location: time.Local,
		AgentName: name, Embedder: emb, Logf: e.logf, Backend: storeBackend(cfg, agent)})
	if err != nil {
		return nil, fmt.Errorf("open agent %s: %w", agent, err)
	}
	if eng.Reindexed() {
		fmt.Fprintf(e.stderr, "cairn: agent %s: the index format changed and was emptied; the first sync rebuilds it\n", agent)
	}
	return eng, nil
}

// closeAgent waits for the agent's running syncs, then closes its engine.
func closeAgent(e *env, a *mcpserver.Agent) {
	eng := a.Engine()
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	e.stopShare(ctx, a.Name())
	if err := a.Close(ctx); err != nil {
		fmt.Fprintf(e.stderr, "cairn: agent %s: %v\n", a.Name(), err)
	}
	if en := a.Enhanced; en != nil && en.Close != nil {
		en.Close() // whisper.go: the whisperers, before the index they read
	}
	if eng == nil {
		return
	}
	if err := eng.Close(ctx); err != nil {
		fmt.Fprintf(e.stderr, "cairn: agent %s: close index: %v\n", a.Name(), err)
	}
}
