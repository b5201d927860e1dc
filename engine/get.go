package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
)

// Scheme prefixes every indexed document's path.
const Scheme = "cairn://"

// CanonicalPath spells the corpus of a cairn:// path as one of names
// spells it when they differ only in case, as search's --corpus and MCP's
// memory_search corpora match: cairn://NOTES/a.md reads cairn://notes/a.md.
// The path inside the corpus stays as given (file names are
// case-sensitive); any other path is returned unchanged.
func CanonicalPath(path string, names []string) string {
	rest, ok := strings.CutPrefix(path, Scheme)
	if !ok {
		return path
	}
	name, rel, ok := strings.Cut(rest, "/")
	if !ok {
		return path
	}
	for _, c := range names {
		if strings.EqualFold(c, name) {
			return Scheme + c + "/" + rel
		}
	}
	return path
}

// Get reads lines of an indexed document's snapshot (never the file on
// disk). path is cairn://<corpus>/<relative path>, optionally with the
// line range a search hit prints (":101-115"), or the absolute path of an
// indexed file (see resolveGet); Path in the result is then the
// cairn:// path. Anything not indexed, including traversal attempts, files
// on disk that were never indexed and unconfigured corpora, is Status
// "not_found"; a line range that is not one (line 0, a range that ends
// before it starts) is an ErrInvalid error naming it, and so is a From
// past the document's last line (a *cairn.PastEndError, saying how many
// lines there are; an empty document takes From 1 only). Lines
// [From, From+Lines) are returned, as many as there are, dropping
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
	check := o // zero From and Lines stay zero until a range in path fills them
	check.SetDefaults()
	if err := check.Validate(); err != nil {
		return nil, err
	}
	path = strings.TrimSpace(path)
	if path == "" {
		return nil, cairn.Invalidf("path is blank: give a cairn://<corpus>/<path> from a search hit")
	}
	notFound := &cairn.GetResult{Status: cairn.StatusNotFound, Path: path}
	doc, err := e.resolveGet(ctx, path, &o)
	if err != nil || doc.path == "" {
		return notFound, err
	}
	o.SetDefaults()
	starts := lineStarts(doc.text)
	if o.From > max(len(starts), 1) {
		return nil, &cairn.PastEndError{Path: doc.path, From: o.From, Total: len(starts)}
	}
	res := sliceStarts(doc.text, starts, o.From, o.Lines)
	res.Path = doc.path
	return res, nil
}

// getDoc is the document a Get names: its cairn:// path and its text.
type getDoc struct {
	path, text string
}

// resolveGet finds the indexed document path names, in the three forms a
// user has at hand:
//
//   - cairn://<corpus>/<path>, as a search hit's path;
//   - cairn://<corpus>/<path>:<from>-<to> or :<line>, as the CLI prints a
//     hit: the range sets From and Lines where o leaves them zero (given
//     explicitly, they win), Lines capped at cairn.MaxGetLines. A document
//     whose own name ends in such a suffix is read when the stripped one
//     is not indexed;
//   - the absolute path of an indexed file, mapped back to the corpus and
//     relative path it was indexed under (the first configured corpus that
//     holds it). A file on disk that is not indexed stays not found: Get
//     reads the index, never the disk. A :<line> or :<from>-<to> suffix
//     works as on a cairn:// path, only when the path without it is an
//     indexed file.
//
// A zero getDoc means not found.
func (e *Engine) resolveGet(ctx context.Context, path string, o *cairn.GetOptions) (getDoc, error) {
	lookup, minColon := e.indexedDoc, len(Scheme)
	if filepath.IsAbs(path) && !strings.HasPrefix(path, Scheme) {
		lookup, minColon = e.absoluteDoc, 1
	}
	if base, from, to, ok := splitRange(path, minColon); ok {
		doc, err := lookup(ctx, base)
		if err != nil || doc.path != "" {
			if o.From == 0 {
				o.From = from
			}
			if o.Lines == 0 && to >= from {
				o.Lines = min(to-from+1, cairn.MaxGetLines)
			}
			return doc, err
		}
	}
	doc, err := lookup(ctx, path)
	if err != nil || doc.path != "" {
		return doc, err
	}
	if r, bad := badRange(path, minColon); bad {
		return getDoc{}, cairn.Invalidf("get %s: line range %q: allowed :<line> or :<from>-<to> with 1 <= from <= to (as search prints hits, e.g. :10-25)", path, r)
	}
	return getDoc{}, nil
}

