package engine

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
)

// Scheme prefixes every indexed document's path.
const Scheme = "cairn://"

// Get reads lines of an indexed document's snapshot (never the file on
// disk). path is cairn://<corpus>/<relative path>; anything not indexed,
// including traversal attempts, absolute paths and unconfigured corpora,
// is Status "not_found". Lines [From, From+Lines) are returned, dropping
// trailing lines until the text fits cairn.MaxGetChars characters (then
// Truncated is set); a single longer line is cut hard. NextFrom names the
// next line whenever the document continues past the returned text, except
// after a hard cut. The text is returned exactly, without a continuation
// note, so callers can splice it; the CLI prints the note.
func (e *Engine) Get(ctx context.Context, path string, opts *cairn.GetOptions) (*cairn.GetResult, error) {
	o := cairn.GetOptions{}
	if opts != nil {
		o = *opts
	}
	o.SetDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	path = strings.TrimSpace(path)
	if path == "" {
		return nil, cairn.Invalidf("path is blank: give a cairn://<corpus>/<path> from a search hit")
	}
	notFound := &cairn.GetResult{Status: cairn.StatusNotFound, Path: path}
	corpus, rel, ok := splitPath(path)
	if !ok || !e.configured(corpus) || !ingest.ValidRel(rel) {
		return notFound, nil
	}
	text, err := e.store.DocumentText(ctx, corpus, rel)
	if errors.Is(err, cairn.ErrNotFound) {
		return notFound, nil
	}
	if err != nil {
		return nil, err
	}
	res := sliceLines(text, o.From, o.Lines)
	res.Path = path
	return res, nil
}

func splitPath(p string) (corpus, rel string, ok bool) {
	rest, ok := strings.CutPrefix(p, Scheme)
	if !ok {
		return "", "", false
	}
	corpus, rel, ok = strings.Cut(rest, "/")
	return corpus, rel, ok && corpus != "" && rel != ""
}

func (e *Engine) configured(corpus string) bool {
	for _, c := range e.opts.Corpora {
		if c.Name == corpus && c.Kind != cairn.KindSkills {
			return true
		}
	}
	return false
}

// sliceLines implements Get's line window and character cap.
func sliceLines(text string, from, n int) *cairn.GetResult {
	starts := lineStarts(text)
	total := len(starts)
	res := &cairn.GetResult{Status: cairn.StatusOK, From: from}
	if from > total {
		return res
	}
	last := min(from+n-1, total) // inclusive, 1-based
	end := func(l int) int {
		if l < total {
			return starts[l]
		}
		return len(text)
	}
	seg := text[starts[from-1]:end(last)]
	for utf8.RuneCountInString(seg) > cairn.MaxGetChars {
		res.Truncated = true
		if last == from {
			res.Text, res.Lines = cutRunes(seg, cairn.MaxGetChars), 1
			return res
		}
		last--
		seg = text[starts[from-1]:end(last)]
	}
	res.Text, res.Lines = seg, last-from+1
	if last < total {
		res.NextFrom = last + 1
	}
	return res
}

// lineStarts returns the byte offset of each line; a final newline does not
// start another line.
func lineStarts(text string) []int {
	if text == "" {
		return nil
	}
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && i+1 < len(text) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
