package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/cairnmemory/cairn"
)

// contextLines are shown before and after the lines a hit or a source
// names.
const contextLines = 30

// docPage is the document view's data.
type docPage struct {
	page
	Path           string
	From, To       int // the lines asked for (0: none)
	Lines          []lineView
	Earlier, Later string
	Whole          string
	Query          string
	Truncated      bool
	Found          bool
}

// lineView is one line: its number, whether the hit holds it, whether it
// is a Markdown heading (a session projection's message headings), and
// its text in pieces, the query's words marked.
type lineView struct {
	N       int
	Hit     bool
	Heading bool
	Parts   []textPart
}

type textPart struct {
	Text string
	Mark bool
}

// doc serves /ui/doc?path=cairn://...&from=N&to=M&q=WORDS: the indexed
// text (never the file on disk) around lines from..to, those lines
// highlighted and the query's words marked in them.
func (h *Handler) doc(w http.ResponseWriter, r *http.Request) {
	eng, err := h.eng()
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	q := r.URL.Query()
	d := &docPage{page: h.pageOf("Document", "search"), Path: strings.TrimSpace(q.Get("path")), Query: q.Get("q")}
	all, err := parseDocRange(q, &d.From, &d.To)
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	read := func() (*cairn.GetResult, int, error) {
		start, n := 1, cairn.MaxGetLines
		if d.From > 0 && !all {
			start = max(1, d.From-contextLines)
			n = min(cairn.MaxGetLines, d.To-start+1+contextLines)
		}
		res, err := eng.Get(r.Context(), d.Path, &cairn.GetOptions{From: start, Lines: n})
		return res, start, err
	}
	res, start, err := read()
	total := -1 // the document's lines, once a range is found to run past them
	var past *cairn.PastEndError
	if errors.As(err, &past) {
		total, err = past.Total, nil // the window starts past the end
	}
	if err != nil {
		h.fail(w, r, 0, err)
		return
	}
	d.Title = d.Path
	if total < 0 && res.Status != cairn.StatusOK {
		d.Message = "not indexed: " + d.Path
		h.render(w, r, http.StatusNotFound, "doc", d)
		return
	}
	if total < 0 && d.From > 0 && !all && res.NextFrom == 0 && !res.Truncated && start+res.Lines-1 < d.To {
		total = start + res.Lines - 1 // the window holds the last line
	}
	if total >= 0 {
		// The range runs past the end: clamp it to the document's lines.
		asked := fmt.Sprintf("%d–%d", d.From, d.To)
		if d.From > total {
			d.Message = fmt.Sprintf("the document has %d lines: lines %s are past its end", total, asked)
			d.From, d.To = 0, 0
			if total > 0 {
				d.From, d.To = total, total
			}
		} else {
			d.Message = fmt.Sprintf("the document has %d lines: lines %s cut to %d–%d", total, asked, d.From, total)
			d.To = total
		}
		if res, start, err = read(); err != nil {
			h.fail(w, r, 0, err)
			return
		}
	}
	d.Found, d.Path, d.Truncated = true, res.Path, res.Truncated
	marker := wordsPattern(d.Query)
	var lines []string
	if res.Lines > 0 {
		lines = strings.Split(strings.TrimSuffix(res.Text, "\n"), "\n")
		lines = lines[:min(len(lines), res.Lines)]
	}
	for i, text := range lines {
		ln := start + i
		hit := d.From > 0 && ln >= d.From && ln <= d.To
		lv := lineView{N: ln, Hit: hit, Heading: strings.HasPrefix(text, "#")}
		if hit || d.From == 0 {
			lv.Parts = mark(text, marker)
		} else {
			lv.Parts = []textPart{{Text: text}}
		}
		d.Lines = append(d.Lines, lv)
	}
	if start > 1 {
		d.Earlier = docURL(d.Path, max(1, start-contextLines), start-1, d.Query)
	}
	if res.NextFrom > 0 {
		d.Later = docURL(d.Path, res.NextFrom, res.NextFrom+contextLines-1, d.Query)
	}
	d.Whole = "/ui/doc?" + url.Values{"path": {d.Path}, "all": {"1"}}.Encode()
	h.render(w, r, http.StatusOK, "doc", d)
}

// parseDocRange reads the from, to and all parameters: from and to
// positive line numbers, to not before from (to alone is an error), all
// 1, true, 0, false or empty. A from without to means that one line.
func parseDocRange(q url.Values, from, to *int) (all bool, err error) {
	line := func(name string) (int, error) {
		s := strings.TrimSpace(q.Get(name))
		if s == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return 0, cairn.Invalidf("%s %q is not a line number: give a whole number from 1", name, s)
		}
		return n, nil
	}
	if *from, err = line("from"); err != nil {
		return false, err
	}
	if *to, err = line("to"); err != nil {
		return false, err
	}
	switch {
	case *to > 0 && *from == 0:
		return false, cairn.Invalidf("to %d without from: give from too (the first line, from 1)", *to)
	case *to > 0 && *to < *from:
		return false, cairn.Invalidf("to %d is before from %d: give to at least from", *to, *from)
	case *from > 0 && *to == 0:
		*to = *from
	}
	switch s := q.Get("all"); s {
	case "1", "true":
		return true, nil
	case "", "0", "false":
		return false, nil
	default:
		return false, cairn.Invalidf("all %q: allowed 1, true, 0, false or empty", s)
	}
}

// queryWord finds the words of a query: letters, digits, _ . - and ':'
// runs, so "retry_count", "v1.2" and "cairn:go" stay whole.
var queryWord = regexp.MustCompile(`[\p{L}\p{N}_][\p{L}\p{N}_.:\-]*`)

// wordsPattern matches the words of q (case-insensitive), nil when it has
// none; the operators OR, AND and NOT are not words to mark.
func wordsPattern(q string) *regexp.Regexp {
	var alts []string
	for _, w := range queryWord.FindAllString(q, -1) {
		w = strings.TrimRight(w, ".:-")
		if len([]rune(w)) < 2 || w == "OR" || w == "AND" || w == "NOT" {
			continue
		}
		alts = append(alts, regexp.QuoteMeta(w))
	}
	if alts == nil {
		return nil
	}
	return regexp.MustCompile(`(?i)` + strings.Join(alts, "|"))
}

// mark splits text into pieces, the matches of re marked.
func mark(text string, re *regexp.Regexp) []textPart {
	if re == nil {
		return []textPart{{Text: text}}
	}
	var out []textPart
	at := 0
	for _, m := range re.FindAllStringIndex(text, -1) {
		if m[0] > at {
			out = append(out, textPart{Text: text[at:m[0]]})
		}
		out = append(out, textPart{Text: text[m[0]:m[1]], Mark: true})
		at = m[1]
	}
	if at < len(text) || out == nil {
		out = append(out, textPart{Text: text[at:]})
	}
	return out
}
