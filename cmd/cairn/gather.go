package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/llm"
)

// memoryFlags are the memory filters gather and explore share.
type memoryFlags struct {
	kinds          stringList
	scope, project string
}

// filter returns the memory filter, nil when no flag is set.
func (m *memoryFlags) filter() *cairn.MemorySearch {
	f := &cairn.MemorySearch{Kinds: m.kinds, Scope: strings.TrimSpace(m.scope), Project: strings.TrimSpace(m.project)}
	if f.IsZero() {
		return nil
	}
	return f
}

// cmdGather gathers every memory a question needs with the [llm.fast]
// model (as memories sleep uses it). Without the table, or with the model
// unavailable, it prints the ranked list marked unjudged and exits 0.
func cmdGather(ctx context.Context, e *env, args []string) error {
	fs := e.flags("gather")
	var mf memoryFlags
	fs.Var(&mf.kinds, "kind", "only memories of this kind (repeatable): episode, observation, profile or an item kind")
	fs.StringVar(&mf.scope, "scope", "", "only items of this scope: project, global or person")
	fs.StringVar(&mf.project, "project", "", "only memories from sessions run in this working folder (the session's cwd)")
	from := fs.String("from", "", "start of the time the question is about: YYYY, YYYY-MM or YYYY-MM-DD (default: the time it names)")
	to := fs.String("to", "", "end of that time, inclusive")
	mode := fs.String("mode", "", "hybrid, lexical or vector (default hybrid with an embedder, else lexical)")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return usagef("gather takes one argument, the question (quote it)")
	}
	eng, cfg, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	model, done, err := e.runModel(cfg, cairn.PurposeFast, false)
	if err != nil {
		return err
	}
	defer done()
	res, err := eng.Gather(ctx, pos[0], &engine.GatherOptions{Model: model, From: *from, To: *to, Filter: mf.filter(), Mode: *mode})
	if err != nil {
		return fmt.Errorf("gather: %w", err) // the package's errors name no command (MCP adds its own prefix)
	}
	e.reportRun(res.Stats.TokensIn, res.Stats.TokensOut, "")
	if res.Hint != "" {
		// No memory is stored yet: an empty answer and recall's hint, exit
		// 1 as recall's (ux F18); --json prints the empty result first.
		if e.json {
			if err := e.printJSON(res); err != nil {
				return err
			}
		}
		return errors.New("gather: " + res.Hint)
	}
	if e.json {
		return e.printJSON(res)
	}
	state := "judged by the fast model"
	if !res.Judged {
		state = "unjudged (" + res.Reason + "): the ranked search"
	}
	further := "" // no empty label (ux F14)
	if len(res.Searches) > 0 {
		further = "; further searches: " + strings.Join(res.Searches, "; ")
	}
	fmt.Fprintf(e.stdout, "%d memories, %d kept, %s%s\n", len(res.Memories), res.Kept, state, further)
	for _, m := range res.Memories {
		mark := " "
		if m.Kept {
			mark = "*"
		}
		when := m.EventDate
		if m.StartDate != "" || m.EndDate != "" {
			when = m.StartDate + " to " + m.EndDate
		}
		fmt.Fprintf(e.stdout, "%s %3d  %s  %-11s %s  %s\n", mark, m.Rank, m.ID, m.Kind, strings.TrimSpace(when), m.Title)
	}
	return nil
}

// serverFastModel builds the [llm.fast] client an MCP or HTTP server's
// memory_gather uses (nil without the table). Its tokens are not counted
// in the usage file: a server runs for days, the file is written when a
// command ends.
func (e *env) serverFastModel(cfg *config.Config, agent string) cairn.LLM {
	lc, ok := cfg.LLM[cairn.PurposeFast]
	if !ok {
		return nil
	}
	m, err := llm.New(lc, cairn.PurposeFast, os.Getenv)
	if err != nil {
		fmt.Fprintf(e.stderr, "cairn: agent %s: [llm.fast]: %v; memory_gather answers unjudged\n", agent, err)
		return nil
	}
	return m
}
