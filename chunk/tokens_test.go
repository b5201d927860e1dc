package chunk

import (
	"strings"
	"testing"
)

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{" \t\r\n", 0},
		{"a", 1},
		{"the", 1},
		{"word", 1},
		{"words", 2},
		{"chunker", 2},
		{"internationalization", 5},
		{"the chunker", 3},
		{"a.b", 3},
		{"don't", 3},
		{"x = f(y);", 7},
		{"snake_case_name", 4},
		{"café", 1},
		{"naïve", 2},
		{"日本語", 3},
		{"日本語text", 4},
		{"🙂", 1},
		{"\xff\xfe", 2},
		{"ab\xffcd", 3},
		{"\xe6\x97", 2}, // truncated 3-byte sequence: 2 invalid bytes
		{"2024-05-01", 5},
		{"a\u00a0b", 2},  // no-break space separates
		{"e\u0301te", 1}, // combining mark stays in the word
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestEstimateTokensAdditive checks the property the packer relies on: the
// estimate of text joined at whitespace is the sum of the parts.
func TestEstimateTokensAdditive(t *testing.T) {
	parts := []string{"# Heading\n", "Some prose, with punctuation!\r\n", "日本語\n", "\xff\n", "```\ncode()\n```\n", "\n"}
	sum := 0
	for _, p := range parts {
		sum += EstimateTokens(p)
	}
	if got := EstimateTokens(strings.Join(parts, "")); got != sum {
		t.Fatalf("joined estimate %d, sum of parts %d", got, sum)
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		budget   int
		room     int    // bytes; 0: no byte limit
		wantN    string // the piece
		wantHard bool
	}{
		{"fits", "one two three", 10, 0, "one two three", false},
		{"sentence", "One two. Three four five six seven eight.", 5, 0, "One two. ", false},
		{"sentence too early, line", "A. bb cc dd ee\nff gg hh ii jj", 9, 0, "A. bb cc dd ee\n", false},
		{"whitespace", "aa bb cc dd ee ff", 4, 0, "aa bb cc dd ", false},
		{"early whitespace beats hard cut", "a " + strings.Repeat("x", 100), 10, 0, "a ", false},
		{"hard cut", strings.Repeat("x", 100), 3, 0, strings.Repeat("x", 12), true},
		{"hard cut at code point", strings.Repeat("é", 10), 1, 0, "éééé", true},
		{"hard cut before symbol", strings.Repeat("-", 10), 4, 0, "----", true},
		{"leading space kept with hard cut", "  " + strings.Repeat("x", 10), 1, 0, "  xxxx", true},
		// The byte room (ux U8: 872 KB of indentation in a 300-token piece).
		{"room: line end", "a\n" + strings.Repeat(" ", 30) + "b\ncccc", 300, 36, "a\n" + strings.Repeat(" ", 30) + "b\n", false},
		{"room: whitespace", "aaaa bbbb cccc dddd", 300, 12, "aaaa bbbb ", false},
		{"room: whitespace follows", "aaaa bbbb cccc", 300, 9, "aaaa bbbb", false},
		{"room: hard cut at code point", strings.Repeat("é", 10), 300, 5, "éé", true},
		{"room: tokens first", "aa bb cc dd ee ff", 2, 12, "aa bb ", false},
		{"room: nothing fits", "éé", 300, 1, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			room := tt.room
			if room == 0 {
				room = len(tt.in)
			}
			n, tokens, hard := cut(tt.in, tt.budget, room)
			if got := tt.in[:n]; got != tt.wantN || hard != tt.wantHard || n > room {
				t.Fatalf("cut(%q, %d, %d) = %q hard %t, want %q hard %t", tt.in, tt.budget, room, got, hard, tt.wantN, tt.wantHard)
			}
			if want := EstimateTokens(tt.in[:n]); tokens != want || tokens > tt.budget {
				t.Fatalf("cut tokens %d, want %d within budget %d", tokens, want, tt.budget)
			}
		})
	}
}
