package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
)

// memoriesSleep runs the sleep pass over the stored memories with the fast
// model. Pausing on an unavailable or busy model is not an error: the
// status says so and the exit status is 0.
func memoriesSleep(ctx context.Context, e *env, args []string) error {
	fs := e.flags("memories sleep")
	limit := fs.Int("limit", 0, "judge at most this many groups (0: no limit)")
	dry := fs.Bool("dry-run", false, "print the candidate groups; call no model")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("memories sleep", pos); err != nil {
		return err
	}
	if *limit < 0 {
		return usagef("--limit %d: allowed 0 (no limit) or more", *limit)
	}
	eng, cfg, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	model, done, err := e.runModel(cfg, cairn.PurposeFast, *dry)
	if err != nil {
		return err
	}
	defer done()
	res, err := eng.Sleep(ctx, model, &cairn.SleepOptions{DryRun: *dry, Limit: *limit}, nil)
	if err != nil {
		return err
	}
	e.reportRun(res.TokensIn, res.TokensOut, res.Error)
	if e.json {
		return e.printJSON(res)
	}
	printSleep(e, res, *dry)
	return nil
}

func printSleep(e *env, res *cairn.SleepResult, dry bool) {
	if dry {
		for _, g := range res.Plan {
			fmt.Fprintf(e.stdout, "%s group (score %.2f):\n", g.Family, g.Score)
			for i, id := range g.Members {
				fmt.Fprintf(e.stdout, "  %s  %s\n", id, g.Titles[i])
			}
		}
		fmt.Fprintf(e.stdout, "dry run: %d groups to judge, %d profiles to write\n", res.Groups, res.Profiles)
		return
	}
	fmt.Fprintf(e.stdout, "%s: %d groups: %d merged, %d superseded, %d linked; %d groups pending; %d profiles written\n",
		res.Status, res.Groups, res.Merged, res.Superseded, res.Linked, res.Pending, res.Profiles)
	if len(res.Dropped) > 0 {
		var parts []string
		for k, v := range res.Dropped {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
		}
		slices.Sort(parts)
		fmt.Fprintf(e.stdout, "dropped: %s\n", strings.Join(parts, ", "))
	}
	if res.InvalidAnswers > 0 {
		fmt.Fprintf(e.stdout, "invalid answers: %d (each asked again once); %d groups failed\n", res.InvalidAnswers, res.Failed)
	}
}
