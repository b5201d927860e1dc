package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/skills"
)

// skillJSON is one skill as cairn skills list --json prints it.
type skillJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path"`
	Duplicate   bool   `json:"duplicate,omitempty"` // a name an earlier skill has: never named
}

// cmdSkillsList lists the skills of the skills corpus as the Skill
// Whisperer sees them (discovery only: nothing is embedded), with the
// duplicates it leaves out and the folders or files it could not read.
func cmdSkillsList(ctx context.Context, e *env, args []string) error {
	fs := e.flags("skills list")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("skills list", pos); err != nil {
		return err
	}
	cfg, err := e.loadConfig()
	if err != nil {
		return err
	}
	corpus, ok := cfg.SkillsCorpus()
	if !ok {
		return usagef(`skills list: no skills corpus in %s; add [[corpus]] name = "skills", kind = "skills", paths = [...] (docs/hooks.md)`, cfg.Path)
	}
	found, rep, err := skills.Discover(ctx, corpus.Paths)
	if err != nil {
		return err
	}
	out := []skillJSON{}
	for _, s := range found {
		out = append(out, skillJSON{s.Name, s.Description, s.Path, false})
	}
	for _, s := range rep.Duplicates {
		out = append(out, skillJSON{s.Name, s.Description, s.Path, true})
	}
	if e.json {
		failures := rep.Failures
		if failures == nil {
			failures = []cairn.FileFailure{} // [], never null
		}
		return e.printJSON(map[string]any{"skills": out, "failures": failures, "truncated": rep.Truncated})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPATH\tDESCRIPTION")
	for _, s := range out {
		name := s.Name
		if s.Duplicate {
			name += " (duplicate: never named)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, s.Path, s.Description)
	}
	tw.Flush()
	for _, f := range rep.Failures {
		fmt.Fprintf(e.stderr, "cairn: %s: %s\n", f.Path, f.Reason)
	}
	if rep.Truncated {
		fmt.Fprintf(e.stderr, "cairn: stopped after %d folders: narrow the skills corpus's paths\n", skills.MaxDirs)
	}
	return nil
}
