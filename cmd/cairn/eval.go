package main

import (
	"context"
	"fmt"
	"sort"
	"text/tabwriter"

	"github.com/cairnmemory/cairn/eval"
)

func cmdEval(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "locomo" {
		return usagef("eval needs a dataset: cairn eval locomo --data FILE")
	}
	fs := e.flags("eval locomo")
	data := fs.String("data", "", "LoCoMo JSON file")
	audit := fs.String("audit", "", "audit corrections (JSON); evidence is scored against them where given")
	mode := fs.String("mode", "lexical", "lexical, vector or hybrid")
	adv := fs.Bool("include-adversarial", false, "also ask category 5 (adversarial) questions")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	if err := noPositional("eval locomo", pos); err != nil {
		return err
	}
	if *data == "" {
		return usagef("eval locomo needs --data FILE (for example ../shared/data/locomo/locomo-dev.json)")
	}
	switch *mode {
	case "lexical", "vector", "hybrid":
	default:
		return usagef("--mode %q: allowed lexical, vector or hybrid", *mode)
	}
	rep, err := eval.Locomo(ctx, eval.LocomoOptions{Data: *data, Audit: *audit, Mode: *mode, IncludeAdversarial: *adv})
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(rep)
	}
	fmt.Fprintf(e.stdout, "locomo, %s mode: %d questions (%d skipped without evidence, %d evidence ids unresolved), %.1fs\n\n",
		rep.Mode, rep.Questions, rep.Skipped, rep.Unresolved, rep.Seconds)
	keys := []string{"turn_recall@1", "turn_recall@5", "turn_recall@10", "turn_recall@25", "turn_recall@50",
		"session_recall_any@1", "session_recall_any@3", "session_recall_any@5", "ndcg@10", "mrr"}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t", k)
	}
	fmt.Fprintln(tw)
	row := func(name string, m eval.Metrics) {
		fmt.Fprintf(tw, "%s\t", name)
		for _, k := range keys {
			fmt.Fprintf(tw, "%.1f\t", m[k])
		}
		fmt.Fprintln(tw)
	}
	row("all", rep.Metrics)
	var cats []string
	for c := range rep.ByCategory {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	for _, c := range cats {
		row(c, rep.ByCategory[c])
	}
	return tw.Flush()
}
