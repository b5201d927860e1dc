package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/explore"
)

// cmdExplore walks the concept graph of the memories from a topic's
// search hits and/or --id memories. No model is called.
func cmdExplore(ctx context.Context, e *env, args []string) error {
	fs := e.flags("explore")
	var mf memoryFlags
	var ids stringList
	fs.Var(&ids, "id", "a memory to start from (repeatable), besides the topic's search hits")
	fs.Var(&mf.kinds, "kind", "only memories of this kind (repeatable): episode, observation, profile or an item kind")
	fs.StringVar(&mf.scope, "scope", "", "only items of this scope: project, global or person")
	fs.StringVar(&mf.project, "project", "", "only memories from sessions run in this working folder (the session's cwd)")
	limit := fs.Int("limit", explore.DefaultLimit, fmt.Sprintf("related memories to return, 1 to %d", explore.MaxLimit))
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("explore takes at most one argument, the topic (quote it), got %d", len(pos))
	}
	topic := strings.Join(pos, "")
	if strings.TrimSpace(topic) == "" && len(ids) == 0 {
		return usagef("explore needs a topic or --id ID")
	}
	if *limit < 1 || *limit > explore.MaxLimit {
		return usagef("--limit %d: allowed 1 to %d", *limit, explore.MaxLimit)
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	res, err := eng.Explore(ctx, topic, &engine.ExploreOptions{IDs: ids, Filter: mf.filter(), Limit: *limit})
	if err != nil {
		return fmt.Errorf("explore: %w", err)
	}
	if res.Hint != "" { // no memory yet: as gather (gather.go)
		if e.json {
			if err := e.printJSON(res); err != nil {
				return err
			}
		}
		return errors.New("explore: " + res.Hint)
	}
	if e.json {
		return e.printJSON(res)
	}
	title := func(id string) string {
		if m, err := eng.Memory(ctx, id); err == nil {
			return m.Kind + "  " + m.Title
		}
		return ""
	}
	fmt.Fprintf(e.stdout, "found %d:\n", len(res.Found))
	for _, f := range res.Found {
		fmt.Fprintf(e.stdout, "  %s  %s (%s)\n", f.ID, title(f.ID), f.Origin)
	}
	fmt.Fprintf(e.stdout, "related %d:\n", len(res.Related))
	for _, r := range res.Related {
		var path []string
		for _, s := range r.Path {
			path = append(path, s.String())
		}
		fmt.Fprintf(e.stdout, "  %s  %s  %.3f  %s\n", r.ID, title(r.ID), r.Score, strings.Join(path, ", "))
	}
	var cs []string
	for _, c := range res.Concepts {
		cs = append(cs, c.Name)
	}
	if len(cs) > 0 { // no empty label (ux F14)
		fmt.Fprintf(e.stdout, "look next: %s\n", strings.Join(cs, ", "))
	}
	if len(res.Missing) > 0 {
		fmt.Fprintf(e.stdout, "not found: %s\n", strings.Join(res.Missing, ", "))
	}
	return nil
}
