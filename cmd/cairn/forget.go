package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairnmemory/cairn"
)

// cmdForget removes one memory, told or consolidated, from memory.db and
// the memories corpus (engine.Forget): search, get, recall, explore and
// gather no longer find it, an export no longer holds it, and a later
// consolidation of the same records does not write it again.
func cmdForget(ctx context.Context, e *env, args []string) error {
	fs := e.flags("forget")
	fs.BoolVar(&e.json, "json", false, "print JSON: the memory forgotten and the memories changed")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("forget needs one memory ID (see cairn memories list, or a hit's id in cairn recall --json), got %d", len(pos))
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	res, err := eng.Forget(ctx, pos[0])
	if errors.Is(err, cairn.ErrNotFound) {
		return fmt.Errorf("%w (see cairn memories list)", err)
	}
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(res)
	}
	m := &res.Memory
	fmt.Fprintf(e.stdout, "forgot %s %s: %s\n", m.Kind, m.ID, m.Title)
	for _, p := range res.Profiles {
		fmt.Fprintf(e.stdout, "forgot profile %s: %s (built from it; the next cairn memories sleep builds it again without it)\n", p.ID, p.Title)
	}
	for _, c := range res.Restored {
		fmt.Fprintf(e.stdout, "active again %s %s: %s (the forgotten memory had absorbed or replaced it: forget it too if it says the same)\n",
			c.Kind, c.ID, c.Title)
	}
	for _, c := range res.Reduced {
		fmt.Fprintf(e.stdout, "changed %s %s: %s (what the forgotten memory had added to it is taken out)\n", c.Kind, c.ID, c.Title)
	}
	return nil
}
