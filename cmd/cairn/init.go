package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/cairnmemory/cairn/config"
)

// Discovery at init: what cairn init does with the agents it finds.
//
//   - On a terminal (stdin is one), it lists them and asks once; Enter or
//     "y" adds them, "n" (or end of input) adds nothing.
//   - --discover adds them without asking; --no-discover does not look.
//   - Otherwise (stdin is not a terminal, or --json without --discover)
//     it never blocks and never changes what init writes: the template
//     alone, as before discovery existed. It lists what it found and how
//     to add it.
//
// Adding means a "sessions" corpus with the found sources and their roots,
// and a "claude-memory" files corpus for Claude Code's memory files; what
// an existing config has already is left alone, so init can run again.

// initInput is where init reads its answer, and whether that is a
// terminal; tests replace it.
var initInput = func() (io.Reader, bool) {
	return os.Stdin, term.IsTerminal(int(os.Stdin.Fd()))
}

// initJSON is `cairn init --json`.
type initJSON struct {
	Config  string            `json:"config"`
	Created bool              `json:"created"`
	DataDir string            `json:"dataDir"`
	Found   *config.Discovery `json:"found"` // null with --no-discover
	New     *config.Discovery `json:"new"`   // what of it the config lacked
	Added   []string          `json:"added"` // the corpora written to
}

func cmdInit(_ context.Context, e *env, args []string) error {
	fs := e.flags("init")
	discover := fs.Bool("discover", false, "add the agents found on this machine (transcript homes, Claude Code memory files) without asking")
	noDiscover := fs.Bool("no-discover", false, "do not look for agents")
	fs.BoolVar(&e.json, "json", false, "print JSON: the config, the data directory, what was found and added (adds only with --discover)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("init", pos); err != nil {
		return err
	}
	if *discover && *noDiscover {
		return usagef("init: --discover and --no-discover exclude each other")
	}
	path, dataDir := e.paths()
	created, err := config.Init(path)
	if err != nil {
		return err
	}
	dir, err := config.AgentDir(dataDir, e.agent)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	// MkdirAll leaves a folder that was there as it was: one writable by
	// group or others is made 0700 here, and one of another user refused
	// (env.privateDirs, ux F15).
	if err := e.privateDirs(os.Getuid(), dataDir, dir); err != nil {
		return err
	}
	out := initJSON{Config: path, Created: created, DataDir: dir, Added: []string{}}
	if !e.json {
		if created {
			fmt.Fprintf(e.stdout, "wrote %s\n", path)
		} else {
			fmt.Fprintf(e.stdout, "kept existing %s\n", path)
		}
		fmt.Fprintf(e.stdout, "data in %s\n", dir)
	}
	if !*noDiscover {
		home, _ := os.UserHomeDir()
		found := config.Discover(os.Getenv, home)
		out.Found = &found
		o, err := found.Offer(path)
		switch {
		case err != nil && *discover:
			return fmt.Errorf("add discovered agents: %w", err)
		case err != nil: // init never failed on an existing config; it still does not
			e.logf("cairn: warning: not offering the agents found: %s", oneLine(err.Error()))
		default:
			out.New = &o
			if out.Added, err = e.offer(path, home, found, o, *discover); err != nil {
				return err
			}
		}
	}
	if e.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(out.Added) > 0 {
		fmt.Fprintln(e.stdout, "next: cairn sync")
	} else {
		fmt.Fprintln(e.stdout, "next: cairn corpus add NAME PATH, then cairn sync")
	}
	return nil
}

// offer shows what was found, and o, what of it the config lacks, and
// adds o when accepted (add, or yes at the prompt). It returns the corpora
// written.
func (e *env) offer(path, home string, found, o config.Discovery, add bool) ([]string, error) {
	in, tty := initInput()
	ask := !add && !e.json && tty
	if !e.json {
		e.showFound(found, o, add || ask)
	}
	if o.Empty() {
		return []string{}, nil
	}
	if ask {
		add = confirm(in, e.stderr, "add them to "+path+"? [Y/n] ")
	}
	if !add {
		return []string{}, nil
	}
	changed, err := config.AddDiscovered(path, o, home)
	if err != nil {
		return changed, fmt.Errorf("add discovered agents: %w", err)
	}
	if !e.json {
		fmt.Fprintf(e.stdout, "added to %s: %s\n", path, strings.Join(changed, ", "))
	}
	return changed, nil
}

// showFound lists the found agents, marking what the config has already,
// and says how to add the rest when init will not ask.
func (e *env) showFound(found, o config.Discovery, asking bool) {
	if found.Empty() {
		fmt.Fprintln(e.stdout, "found no agent transcripts (Claude Code, Codex, OpenClaw, Gemini CLI) in their standard places")
		return
	}
	fmt.Fprintln(e.stdout, "found on this machine:")
	for _, s := range found.Sources {
		note := fmt.Sprintf("%d transcripts", s.Transcripts)
		if s.ListError != "" {
			note += "; " + s.ListError
		}
		if !containsSource(o.Sources, s.ID) {
			note += "; already configured"
		}
		fmt.Fprintf(e.stdout, "  %-14s %s (%s)\n", s.ID, strings.Join(s.Roots, ", "), note)
	}
	if len(found.MemoryFiles) > 0 {
		note := ""
		if len(o.MemoryPaths) == 0 {
			note = "; already configured"
		}
		fmt.Fprintf(e.stdout, "  %-14s %d Claude Code memory files: %s (%s%s)\n", config.MemoryCorpus,
			len(found.MemoryFiles), strings.Join(found.MemoryPaths, ", "), config.MemoryGlob, note)
	}
	switch {
	case o.Empty():
		fmt.Fprintln(e.stdout, "all of it is configured already")
	case asking:
		fmt.Fprintln(e.stdout, "to add: "+describeOffer(o))
	default:
		fmt.Fprintln(e.stdout, "not added ("+describeOffer(o)+"): run cairn init --discover to add them")
	}
}

// describeOffer says which corpora adding o writes.
func describeOffer(o config.Discovery) string {
	var parts []string
	if len(o.Sources) > 0 {
		var ids []string
		for _, s := range o.Sources {
			ids = append(ids, s.ID)
		}
		parts = append(parts, "sessions corpus: "+strings.Join(ids, ", "))
	}
	if len(o.MemoryPaths) > 0 {
		parts = append(parts, fmt.Sprintf("notes corpus %q: %d files", config.MemoryCorpus, len(o.MemoryFiles)))
	}
	return strings.Join(parts, "; ")
}

func containsSource(ss []config.FoundSource, id string) bool {
	for _, s := range ss {
		if s.ID == id {
			return true
		}
	}
	return false
}

// confirm asks question on w and reads answers from in: empty, y or yes
// accept; n or no decline; anything else asks again (three times at
// most); end of input declines.
func confirm(in io.Reader, w io.Writer, question string) bool {
	r := bufio.NewReader(in)
	for range 3 {
		fmt.Fprint(w, question)
		line, err := r.ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true
		case "":
			if err == nil {
				return true
			}
		case "n", "no":
			return false
		}
		if err != nil {
			fmt.Fprintln(w)
			return false
		}
	}
	return false
}
