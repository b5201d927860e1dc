package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/mcpserver"
)

// TestStartIdleStops: serve's idle-time maintenance starts for the agents
// with an open index (and none for an unavailable one), and stop, or the
// server's context ending, returns only once every goroutine has, so the
// agents close after it. An engine closed after stop answers as before.
func TestStartIdleStops(t *testing.T) {
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	agents := []*mcpserver.Agent{mcpserver.NewAgent("a", eng), mcpserver.NewUnavailableAgent("b", nil, errors.New("no index"))}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	startIdle(ctx, agents, logger)()
	sctx, cancel := context.WithCancel(ctx)
	stop := startIdle(sctx, agents, logger)
	cancel()
	stop()
	if err := eng.Close(ctx); err != nil {
		t.Fatalf("close after the idle maintenance stopped: %v", err)
	}
}
