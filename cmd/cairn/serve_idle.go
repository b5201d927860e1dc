package main

import (
	"context"
	"log/slog"
	"sync"

	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/mcpserver"
)

// startIdle runs idle-time index maintenance for each agent with an open
// index (engine.MaintainIdle: the lexical index merged into one segment in
// bounded steps once nothing has searched or written it for two minutes),
// each on a goroutine of its own, until ctx ends or stop is called; stop
// cancels them and waits for every one to return, so serve calls it
// before it closes the agents.
func startIdle(ctx context.Context, agents []*mcpserver.Agent, logger *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, a := range agents {
		eng := a.Engine()
		if eng == nil {
			continue
		}
		log := logger.With("agent", a.Name())
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := eng.MaintainIdle(ctx, engine.IdleOptions{Logger: log}); err != nil {
				log.Warn("idle index maintenance stopped", "err", err)
			}
		}()
	}
	return func() {
		cancel()
		wg.Wait()
	}
}
