package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
)

func cmdCorpusAdd(e *env, args []string) error {
	fs := e.flags("corpus add")
	glob := fs.String("glob", "", "files to include under PATH (default "+cairn.DefaultGlob+")")
	kind := fs.String("kind", cairn.KindFiles, `"files", "sessions" or "skills"`)
	var sources, roots stringList
	fs.Var(&sources, "source", "sessions: a transcript source (repeatable)")
	fs.Var(&roots, "root", "sessions: SOURCE=DIR, the tool's home folder (repeatable)")
	var excludes stringList
	fs.Var(&excludes, "exclude", "files: a glob, relative to PATH, of files or folders to skip (repeatable)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	path, _ := e.paths()
	home, _ := os.UserHomeDir() // expands a quoted '~/notes' or --root codex='~/.codex'
	switch *kind {
	case cairn.KindSessions:
		if len(excludes) > 0 || *glob != "" {
			return usagef("--exclude and --glob are for files corpora")
		}
		return addSessions(e, path, pos, sources, roots, home)
	case cairn.KindSkills:
		if len(excludes) > 0 || *glob != "" || len(sources) > 0 || len(roots) > 0 {
			return usagef("--exclude, --glob, --source and --root do not apply to the skills corpus: cairn corpus add skills PATH... --kind skills")
		}
		return addSkills(e, path, pos, home)
	case cairn.KindFiles:
	default:
		return usagef(`--kind %q: allowed "files", "sessions" or "skills"`, *kind)
	}
	if len(sources) > 0 || len(roots) > 0 {
		return usagef("--source and --root need --kind sessions")
	}
	if len(pos) != 2 {
		return usagef("corpus add needs NAME and PATH, got %d arguments", len(pos))
	}
	if err := config.AddFiles(path, config.FilesCorpus{Name: pos[0], Paths: pos[1:], Glob: *glob, Exclude: excludes, Home: home}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "added corpus %s to %s; run cairn sync to index it\n", pos[0], path)
	return nil
}

// corpusJSON is one entry of `cairn corpus list --json`.
type corpusJSON struct {
	Name    string       `json:"name"`
	Kind    string       `json:"kind"`
	Paths   []string     `json:"paths"`
	Glob    string       `json:"glob"`
	Exclude []string     `json:"exclude"`
	Sources []sourceJSON `json:"sources,omitempty"`
}

type sourceJSON struct {
	ID    string   `json:"id"`
	Roots []string `json:"roots"`
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
		cj := corpusJSON{c.Name, c.Kind, append([]string{}, c.Paths...), c.Glob, append([]string{}, c.Exclude...), nil}
		for _, s := range c.Sources {
			cj.Sources = append(cj.Sources, sourceJSON{s.ID, s.Roots})
			cj.Paths = append(cj.Paths, s.Roots...)
		}
		out = append(out, cj)
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

func addSessions(e *env, path string, pos []string, sources, roots []string, home string) error {
	if len(pos) != 1 || pos[0] != cairn.KindSessions {
		return usagef(`corpus add --kind sessions takes the name "sessions" and no PATH: cairn corpus add sessions --kind sessions --source claude-code`)
	}
	byID := map[string][]string{}
	for _, r := range roots {
		id, dir, ok := strings.Cut(r, "=")
		if !ok || id == "" || dir == "" {
			return usagef("--root %q: write SOURCE=DIR, for example --root codex=$HOME/.codex", r)
		}
		byID[id] = append(byID[id], dir)
	}
	// Adds the sources to the sessions corpus when there is one already.
	if err := config.AddSessions(path, sources, byID, home); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "added %s to corpus sessions in %s; run cairn sync to read the transcripts\n", strings.Join(sources, ", "), path)
	return nil
}

func addSkills(e *env, path string, pos []string, home string) error {
	if len(pos) < 2 || pos[0] != cairn.KindSkills {
		return usagef(`corpus add --kind skills takes the name "skills" and one or more PATHs: cairn corpus add skills ~/.claude/skills --kind skills`)
	}
	if err := config.AddSkills(path, pos[1:], home); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "added corpus skills to %s; enable the skill whisperer with [skillWhisperer] enabled = true (it needs an [embedder])\n", path)
	return nil
}

func cmdCorpusRemove(e *env, args []string) error {
	pos, err := parse(e.flags("corpus remove"), args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("corpus remove needs one NAME, got %d arguments", len(pos))
	}
	path, _ := e.paths()
	if err := config.RemoveCorpus(path, pos[0]); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "removed corpus %s from %s; the next cairn sync drops its documents from the index\n", pos[0], path)
	return nil
}
