package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/mcpserver"
)

// closeTimeout bounds how long a server waits, when it stops, for a
// running sync to finish before cancelling it.
const closeTimeout = 2 * time.Minute

// cmdMCP serves the agent's tools over stdio: the protocol alone on
// stdout, logs on stderr.
func cmdMCP(ctx context.Context, e *env, args []string) error {
	fs := e.flags("mcp")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("mcp", pos); err != nil {
		return err
	}
	cfg, err := e.loadConfig()
	if err != nil {
		return err
	}
	eng, err := e.openAgent(ctx, cfg, e.agent)
	if err != nil {
		return err
	}
	a := mcpserver.NewAgent(e.agent, eng)
	defer closeAgent(e, a, eng)
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// Cairn's stdio transport answers a malformed line with a JSON-RPC
	// error and reads on, where the SDK's would end the session.
	err = mcpserver.NewMCPServer(a, logger).Run(ctx, &mcpserver.StdioTransport{})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil // interrupted, or the client hung up
	}
	if err != nil {
		return fmt.Errorf("serve mcp on stdio: %w", err)
	}
	return nil
}

// openAgent opens an agent's engine for a long-running process (memory
// mapped reads, unlike the one-shot commands).
func (e *env) openAgent(ctx context.Context, cfg *config.Config, agent string) (*engine.Engine, error) {
	_, dataDir := e.paths()
	dir, err := config.AgentDir(dataDir, agent)
	if err != nil {
		return nil, err
	}
	emb, err := e.embedder(cfg)
	if err != nil {
		return nil, err
	}
	name := agent
	if agent == "default" {
		name = ""
	}
	eng, err := engine.Open(ctx, engine.Options{Dir: dir, Corpora: cfg.ToCorpora(), Location: time.Local,
		AgentName: name, Embedder: emb, Logf: e.logf})
	if err != nil {
		return nil, fmt.Errorf("open agent %s: %w", agent, err)
	}
	if eng.Reindexed() {
		fmt.Fprintf(e.stderr, "cairn: agent %s: the index format changed and was emptied; run cairn sync to rebuild it\n", agent)
	}
	return eng, nil
}

// closeAgent waits for the agent's running syncs, then closes its engine.
func closeAgent(e *env, a *mcpserver.Agent, eng *engine.Engine) {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := a.Close(ctx); err != nil {
		fmt.Fprintf(e.stderr, "cairn: agent %s: %v\n", a.Name(), err)
	}
	if err := eng.Close(ctx); err != nil {
		fmt.Fprintf(e.stderr, "cairn: agent %s: close index: %v\n", a.Name(), err)
	}
}
