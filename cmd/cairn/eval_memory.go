package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/eval"
	"github.com/cairnmemory/cairn/judge"
)

// evalMemoryFlags are the flags of the memory mode shared by both datasets.
type evalMemoryFlags struct {
	on, sleep     bool
	conversations *int
}

func (e *env) evalMemoryFlagSet(fs *flag.FlagSet) *evalMemoryFlags {
	m := &evalMemoryFlags{}
	fs.BoolVar(&m.on, "memory", false, "memory mode: consolidate the conversations with [llm.consolidate] and score retrieval over the memories (evidence through provenance)")
	fs.BoolVar(&m.sleep, "sleep", false, "memory mode: run the sleep pass (merges, profiles) with [llm.fast] after consolidating")
	m.conversations = fs.Int("conversations", 0, "memory mode: stop after this many conversations (each costs a consolidation; 0: all)")
	return m
}

// memoryOptions builds the memory mode's models from the configuration:
// [llm.consolidate] always; with --qa, [llm.fast] for gather and the
// answers and the judge ([llm.judge], else [llm.fast]); with --sleep,
// [llm.fast]. It returns what flushes the usage counts.
func (e *env) memoryOptions(f *evalMemoryFlags, qa bool) (eval.MemoryOptions, func(), error) {
	o := eval.MemoryOptions{Sleep: f.sleep, MaxConversations: *f.conversations}
	// Each conversation costs a consolidation: say so as each is done.
	o.Progress = func(name string, res *cairn.ConsolidateResult) {
		fmt.Fprintf(e.stderr, "cairn: consolidated %s: %d windows, %d episodes, %d items, %d observations, %d tokens in\n",
			name, res.Windows, res.Episodes, res.Items, res.Observations, res.TokensIn)
	}
	cfg, err := e.loadConfig()
	if err != nil {
		return o, nil, err
	}
	var flushes []func()
	done := func() {
		for _, fl := range flushes {
			fl()
		}
	}
	model, flush, err := e.runModel(cfg, cairn.PurposeConsolidate, false)
	if err != nil {
		return o, nil, err
	}
	flushes = append(flushes, flush)
	if model == nil {
		return o, nil, usagef("--memory needs a consolidation model: add an [llm.consolidate] table to %s (the scores are of that model)", cfg.Path)
	}
	o.Consolidate = model
	if qa || f.sleep {
		fast, flush, err := e.runModel(cfg, cairn.PurposeFast, false)
		if err != nil {
			return o, nil, err
		}
		flushes = append(flushes, flush)
		if fast == nil {
			return o, nil, usagef("--memory with --qa or --sleep needs a fast model: add an [llm.fast] table to %s", cfg.Path)
		}
		o.Fast = fast
	}
	if qa {
		if o.Judge, err = judge.FromConfig(cfg.Judge, os.Getenv); err != nil {
			if errors.Is(err, judge.ErrNotConfigured) {
				return o, nil, usagef("--memory --qa needs a judge: %v", err)
			}
			return o, nil, err
		}
	}
	return o, done, nil
}

// printMemoryReport prints what the memory mode did before the metrics.
func (e *env) printMemoryReport(rep *eval.MemoryReport) {
	st := rep.Memory
	fmt.Fprintf(e.stdout, "memory mode: %d conversations consolidated in %d windows (%d tokens in, %d out); memories:",
		st.Conversations, st.Windows, st.TokensIn, st.TokensOut)
	var kinds []string
	for k := range st.Memories {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(e.stdout, " %d %s", st.Memories[k], k)
	}
	fmt.Fprintln(e.stdout)
	if g := st.Gather; g != nil && g.Questions > 0 {
		fmt.Fprintf(e.stdout, "gather: %.1f model calls and %.0f tokens in, %.0f out per question (at most %d calls; %d unjudged)\n",
			float64(g.Calls)/float64(g.Questions), float64(g.TokensIn)/float64(g.Questions), float64(g.TokensOut)/float64(g.Questions), g.MaxCalls, g.Unjudged)
	}
	fmt.Fprintln(e.stdout)
}

// evalLocomoMemory runs cairn eval locomo --memory.
func (e *env) evalLocomoMemory(ctx context.Context, opts eval.LocomoOptions, f *evalMemoryFlags, qa bool) (*eval.Report, bool, error) {
	mo, done, err := e.memoryOptions(f, qa)
	if err != nil {
		return nil, false, err
	}
	defer done()
	rep, err := eval.LocomoMemory(ctx, opts, mo)
	if err != nil {
		return nil, false, err
	}
	if e.json {
		return nil, true, e.printJSON(rep)
	}
	e.printMemoryReport(rep)
	return rep.Report, false, nil
}

// evalLMEMemory runs cairn eval longmemeval --memory.
func (e *env) evalLMEMemory(ctx context.Context, opts eval.LongMemEvalOptions, f *evalMemoryFlags, qa bool) (*eval.Report, bool, error) {
	mo, done, err := e.memoryOptions(f, qa)
	if err != nil {
		return nil, false, err
	}
	defer done()
	rep, err := eval.LongMemEvalMemory(ctx, opts, mo)
	if err != nil {
		return nil, false, err
	}
	if e.json {
		return nil, true, e.printJSON(rep)
	}
	e.printMemoryReport(rep)
	return rep.Report, false, nil
}
