package chunk

import (
	"strings"
	"testing"
	"time"
)

func TestAdversarialTiming(t *testing.T) {
	n := 200 << 10
	cases := map[string]string{
		"letters":   strings.Repeat("a", n),
		"spaces":    strings.Repeat(" ", n),
		"dashes":    strings.Repeat("-", n),
		"words-nl":  strings.Repeat("ab\n", n/3),
		"pipes":     strings.Repeat("|", n),
		"dashlines": strings.Repeat("-\n", n/2),
		"words":     strings.Repeat("ab ", n/3),
		"sentences": strings.Repeat("a. ", n/3),
		"newlines":  strings.Repeat("\n", n),
		"fences":    strings.Repeat("```\n", n/4),
		"listlines": strings.Repeat("- a\n", n/4),
		"hashes":    strings.Repeat("# a\n", n/4),
		"cjk":       strings.Repeat("日", n/3),
		"invalid":   strings.Repeat("\xff", n),
		"tablerows": strings.Repeat("a|b\n", n/4),
		"indented":  "- a\n" + strings.Repeat("  b\n", n/4),
	}
	for name, text := range cases {
		for _, c := range sizes {
			start := time.Now()
			ch := c.Chunk(text)
			if d := time.Since(start); d > 200*time.Millisecond {
				t.Errorf("%s %v: %v (%d chunks)", name, c, d, len(ch))
			}
		}
	}
}
