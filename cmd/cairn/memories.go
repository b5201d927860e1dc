package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
)

// cmdMemories lists or shows consolidated memories.
func cmdMemories(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("memories needs a subcommand: list or show")
	}
	switch args[0] {
	case "list":
		return memoriesList(ctx, e, args[1:])
	case "show":
		return memoriesShow(ctx, e, args[1:])
	default:
		return usagef("unknown memories subcommand %q: allowed list, show", args[0])
	}
}

func memoriesList(ctx context.Context, e *env, args []string) error {
	fs := e.flags("memories list")
	kind := fs.String("kind", "", "only memories of this kind: episode, observation or an item kind")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("memories list", pos); err != nil {
		return err
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	ms, err := eng.Memories(ctx, cairn.MemoryFilter{Kind: *kind})
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(map[string]any{"memories": ms})
	}
	if len(ms) == 0 {
		fmt.Fprintln(e.stdout, "no memories (run cairn consolidate)")
		return nil
	}
	for _, m := range ms {
		told := ""
		if !m.ToldAt.IsZero() {
			told = m.ToldAt.Format("2006-01-02")
		}
		fmt.Fprintf(e.stdout, "%s  %-12s %-10s %s\n", m.ID, m.Kind, told, m.Title)
	}
	return nil
}

func memoriesShow(ctx context.Context, e *env, args []string) error {
	fs := e.flags("memories show")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("memories show needs one memory ID (see cairn memories list)")
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	m, err := eng.Memory(ctx, pos[0])
	if errors.Is(err, cairn.ErrNotFound) {
		return fmt.Errorf("%w (see cairn memories list)", err)
	}
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(m)
	}
	fmt.Fprint(e.stdout, consolidate.Document(&m))
	fmt.Fprintf(e.stdout, "\nid %s · thread cairn://%s\n", m.ID, m.Thread)
	return nil
}
