package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

func cmdGet(ctx context.Context, e *env, args []string) error {
	fs := e.flags("get")
	from := fs.Int("from", 1, "first line, 1-based")
	lines := fs.Int("lines", cairn.DefaultGetLines, "number of lines, 1 to 1000")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("get needs exactly one PATH (cairn://<corpus>/<path>[:<from>-<to>] or an indexed file's absolute path), got %d", len(pos))
	}
	opts := &cairn.GetOptions{From: *from, Lines: *lines}
	if err := opts.Validate(); err != nil {
		return err
	}
	// A range in PATH (cairn://notes/a.md:10-20, as search prints hits)
	// sets the window where no flag does: Get fills zero fields from it.
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["from"] {
		opts.From = 0
	}
	if !set["lines"] {
		opts.Lines = 0
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	res, err := eng.Get(ctx, canonicalCorpus(pos[0], eng.Corpora()), opts)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(res)
	}
	if res.Status == cairn.StatusNotFound {
		return fmt.Errorf("get %s: %w (only indexed documents can be read: run cairn search to find paths)", visible(res.Path), cairn.ErrNotFound)
	}
	text := res.Text
	if isTerminal(e.stdout) {
		// On a terminal a note's escape sequences would act: set the
		// clipboard (OSC 52), the title, a hidden link, clear the
		// screen (ux U9). They are shown as search shows them; a pipe
		// or a file gets the text as it is.
		text = visibleLines(text)
	}
	fmt.Fprint(e.stdout, text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(e.stdout)
	}
	// The notes go to stderr, the path's control characters visible
	// (printsafe.go).
	if res.NextFrom > 0 {
		fmt.Fprintf(e.stderr, "[more: cairn get %s --from %d]\n", visible(res.Path), res.NextFrom)
	}
	if res.Truncated && res.NextFrom == 0 {
		fmt.Fprintln(e.stderr, hardCutNote(res))
	}
	return nil
}

// hardCutNote says that Get cut a single line longer than
// cairn.MaxGetChars characters: the rest of that line cannot be read by
// line (before, the text just stopped mid-word, with no note).
func hardCutNote(res *cairn.GetResult) string {
	return fmt.Sprintf("[line %d cut at %s characters: get reads whole lines, and the rest of this one is past the limit]", res.From, thousands(cairn.MaxGetChars))
}

// canonicalCorpus spells the corpus of a cairn:// path as configured
// (engine.CanonicalPath over the configured corpora and memories; ux U30:
// cairn get cairn://NOTES/a.md was not found).
func canonicalCorpus(path string, corpora []cairn.Corpus) string {
	names := []string{cairn.MemoriesCorpus}
	for _, c := range corpora {
		names = append(names, c.Name)
	}
	return engine.CanonicalPath(path, names)
}
