package engine

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
)

// sliceLinesByShrinking is sliceLines as it was before it counted each
// line once: take every wanted line, then drop the last while the range
// is over MaxGetChars. The reference the linear walk must agree with.
func sliceLinesByShrinking(text string, from, n int) *cairn.GetResult {
	starts := lineStarts(text)
	total := len(starts)
	res := &cairn.GetResult{Status: cairn.StatusOK, From: from}
	if from > total {
		return res
	}
	last := min(from+n-1, total)
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

// TestSliceLinesAgreesWithShrinking: the same text, lines, truncation and
// next line as the old shrinking loop, over lines of every size around
// MaxGetChars (multi-byte runes included, so bytes and runes differ),
// ranges that start anywhere and ask for 1 to all lines.
func TestSliceLinesAgreesWithShrinking(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 5))
	pieces := []string{"a", "é", "漢", "\U0001F600"}
	sizes := []int{0, 1, 7, 100, 2999, 3000, 3001, cairn.MaxGetChars / 2, cairn.MaxGetChars - 1, cairn.MaxGetChars, cairn.MaxGetChars + 1, 2 * cairn.MaxGetChars}
	for doc := range 60 {
		lines := make([]string, 1+r.IntN(16))
		for i := range lines {
			lines[i] = strings.Repeat(pieces[r.IntN(len(pieces))], sizes[r.IntN(len(sizes))])
		}
		text := strings.Join(lines, "\n")
		if r.IntN(2) == 0 {
			text += "\n"
		}
		for range 10 {
			from, n := 1+r.IntN(len(lines)+1), 1+r.IntN(len(lines)+1)
			got, want := sliceLines(text, from, n), sliceLinesByShrinking(text, from, n)
			if got.Text != want.Text || got.Lines != want.Lines || got.Truncated != want.Truncated || got.NextFrom != want.NextFrom || got.From != want.From {
				t.Fatalf("doc %d, from %d, n %d: got lines %d truncated %v next %d (%d bytes), want lines %d truncated %v next %d (%d bytes)",
					doc, from, n, got.Lines, got.Truncated, got.NextFrom, len(got.Text), want.Lines, want.Truncated, want.NextFrom, len(want.Text))
			}
		}
	}
}
