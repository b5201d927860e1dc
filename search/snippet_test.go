package search

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// snippetSplit is Snippet in its first, plain form: split the lines, score
// each lowercased line, join the rest from the best one (the final cut,
// and the window moved to a late match, are shared). Snippet must return exactly what it
// returns.
func snippetSplit(text string, words []string) string {
	lines := strings.Split(strings.TrimRight(text, "\r\n"), "\n")
	best, bestN := 0, -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ll := strings.ToLower(l)
		n := 0
		for _, w := range words {
			if strings.Contains(ll, w) {
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	start := best
	if start > 0 && len(lines[start-1]) < 120 && strings.TrimSpace(lines[start-1]) != "" {
		start--
	}
	return clip(strings.TrimSpace(strings.ReplaceAll(strings.Join(lines[start:], "\n"), "\r", "")), words)
}

// TestSnippetMatchesSplit compares Snippet with snippetSplit on random
// texts: blank and whitespace lines, CRLF endings, lines around the
// 120-byte context limit, upper-case ASCII and non-ASCII letters (whose
// lower case has another length), and texts past SnippetChars.
func TestSnippetMatchesSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	vocab := []string{"Cache", "cache", "RETRY", "backoff", "İstanbul", "straße", "ÉTÉ", "the", "pool", "x", "  ", "\t", "ünïcode", "Größe", "KELVIN", "\u212a"}
	words := []string{"cache", "retry", "backo", "istanbul", "straße", "été", "pool", "kelvin"}
	for i := range 5000 {
		var b strings.Builder
		for range r.IntN(12) {
			switch r.IntN(6) {
			case 0: // blank or whitespace-only line
				b.WriteString([]string{"", " ", "\t", "\r"}[r.IntN(4)])
			case 1: // a long line
				for range 20 + r.IntN(15) {
					b.WriteString(vocab[r.IntN(len(vocab))] + " ")
				}
			default:
				for range 1 + r.IntN(8) {
					b.WriteString(vocab[r.IntN(len(vocab))] + " ")
				}
			}
			if r.IntN(4) == 0 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
		}
		if r.IntN(3) == 0 {
			b.WriteString("\n\r\n")
		}
		text := b.String()
		ws := words[:r.IntN(len(words)+1)]
		if got, want := Snippet(text, ws), snippetSplit(text, ws); got != want {
			t.Fatalf("case %d: Snippet(%q, %q)\n got %q\nwant %q", i, text, ws, got, want)
		}
	}
}

// BenchmarkSnippet times a snippet of a 1.5 KB chunk, the work every hit
// of a search does.
func BenchmarkSnippet(b *testing.B) {
	var sb strings.Builder
	for i := range 30 {
		sb.WriteString("The Retry policy uses exponential backoff with jitter; line ")
		sb.WriteString(strings.Repeat("x", i))
		sb.WriteString("\n")
	}
	text := sb.String()
	words := []string{"backo", "jitter", "retry"}
	b.ReportAllocs()
	for b.Loop() {
		Snippet(text, words)
	}
}

// TestSnippetShowsMatch: the snippet shows where the query matched: an
// inflected form the index's stemmer matches, and a match deep in a long
// line (issue 14 item 8: a hit showed only the heading above it).
func TestSnippetShowsMatch(t *testing.T) {
	long := "# Release notes\n\n" + strings.Repeat("Assorted words about nothing much in particular. ", 30) +
		"The canary deploy failed on Tuesday. " + strings.Repeat("More filler text follows here. ", 10) + "\n"
	filler := strings.Repeat("A line of other words that say nothing here.\n", 10)
	tests := []struct {
		text, query, want string
	}{
		{long, "canary", "The canary deploy failed"},
		{"# Rollback\n\n" + filler + "To undo it, run the rollback script.\n", "running", "run the rollback"},
		{"# Notes\n\n" + filler + "She studies the logs.\n", "study", "studies the logs"},
		{"# Setup\n\n" + filler + "Configuring the proxy takes a minute.\n", "configure", "Configuring the proxy"},
	}
	for _, tt := range tests {
		got := Snippet(tt.text, HighlightWords(tt.query))
		if !strings.Contains(got, tt.want) || len(got) > SnippetChars+len("… …") {
			t.Errorf("Snippet(%q) = %q, want it to show %q", tt.query, got, tt.want)
		}
	}
	if got := Snippet(long, HighlightWords("canary")); !strings.HasPrefix(got, "… ") {
		t.Errorf("a window moved into a line starts %q, want the \"… \" mark", got[:20])
	}
	if got := Snippet(long, HighlightWords("release")); !strings.HasPrefix(got, "# Release notes") {
		t.Errorf("an early match keeps the start: %q", got[:20])
	}
}
