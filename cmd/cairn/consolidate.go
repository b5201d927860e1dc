package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/llm"
)

// cmdConsolidate runs the consolidation worker over the sessions corpus.
// Pausing on an unavailable or busy model is not an error: the status says
// so and the exit status is 0.
func cmdConsolidate(ctx context.Context, e *env, args []string) error {
	fs := e.flags("consolidate")
	thread := fs.String("thread", "", "consolidate only this session (id or projection path)")
	limit := fs.Int("limit", 0, "at most this many windows (0: no limit)")
	dry := fs.Bool("dry-run", false, "print the windows with character counts and token estimates; call no model")
	idle := fs.Duration("idle", consolidate.DefaultIdleAfter, "hold a session's last record back until the session has been quiet this long (0: read it now)")
	retry := fs.Bool("retry-failed", false, fmt.Sprintf("ask again about windows given up after %d failed runs", consolidate.DefaultMaxFailures))
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("consolidate", pos); err != nil {
		return err
	}
	if *limit < 0 {
		return usagef("--limit %d: allowed 0 (no limit) or more", *limit)
	}
	if *idle < 0 {
		return usagef("--idle %v: allowed 0 (read open records now) or more", *idle)
	}
	eng, cfg, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	model, done, err := e.runModel(cfg, cairn.PurposeConsolidate, *dry)
	if err != nil {
		return err
	}
	defer done()
	opts := &cairn.ConsolidateOptions{Thread: *thread, Limit: *limit, DryRun: *dry, RetryFailed: *retry}
	if !e.json && !*dry {
		opts.Progress = func(w cairn.WindowPlan) {
			fmt.Fprintf(e.stderr, "consolidate: %s (%s): %d records, %d parts, ~%d tokens\n", w.Thread, w.Pass, w.Records, w.Parts, w.Tokens)
		}
	}
	tune := &engine.ConsolidateOptions{Tune: func(w *consolidate.Worker) { w.IdleAfter = *idle }}
	res, err := eng.Consolidate(ctx, model, opts, tune)
	if err != nil && ctx.Err() != nil {
		// Ctrl-C: a window's memories are committed with its checkpoint,
		// so what finished stays and the next run starts where this stopped.
		return fmt.Errorf("interrupted: the windows consolidated so far are kept; run cairn consolidate to continue")
	}
	if err != nil {
		return err
	}
	e.reportRun(res.TokensIn, res.TokensOut, res.Error)
	if e.json {
		return e.printJSON(res)
	}
	printConsolidate(e, res, *dry)
	return nil
}

// runModel builds the [llm.<purpose>] client of a model-driven command
// (nil for a dry run, or without the table: the run then pauses as
// unavailable) and returns what to call when the command ends: it saves
// the token counts, reporting a failure on stderr.
func (e *env) runModel(cfg *config.Config, purpose string, dry bool) (cairn.LLM, func(), error) {
	if dry {
		return nil, func() {}, nil
	}
	model, flush, err := e.model(cfg, purpose)
	if err != nil {
		return nil, nil, err
	}
	return model, func() {
		if err := flush(); err != nil {
			fmt.Fprintln(e.stderr, "cairn: "+err.Error())
		}
	}, nil
}

// reportRun writes a model-driven run's token counts and the reason it
// paused, if any, to stderr.
func (e *env) reportRun(tokensIn, tokensOut int, reason string) {
	if tokensIn+tokensOut > 0 {
		fmt.Fprintf(e.stderr, "cairn: model tokens: %d in, %d out\n", tokensIn, tokensOut)
	}
	if reason != "" {
		fmt.Fprintln(e.stderr, "cairn: "+oneLine(reason))
	}
}

// model builds the [llm.<purpose>] client, counting tokens in the agent's
// usage file; nil without the table.
func (e *env) model(cfg *config.Config, purpose string) (cairn.LLM, func() error, error) {
	none := func() error { return nil }
	lc, ok := cfg.LLM[purpose]
	if !ok {
		return nil, none, nil
	}
	if w := lc.Warning(purpose); w != "" {
		fmt.Fprintln(e.stderr, "cairn: warning: "+w)
	}
	model, err := llm.New(lc, purpose, os.Getenv)
	if err != nil {
		return nil, none, err
	}
	_, dataDir := e.paths()
	dir, err := config.AgentDir(dataDir, e.agent)
	if err != nil {
		return nil, none, err
	}
	usage, err := llm.OpenUsage(filepath.Join(dir, llm.UsageFile))
	if err != nil {
		return nil, none, err
	}
	return llm.Counting(model, usage), usage.Flush, nil
}

// heldNote says how many pending records wait for their session to go
// quiet.
func heldNote(res *cairn.ConsolidateResult) string {
	if res.Held == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d held back: their session is still going)", res.Held)
}

func printConsolidate(e *env, res *cairn.ConsolidateResult, dry bool) {
	if dry {
		chars, tokens := 0, 0
		for _, w := range res.Plan {
			fmt.Fprintf(e.stdout, "%s (%s): %d records, %d parts, %d chars, ~%d tokens\n", w.Thread, w.Pass, w.Records, w.Parts, w.Chars, w.Tokens)
			chars, tokens = chars+w.Chars, tokens+w.Tokens
		}
		fmt.Fprintf(e.stdout, "dry run: %d threads, %d windows, %d chars, ~%d tokens to send; %d records pending%s\n",
			res.Threads, res.Windows, chars, tokens, res.Pending, heldNote(res))
		printFailures(e, 0, res.Failures) // given-up windows the run would skip
		return
	}
	fmt.Fprintf(e.stdout, "%s: %d threads, %d windows: %d episodes, %d items, %d observations; %d records pending%s\n",
		res.Status, res.Threads, res.Windows, res.Episodes, res.Items, res.Observations, res.Pending, heldNote(res))
	if res.Replaced > 0 {
		fmt.Fprintf(e.stdout, "replaced: %d memories of windows read again (a record changed)\n", res.Replaced)
	}
	if len(res.Dropped) > 0 {
		var parts []string
		for k, v := range res.Dropped {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
		}
		slices.Sort(parts)
		fmt.Fprintf(e.stdout, "dropped: %s\n", strings.Join(parts, ", "))
	}
	printFailures(e, res.InvalidAnswers, res.Failures)
}

// printFailures lists the windows whose answers were unusable.
func printFailures(e *env, invalid int, fs []cairn.WindowFailure) {
	if invalid > 0 {
		fmt.Fprintf(e.stdout, "invalid answers: %d (each asked again once)\n", invalid)
	}
	for _, f := range fs {
		state := fmt.Sprintf("failed in %d runs", f.Tries)
		switch {
		case f.Skipped:
			state += ", given up: skipped (cairn consolidate --retry-failed asks again)"
		case f.GivenUp:
			state += ", given up: later runs skip it (cairn consolidate --retry-failed asks again)"
		}
		fmt.Fprintf(e.stdout, "failed: %s (%s), %d records, %s: %s\n", f.Thread, f.Pass, f.Records, state, oneLine(f.Reason))
	}
}
