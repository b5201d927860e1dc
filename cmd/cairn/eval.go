package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"text/tabwriter"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/eval"
	"github.com/cairnmemory/cairn/llm"
)

func cmdEvalLocomo(ctx context.Context, e *env, args []string) error {
	fs := e.flags("eval locomo")
	data := fs.String("data", "", "LoCoMo JSON file")
	audit := fs.String("audit", "", "audit corrections (JSON); evidence is scored against them where given")
	mode := fs.String("mode", "lexical", "lexical, vector or hybrid")
	adv := fs.Bool("include-adversarial", false, "also ask category 5 (adversarial) questions")
	qa := fs.Bool("qa", false, "answer each question with the [llm.fast] model and judge it (J score); with --memory, from gathered memories, graded by the judge")
	mem := e.evalMemoryFlagSet(fs)
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
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
	opts := eval.LocomoOptions{Data: *data, Audit: *audit, Mode: *mode, IncludeAdversarial: *adv}
	if *mode != "lexical" {
		if opts.Embedder, err = e.configuredEmbedder(); err != nil {
			return err
		}
	}
	var rep *eval.Report
	if mem.on {
		var printed bool
		if rep, printed, err = e.evalLocomoMemory(ctx, opts, mem, *qa); err != nil || printed {
			return err
		}
	} else {
		if *qa {
			if opts.QA, err = e.fastModel(); err != nil {
				return err
			}
		}
		if rep, err = eval.Locomo(ctx, opts); err != nil {
			return err
		}
		if e.json {
			return e.printJSON(rep)
		}
	}
	fmt.Fprintf(e.stdout, "locomo, %s mode: %d questions (%d skipped without evidence, %d evidence ids unresolved), %.1fs\n\n",
		rep.Mode, rep.Questions, rep.Skipped, rep.Unresolved, rep.Seconds)
	keys := []string{"turn_recall@1", "turn_recall@5", "turn_recall@10", "turn_recall@25", "turn_recall@50",
		"session_recall_any@1", "session_recall_any@3", "session_recall_any@5", "ndcg@10", "mrr"}
	if rep.QA != nil {
		keys = append(keys, "j_score")
		fmt.Fprintf(e.stdout, "QA: %d answered, %d judged correct (J %.1f), %d tokens in, %d out\n\n",
			rep.QA.Answered, rep.QA.Correct, rep.QA.JScore, rep.QA.TokensIn, rep.QA.TokensOut)
	}
	return e.printReport(rep, keys)
}

// configuredEmbedder builds the [embedder] of the configuration, which
// vector and hybrid evaluation need.
func (e *env) configuredEmbedder() (cairn.Embedder, error) {
	cfg, err := e.loadConfig()
	if err != nil {
		return nil, err
	}
	emb, err := e.embedder(cfg)
	if err == nil && emb == nil {
		err = usagef("vector and hybrid modes need an embedder: add an [embedder] table to %s", cfg.Path)
	}
	return emb, err
}

// fastModel builds the [llm.fast] model client from the configuration.
func (e *env) fastModel() (cairn.LLM, error) {
	cfg, err := e.loadConfig()
	if err != nil {
		return nil, err
	}
	m, ok := cfg.LLM[cairn.PurposeFast]
	if !ok {
		return nil, usagef("--qa needs a model: add an [llm.fast] table (api, base_url, model, api_key_env) to %s", cfg.Path)
	}
	// llm.New picks the wire format (OpenAI-compatible or Anthropic),
	// applies the table's timeout and output cap, and redacts what it sends.
	return llm.New(m, cairn.PurposeFast, os.Getenv)
}

func cmdEvalLME(ctx context.Context, e *env, args []string) error {
	fs := e.flags("eval longmemeval")
	data := fs.String("data", "", "LongMemEval JSON file")
	mode := fs.String("mode", "lexical", "lexical, vector or hybrid")
	qa := fs.Bool("qa", false, "with --memory: answer each question from gathered memories with [llm.fast] and grade it with the judge (J score)")
	mem := e.evalMemoryFlagSet(fs)
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *qa && !mem.on {
		return usagef("eval longmemeval --qa needs --memory (answers are read from gathered memories)")
	}
	if err := noPositional("eval longmemeval", pos); err != nil {
		return err
	}
	if *data == "" {
		return usagef("eval longmemeval needs --data FILE (a LongMemEval JSON file such as longmemeval_s.json)")
	}
	lo := eval.LongMemEvalOptions{Data: *data, Mode: *mode}
	if *mode != "lexical" {
		if lo.Embedder, err = e.configuredEmbedder(); err != nil {
			return err
		}
	}
	var rep *eval.Report
	if mem.on {
		var printed bool
		if rep, printed, err = e.evalLMEMemory(ctx, lo, mem, *qa); err != nil || printed {
			return err
		}
	} else {
		if rep, err = eval.LongMemEval(ctx, lo); err != nil {
			return err
		}
		if e.json {
			return e.printJSON(rep)
		}
	}
	fmt.Fprintf(e.stdout, "longmemeval, %s mode: %d questions (abstention questions skipped), %.1fs\n\n", rep.Mode, rep.Questions, rep.Seconds)
	var keys []string
	for _, level := range []string{"session", "turn"} {
		for _, m := range []string{"recall_all", "ndcg_any"} {
			for _, k := range []int{5, 10} {
				keys = append(keys, fmt.Sprintf("%s_%s@%d", level, m, k))
			}
		}
	}
	if rep.QA != nil {
		keys = append(keys, "j_score")
		fmt.Fprintf(e.stdout, "QA: %d answered, %d judged correct (J %.1f), %d tokens in, %d out\n\n",
			rep.QA.Answered, rep.QA.Correct, rep.QA.JScore, rep.QA.TokensIn, rep.QA.TokensOut)
	}
	return e.printReport(rep, keys)
}

// printReport prints the chosen metrics overall and per category.
func (e *env) printReport(rep *eval.Report, keys []string) error {
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
