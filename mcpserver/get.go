package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

// Get runs memory_get (spec C13): lines of an indexed document's snapshot,
// never a file on disk. Anything not indexed, traversal attempts included,
// is status not_found; an unavailable index is status unavailable.
func (a *Agent) Get(ctx context.Context, in GetIn) (*GetOut, error) {
	path, o, err := getOptions(in)
	if err != nil {
		return nil, err
	}
	if err := a.unavailable(); err != nil {
		return &GetOut{Status: "unavailable", Error: err.Error()}, nil // spec C1
	}
	path = a.canonicalPath(path)
	a.waitFirstSync(ctx)
	res, err := a.eng.Get(ctx, path, o)
	if errors.Is(err, cairn.ErrUnavailable) {
		return &GetOut{Status: "unavailable", Error: err.Error()}, nil
	}
	if errors.Is(err, cairn.ErrInvalid) {
		return nil, err // names the path already: "get PATH: line range ..."
	}
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", path, err)
	}
	if res.Status == cairn.StatusNotFound {
		return &GetOut{Status: cairn.StatusNotFound, Text: ptr(""), Path: path}, nil
	}
	text := res.Text
	if res.NextFrom > 0 {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += fmt.Sprintf("[continues at line %d: call memory_get with from=%d]\n", res.NextFrom, res.NextFrom)
	}
	if res.Truncated && res.NextFrom == 0 { // a single line over cairn.MaxGetChars, cut hard
		text += fmt.Sprintf("\n[line %d cut at %d characters: memory_get reads whole lines, and the rest of this one is past the limit]\n", res.From, cairn.MaxGetChars)
	}
	if res.Path != "" {
		path = res.Path // the cairn:// path the engine resolved
	}
	return &GetOut{Status: cairn.StatusOK, Text: &text, Path: path, From: ptr(res.From), Lines: ptr(res.Lines),
		Truncated: res.Truncated, NextFrom: res.NextFrom}, nil
}

// getOptions validates in.
func getOptions(in GetIn) (string, *cairn.GetOptions, error) {
	path := strings.TrimSpace(in.Path)
	if path == "" {
		return "", nil, cairn.Invalidf("path is blank: give a cairn://<corpus>/<path> from a memory_search result")
	}
	// From and Lines stay zero unless given: the engine then takes them
	// from a line range in the path (cairn://notes/a.md:10-25, as a
	// search hit prints it), else defaults them (DefaultGetFrom,
	// DefaultGetLines). Filled here, they hid the range (ux F6).
	o := &cairn.GetOptions{}
	if in.From != nil {
		if *in.From < 1 || *in.From > MaxGetFrom {
			return "", nil, cairn.Invalidf("from %d out of range: allowed 1 to %d", *in.From, MaxGetFrom)
		}
		o.From = *in.From
	}
	if in.Lines != nil {
		if *in.Lines < 1 || *in.Lines > MaxGetLines {
			return "", nil, cairn.Invalidf("lines %d out of range: allowed 1 to %d", *in.Lines, MaxGetLines)
		}
		o.Lines = *in.Lines
	}
	return path, o, nil
}

// canonicalPath spells the corpus of a cairn:// path as configured
// (engine.CanonicalPath over the searchable corpora and memories; issue 14
// item 16).
func (a *Agent) canonicalPath(path string) string {
	return engine.CanonicalPath(path, append(a.searchable(), cairn.MemoriesCorpus))
}
