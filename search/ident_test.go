package search

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// identTextRef is IdentText before its byte-table scan: every rune
// decoded, every word asked hasHump.
func identTextRef(body string) string {
	var b strings.Builder
	for i := 0; i < len(body); {
		r, n := decodeRune(body, i)
		if !isWordRune(r) {
			i += n
			continue
		}
		j, seps := i, false
		for j < len(body) {
			r, n := decodeRune(body, j)
			if isWordRune(r) {
				j += n
				continue
			}
			if (r == '_' || r == '-' || r == '.') && j+n < len(body) && startsWord(body[j+n:]) {
				j += n
				seps = true
				continue
			}
			break
		}
		tok := body[i:j]
		i = j
		hump := hasHump(tok)
		if !seps && !hump {
			continue
		}
		if !strings.ContainsFunc(tok, unicode.IsLetter) {
			continue
		}
		parts := camelParts(tok)
		if len(parts) < 2 || len(parts) > 12 {
			continue
		}
		if seps {
			for _, p := range parts {
				b.WriteString(p)
			}
			b.WriteByte(' ')
		}
		if hump {
			b.WriteString(strings.Join(parts, " "))
			b.WriteByte(' ')
		}
	}
	return strings.TrimSpace(b.String())
}

// IdentText's fast scan gives what the rune-by-rune scan gave, on text
// made of words in every case, separators, digits, accents, other
// scripts, combining marks and invalid UTF-8.
func TestIdentTextMatchesRuneScan(t *testing.T) {
	pieces := []string{"parse", "Config", "HTTP", "Server", "x", "X", "2", "v1", "_", "-", ".", " ", "\n", "(", "é", "É", "Ünïcode",
		"naïve", "日本", "Straße", "e\u0301", "\xff", "\xc3", "getHTTPResponse", "snake_case", "kebab-case", "a.b.c", "ABCDef", "iOS", "__init__"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 8000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		in := b.String()
		if got, want := IdentText(in), identTextRef(in); got != want {
			t.Fatalf("IdentText(%q) = %q, want %q", in, got, want)
		}
	}
}