// indexedDoc reads the document at a cairn:// path; a zero getDoc when it
// is not indexed in a configured corpus.
func (e *Engine) indexedDoc(ctx context.Context, path string) (getDoc, error) {
	corpus, rel, ok := splitPath(path)
	if !ok {
		return getDoc{}, nil
	}
	if err := CanRead(ctx, corpus); err != nil { // scope.go: before the store is asked
		return getDoc{}, err
	}
	if !e.configured(corpus) || !ingest.ValidRel(rel) {
		return getDoc{}, nil
	}
	text, err := e.store.DocumentText(ctx, corpus, rel)
	if errors.Is(err, cairn.ErrNotFound) {
		return getDoc{}, nil
	}
	if err != nil {
		return getDoc{}, err
	}
	return getDoc{path, text}, nil
}

// splitRange cuts a trailing ":<from>-<to>" or ":<line>" (positive
// numbers) off a path whose last colon is at minColon or later
// (len(Scheme) for a cairn:// path, 1 for an absolute one).
func splitRange(path string, minColon int) (base string, from, to int, ok bool) {
	i := strings.LastIndexByte(path, ':')
	if i < minColon {
		return "", 0, 0, false
	}
	a, b, isRange := strings.Cut(path[i+1:], "-")
	from, err := strconv.Atoi(a)
	if err != nil || from < 1 {
		return "", 0, 0, false
	}
	to = from
	if isRange {
		if to, err = strconv.Atoi(b); err != nil || to < from {
			return "", 0, 0, false
		}
	} else {
		to = 0 // one line: Lines keeps its default
	}
	return path[:i], from, to, true
}

// badRange reports whether path ends in what can only be meant as a line
// range, ":<digits>" or ":<digits>-<digits>", that splitRange refuses (a
// line 0, a range that ends before it starts, a number too large), and
// returns that suffix: Get answers it with an error naming the range, not
// "not found", unless a document is named so.
func badRange(path string, minColon int) (string, bool) {
	i := strings.LastIndexByte(path, ':')
	if i < minColon {
		return "", false
	}
	r := path[i+1:]
	a, b, isRange := strings.Cut(r, "-")
	if !digits(a) || isRange && !digits(b) {
		return "", false
	}
	_, _, _, ok := splitRange(path, minColon)
	return r, !ok
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// absoluteDoc maps an absolute file path to the document indexed from it.
// Each configured corpus's roots are tried in order with the exposed path
// the scan gives the file (ingest.Source.Exposed); the path is tried as
// given, then with its symlinks resolved.
func (e *Engine) absoluteDoc(ctx context.Context, abs string) (getDoc, error) {
	abs = filepath.Clean(abs)
	tries := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		tries = append(tries, real)
	}
	for _, c := range readable(ctx, e.opts.Corpora) { // scope.go: a file of another corpus is not found
		if !e.configured(c.Name) {
			continue
		}
		srcs, err := ingest.Resolve(e.scanCorpus(c))
		if err != nil {
			continue // a corpus that cannot be scanned indexed nothing
		}
		for _, p := range tries {
			for _, src := range srcs {
				rel, ok := src.Exposed(p)
				if !ok {
					continue
				}
				doc, err := e.indexedDoc(ctx, Scheme+c.Name+"/"+rel)
				if err != nil || doc.path != "" {
					return doc, err
				}
			}
		}
	}
	return getDoc{}, nil
}

// scanCorpus is the files corpus a configured corpus is indexed as: itself
// for files, the projections folder for sessions and the memories folder
// for memories.
func (e *Engine) scanCorpus(c cairn.Corpus) cairn.Corpus {
	switch c.Kind {
	case cairn.KindSessions:
		return cairn.Corpus{Name: c.Name, Kind: cairn.KindFiles, Paths: []string{e.sessionsRoot()}, Glob: cairn.DefaultGlob}
	case cairn.KindMemories:
		return cairn.Corpus{Name: c.Name, Kind: cairn.KindFiles, Paths: []string{e.memoriesRoot()}, Glob: cairn.DefaultGlob}
	}
	return c
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

// sliceLines implements Get's line window and character cap; a from past
// the end gives no lines (Get refuses it before).
func sliceLines(text string, from, n int) *cairn.GetResult {
	return sliceStarts(text, lineStarts(text), from, n)
}

// sliceStarts is sliceLines over the text's lineStarts.
func sliceStarts(text string, starts []int, from, n int) *cairn.GetResult {
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
	// Take lines from the first while they fit in MaxGetChars, counting
	// each line's runes once (counting the whole range again for each
	// line dropped was quadratic: seconds of CPU for 1,000 long lines).
	runes, l := 0, from
	for ; l <= last; l++ {
		c := utf8.RuneCountInString(text[starts[l-1]:end(l)])
		if runes+c > cairn.MaxGetChars {
			break
		}
		runes += c
	}
	if l <= last {
		res.Truncated = true
		if l == from {
			res.Text, res.Lines = cutRunes(text[starts[from-1]:end(from)], cairn.MaxGetChars), 1
			return res
		}
		last = l - 1
	}
	res.Text, res.Lines = text[starts[from-1]:end(last)], last-from+1
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
