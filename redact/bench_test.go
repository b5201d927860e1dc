package redact

import (
	"os"
	"path/filepath"
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

func BenchmarkRedact(b *testing.B) {
	for _, bc := range []struct {
		name string
		text string
	}{
		{"ordinary-1MB", ordinaryText(b, 1<<20)},
		{"dense-1MB", denseText(1 << 20)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				Redact(bc.text)
			}
		})
	}
}
