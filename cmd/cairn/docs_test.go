package main

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsNameRealCommandsAndFlags reads every `cairn ...` line in the
// shell blocks of README.md and docs/*.md and fails when one names a
// command the table lacks or a flag that command does not define, so the
// documentation cannot drift from the code.
func TestDocsNameRealCommandsAndFlags(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	checked := 0
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		inShell := false
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if strings.HasPrefix(line, "```") {
				inShell = line == "```sh" || line == "```bash" || line == "```console"
				continue
			}
			line = strings.TrimPrefix(line, "$ ")
			if !inShell || !strings.HasPrefix(line, "cairn ") {
				continue
			}
			line, _, _ = strings.Cut(line, "#")
			if msg := checkDocLine(t, line); msg != "" {
				t.Errorf("%s:%d: %s: %s", filepath.Base(file), n, line, msg)
			}
			checked++
		}
		f.Close()
	}
	t.Logf("%d documented cairn lines checked", checked)
	if checked < 20 {
		t.Errorf("only %d cairn lines found in the docs: is the parser broken?", checked)
	}
}

// checkDocLine resolves the command of one documented line and checks its
// flags; it returns what is wrong, or "".
func checkDocLine(t *testing.T, line string) string {
	fields := strings.Fields(line)[1:]
	var words []string
	for _, w := range fields {
		if strings.HasPrefix(w, "-") || !isPrefix(append(words, w)) {
			break
		}
		words = append(words, w)
	}
	if len(words) == 0 && len(fields) > 0 && (fields[0] == "--version" || isHelpFlag(fields[0])) {
		return ""
	}
	c := lookup(strings.Join(words, " "))
	if c == nil {
		return "no such command"
	}
	fs := flagsOf(t, c)
	for _, w := range fields[len(words):] {
		w = strings.Trim(w, "[]().,;'\"`")
		if !strings.HasPrefix(w, "--") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(w, "--"), "..."), "=")
		name = strings.TrimRight(name, "]")
		if name == "" || name == "help" {
			continue
		}
		if fs.Lookup(name) == nil {
			return "cairn " + c.path + " has no flag --" + name + flagNames(fs)
		}
	}
	return ""
}

func flagNames(fs *flag.FlagSet) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return " (it has " + strings.Join(names, ", ") + ")"
}
