package main

import (
	"context"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// flagsOf returns the flag set a command parses, by asking it for help.
func flagsOf(t *testing.T, c *command) *flag.FlagSet {
	t.Helper()
	h, err := commandHelp(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimPrefix(h.fs.Name(), "cairn "); got != c.path {
		t.Fatalf("command %q parses flags named %q: the help would describe another command", c.path, got)
	}
	return h.fs
}

// TestHelpEveryCommand walks the command table: --help, -h and
// `cairn help PATH` exit 0 with the command's usage on stdout, naming every
// flag the command's FlagSet defines.
func TestHelpEveryCommand(t *testing.T) {
	c := newCLI(t)
	for i := range commands {
		cmd := &commands[i]
		fs := flagsOf(t, cmd)
		words := strings.Fields(cmd.path)
		for _, args := range [][]string{append(words, "--help"), append(words, "-h"), append([]string{"help"}, words...)} {
			out, errs, code := c.run(args...)
			if code != 0 || errs != "" {
				t.Errorf("cairn %v: exit %d, stderr %q; want 0 and nothing", args, code, errs)
				continue
			}
			if !strings.HasPrefix(out, "usage: cairn "+cmd.path) {
				t.Errorf("cairn %v: stdout does not start with the usage line: %q", args, out)
			}
			fs.VisitAll(func(f *flag.Flag) {
				if !strings.Contains(out, "  --"+f.Name+" ") {
					t.Errorf("cairn %v: help omits --%s", args, f.Name)
				}
			})
		}
	}
}

// helpEntries splits one section of `cairn help` into its entries: a line
// indented by two spaces starts one, deeper lines continue it.
func helpEntries(t *testing.T, out, heading string) map[string]string {
	t.Helper()
	_, sec, ok := strings.Cut(out, "\n"+heading)
	if !ok {
		t.Fatalf("cairn help has no %q section:\n%s", heading, out)
	}
	sec, _, _ = strings.Cut(sec, "\n\n")
	entries := map[string]string{}
	var key string
	for _, l := range strings.Split(sec, "\n")[1:] {
		if strings.HasPrefix(l, "   ") {
			entries[key] += " " + strings.TrimSpace(l)
			continue
		}
		key = l
		entries[key] = l
	}
	return entries
}

// TestHelpListsEveryCommandAndFlag fails when `cairn help` misses a
// command of the table or a flag of one (the hand-written list it replaced
// missed 14 flags, sync status and the session filters).
func TestHelpListsEveryCommandAndFlag(t *testing.T) {
	c := newCLI(t)
	out := c.ok("help")
	if again := c.ok("--help"); again != out {
		t.Errorf("cairn --help differs from cairn help")
	}
	commandsSec := helpEntries(t, out, "Commands:")
	flagsSec := helpEntries(t, out, "Flags of each command")
	globalSec := helpEntries(t, out, "Global flags")
	// find returns the entry whose first column (up to two spaces) is col.
	find := func(sec map[string]string, col string) string {
		for k, v := range sec {
			if first, _, _ := strings.Cut(strings.TrimPrefix(k, "  "), "  "); strings.TrimSpace(first) == col {
				return v
			}
		}
		return ""
	}
	for i := range commands {
		cmd := &commands[i]
		if find(commandsSec, strings.TrimSpace(cmd.path+" "+cmd.args)) == "" {
			t.Errorf("cairn help does not list %q", cmd.path)
		}
		entry := find(flagsSec, cmd.path)
		flagsOf(t, cmd).VisitAll(func(f *flag.Flag) {
			if globalUsage[f.Name] == f.Usage {
				if !strings.Contains(strings.Join(slices.Collect(maps.Keys(globalSec)), "\n")+"\n", "  --"+f.Name+" ") {
					t.Errorf("cairn help: global flag --%s of %s is not under Global flags", f.Name, cmd.path)
				}
				return
			}
			if !strings.Contains(entry+" ", "[--"+f.Name+" ") && !strings.Contains(entry+" ", "[--"+f.Name+"]") {
				t.Errorf("cairn help: %s's flags %q omit --%s", cmd.path, entry, f.Name)
			}
		})
	}
}

// TestHelpGroups: a group of commands answers --help with its commands,
// and without a subcommand it is bad usage.
func TestHelpGroups(t *testing.T) {
	c := newCLI(t)
	for _, g := range []string{"corpus", "models", "eval", "memories"} {
		for _, args := range [][]string{{g, "--help"}, {"help", g}} {
			out := c.ok(args...)
			for _, sub := range group(g) {
				if !strings.Contains(out, "  "+sub.path) {
					t.Errorf("cairn %v omits %s: %q", args, sub.path, out)
				}
			}
		}
		if _, errs, code := c.run(g); code != 2 || !strings.Contains(errs, "needs a subcommand") {
			t.Errorf("cairn %s: exit %d, stderr %q; want 2 and needs a subcommand", g, code, errs)
		}
		if _, errs, code := c.run(g, "frobnicate"); code != 2 || !strings.Contains(errs, "unknown "+g+" subcommand") {
			t.Errorf("cairn %s frobnicate: exit %d, stderr %q", g, code, errs)
		}
	}
	if _, errs, code := c.run("help", "frobnicate"); code != 2 || !strings.Contains(errs, "no such command") {
		t.Errorf("cairn help frobnicate: exit %d, stderr %q", code, errs)
	}
}

// TestGlobalFlagsAnyPosition: --config and --agent work before the
// command, between its words and after them.
func TestGlobalFlagsAnyPosition(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# A\n\nalpha beta\n"), 0o644)
	other := filepath.Join(t.TempDir(), "other.toml")
	c.ok("--config", other, "corpus", "add", "elsewhere", notes)
	for _, args := range [][]string{
		{"--config", other, "corpus", "list"},
		{"--config=" + other, "corpus", "list"},
		{"corpus", "--config", other, "list"},
		{"corpus", "list", "--config", other},
		{"-config", other, "corpus", "list", "--json"},
	} {
		if out := c.ok(args...); !strings.Contains(out, "elsewhere") {
			t.Errorf("cairn %v: %q does not list the corpus of %s", args, out, other)
		}
	}
	if out := c.ok("corpus", "list"); strings.Contains(out, "elsewhere") {
		t.Errorf("the default config lists the other file's corpus: %q", out)
	}
	c.ok("--agent", "second", "--config", other, "sync")
	for _, args := range [][]string{
		{"--agent", "second", "--config", other, "search", "alpha"},
		{"search", "--agent=second", "alpha", "--config", other},
	} {
		if out := c.ok(args...); !strings.Contains(out, "cairn://elsewhere/a.md") {
			t.Errorf("cairn %v: %q", args, out)
		}
	}
	if _, err := os.Stat(filepath.Join(c.home, "agents", "second", "index.db")); err != nil {
		t.Errorf("--agent before the command did not pick the agent's data: %v", err)
	}
	if out := c.ok("--config", other, "search", "alpha"); !strings.Contains(out, "no results") {
		t.Errorf("the default agent has hits it never synced: %q", out)
	}
}
