package web

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
)

// TestCorporaDocumentPages: a corpus of more documents than a page holds
// is counted whole (documents and bytes from one aggregate query) and
// listed a page at a time in path order, with links to the next and
// previous pages; a bad from is refused naming the parameter.
func TestCorporaDocumentPages(t *testing.T) {
	files := map[string]string{}
	var bytes int
	for i := range maxDocRows + 3 {
		text := fmt.Sprintf("# Note %d\n\nEntry %d.\n", i, i)
		files[fmt.Sprintf("n%04d.md", i)] = text
		bytes += len(text)
	}
	s := newServerWith(t, "", files, nil)
	_, _, all := s.get(t, "/ui/corpora")
	if row := corporaRow(all, "notes"); !strings.Contains(row, fmt.Sprintf("<td>%d</td>", maxDocRows+3)) {
		t.Errorf("notes row does not count %d documents: %s", maxDocRows+3, row)
	}
	if want := humanSize(int64(bytes)); !strings.Contains(corporaRow(all, "notes"), want) {
		t.Errorf("notes row does not show %s: %s", want, corporaRow(all, "notes"))
	}
	code, _, first := s.get(t, "/ui/corpora?corpus=notes")
	rows := regexp.MustCompile(`<td><a href="/ui/doc\?[^"]*">(n\d+\.md)</a>`).FindAllStringSubmatch(first, -1)
	if code != 200 || len(rows) != maxDocRows || rows[0][1] != "n0000.md" || rows[maxDocRows-1][1] != fmt.Sprintf("n%04d.md", maxDocRows-1) ||
		!strings.Contains(first, fmt.Sprintf("1 to %d", maxDocRows)) || !strings.Contains(first, "and 3 more") {
		t.Fatalf("first page: status %d, %d rows, want %d in path order, with '1 to %d' and 'and 3 more':\n%.2000s", code, len(rows), maxDocRows, maxDocRows, first)
	}
	next := regexp.MustCompile(`<a href="([^"]+)" rel="next">`).FindStringSubmatch(first)
	if next == nil || strings.Contains(first, `rel="prev"`) {
		t.Fatalf("first page without a next link, or with a previous one:\n%.2000s", first)
	}
	_, _, second := s.get(t, html.UnescapeString(next[1]))
	rows = regexp.MustCompile(`<td><a href="/ui/doc\?[^"]*">(n\d+\.md)</a>`).FindAllStringSubmatch(second, -1)
	if len(rows) != 3 || rows[0][1] != fmt.Sprintf("n%04d.md", maxDocRows) || !strings.Contains(second, fmt.Sprintf("%d to %d", maxDocRows+1, maxDocRows+3)) ||
		!strings.Contains(second, `rel="prev"`) || strings.Contains(second, `rel="next"`) {
		t.Fatalf("second page (%s): %d rows, want the last 3 and a previous link only:\n%.2000s", next[1], len(rows), second)
	}
	if code, _, body := s.get(t, "/ui/corpora?corpus=notes&from=-1"); code != 400 || !strings.Contains(body, "from") {
		t.Errorf("from=-1: status %d, want 400 naming from: %.500s", code, body)
	}
}
