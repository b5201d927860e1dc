package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
)

func cmdCorpus(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("corpus needs a subcommand: add or list")
	}
	switch args[0] {
	case "add":
		return cmdCorpusAdd(e, args[1:])
	case "list":
		return cmdCorpusList(e, args[1:])
	default:
		return usagef("unknown corpus subcommand %q: use add or list", args[0])
	}
}

func cmdCorpusAdd(e *env, args []string) error {
	fs := e.flags("corpus add")
	glob := fs.String("glob", "", "files to include under PATH (default "+cairn.DefaultGlob+")")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("corpus add needs NAME and PATH, got %d arguments", len(pos))
	}
	path, _ := e.paths()
	if err := config.AddCorpus(path, pos[0], pos[1], *glob); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "added corpus %s to %s; run cairn sync to index it\n", pos[0], path)
	return nil
}

// corpusJSON is one entry of `cairn corpus list --json`.
type corpusJSON struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Paths   []string `json:"paths"`
	Glob    string   `json:"glob"`
	Exclude []string `json:"exclude"`
}

func cmdCorpusList(e *env, args []string) error {
	fs := e.flags("corpus list")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("corpus list", pos); err != nil {
		return err
	}
	cfg, err := e.loadConfig()
	if err != nil {
		return err
	}
	out := []corpusJSON{}
	for _, c := range cfg.ToCorpora() {
		out = append(out, corpusJSON{c.Name, c.Kind, c.Paths, c.Glob, append([]string{}, c.Exclude...)})
	}
	if e.json {
		return e.printJSON(map[string]any{"corpora": out})
	}
	if len(out) == 0 {
		fmt.Fprintf(e.stdout, "no corpus configured in %s; add one with: cairn corpus add NAME PATH\n", cfg.Path)
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tGLOB\tPATHS")
	for _, c := range out {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, c.Kind, c.Glob, strings.Join(c.Paths, ", "))
	}
	return tw.Flush()
}
