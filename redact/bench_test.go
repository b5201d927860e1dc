package redact

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ordinaryText is about n bytes of the clean corpus: code, config, prose
// and logs without secrets.
func ordinaryText(tb testing.TB, n int) string {
	files, _ := filepath.Glob("testdata/clean/*.txt")
	var b strings.Builder
	for b.Len() < n {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			b.Write(data)
		}
	}
	return b.String()[:n]
}

// denseText is about n bytes of lines that each hold a secret.
func denseText(n int) string {
	var b strings.Builder
	for b.Len() < n {
		for _, c := range secretCases() {
			b.WriteString(c.in())
			b.WriteString("\n")
		}
	}
	return b.String()[:n]
}

// repeatText is about n bytes of the clean corpus with, every 4 KiB, a
// password given in prose and a bare repeat of the one before: a distinct
// value per 4 KiB for the repeat pass to look for.
func repeatText(tb testing.TB, n int) string {
	clean := ordinaryText(tb, n)
	var b strings.Builder
	for k := 0; k*4096 < len(clean); k++ {
		b.WriteString(clean[k*4096 : min(len(clean), (k+1)*4096)])
		fmt.Fprintf(&b, "\nthe password is Qz7k9x%d\nas said, Qz7k9x%d stays secret\n", k, max(0, k-1))
	}
	return b.String()
}

// BenchmarkRedact measures a file path, a 2 KB note and 1 MB texts; CAIRN_REDACT_BENCH_MB=N adds
// N MB ones (ordinary and with repeats), to see that the cost stays linear.
func BenchmarkRedact(b *testing.B) {
	type text struct {
		name string
		text string
	}
	texts := []text{
		{"path", "projects/2024/meetings/2024-05-01-weekly-sync-notes.md"}, // a scan redacts each new file's path
		{"ordinary-2KB", ordinaryText(b, 2<<10)},                           // a short note
		{"ordinary-1MB", ordinaryText(b, 1<<20)},
		{"dense-1MB", denseText(1 << 20)},
		{"repeats-1MB", repeatText(b, 1<<20)},
		// Lines with a zero-width space inside a word, then no-break spaces:
		// joinHidden's search for the next such line used to rescan to the
		// end of the text each time (lines x length).
		{"hidden-lines-760KB", strings.Repeat("token ab\u200bcd and more words here\n", 20000) + strings.Repeat("a\u00a0b ", 20000)},
	}
	if mb, _ := strconv.Atoi(os.Getenv("CAIRN_REDACT_BENCH_MB")); mb > 0 {
		texts = append(texts,
			text{fmt.Sprintf("ordinary-%dMB", mb), ordinaryText(b, mb<<20)},
			text{fmt.Sprintf("repeats-%dMB", mb), repeatText(b, mb<<20)})
	}
	for _, bc := range texts {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				Redact(bc.text)
			}
		})
	}
}
