package redact

import (
	"strings"
	"testing"
)

// Tokens with an invisible character inside (ux U1, session 12-04c). The
// secrets are built from fixed fragments.

const (
	zwsp = "\u200b"
	shy  = "\u00ad"
	bom  = "\ufeff"
)

func hiddenCases() []secretCase {
	gh := "ghp_" + r("A1b2", 9)
	return []secretCase{
		{"github-token", "token ", gh[:12] + zwsp + gh[12:], ", keep it safe"},
		{"github-token", "token ", gh[:12] + shy + gh[12:], ""},
		{"github-token", "use ", gh[:5] + "\u200c\u200d" + gh[5:], " for CI\n"},
		{"github-token", "", gh[:30] + "\u2060" + gh[30:], " is mine"},
		{"gitlab-token", "gitlab ", "glpat-Zx" + bom + r("9_Ab", 5), ""},
		{"slack-token", "bot token ", "xoxb-" + "1234567890-1234567890123-" + "\u200e" + r("Ab1c", 6), ""},
	}
}

// hiddenKeeps are texts whose invisible characters stay.
var hiddenKeeps = []string{
	"Pass" + shy + "wort" + shy + "ände" + shy + "rung",
	"family \U0001F468\u200d\U0001F469\u200d\U0001F467 emoji",
	"foo" + zwsp + "bar and baz" + zwsp + "qux",
	bom + "# A note that starts with a byte-order mark",
}

// TestRedactHidden: a token with an invisible character inside is
// replaced whole, invisible character included, once and for good; texts
// whose invisible characters hide no secret are kept byte for byte.
func TestRedactHidden(t *testing.T) {
	for _, c := range hiddenCases() {
		got, counts := Redact(c.in())
		if got != c.want() {
			t.Errorf("%s: Redact(%q)\n got %q\nwant %q", c.kind, c.in(), got, c.want())
			continue
		}
		if counts[c.kind] != 1 || len(counts) != 1 {
			t.Errorf("%s: counts = %v, want {%s:1}", c.kind, counts, c.kind)
		}
		if again, counts := Redact(got); again != got || counts != nil {
			t.Errorf("not idempotent on %q: %q (%v)", got, again, counts)
		}
	}
	for _, s := range hiddenKeeps {
		if got, counts := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q (%v), want it unchanged", s, got, counts)
		}
	}
}

// TestHiddenKeepsOthers: where the rules find a token anyway, a line's
// other invisible characters are not dropped.
func TestHiddenKeepsOthers(t *testing.T) {
	gh := "ghp_" + r("A1b2", 9)
	in := "see" + zwsp + "more " + gh
	want := "see" + zwsp + "more " + Placeholder("github-token")
	if got, _ := Redact(in); got != want {
		t.Errorf("Redact(%q) = %q, want %q", in, got, want)
	}
	// With a hidden token on the line, the line is joined.
	in = "see" + zwsp + "more " + gh[:9] + zwsp + gh[9:]
	want = "seemore " + Placeholder("github-token")
	if got, _ := Redact(in); got != want {
		t.Errorf("Redact(%q) = %q, want %q", in, got, want)
	}
	// Other lines keep theirs.
	in = "a" + zwsp + "b\n" + gh[:9] + zwsp + gh[9:] + "\nc" + shy + "d"
	want = "a" + zwsp + "b\n" + Placeholder("github-token") + "\nc" + shy + "d"
	if got, _ := Redact(in); got != want {
		t.Errorf("Redact(%q) = %q, want %q", in, got, want)
	}
}

// FuzzHiddenToken: a token with an invisible character at any place, on a
// line of its own among any text, is redacted, and Redact stays
// idempotent.
func FuzzHiddenToken(f *testing.F) {
	f.Add("a"+zwsp+"b", "c", uint8(7), uint8(0))
	f.Add("password: x", shy+"y", uint8(30), uint8(3))
	planted := "ghp_" + r("P9q8", 9)
	hidden := []string{zwsp, shy, bom, "\u200c", "\u200d", "\u2060", "\u200e" + zwsp}
	f.Fuzz(func(t *testing.T, a, b string, at, which uint8) {
		k := 1 + int(at)%(len(planted)-1)
		in := a + "\n" + planted[:k] + hidden[int(which)%len(hidden)] + planted[k:] + "\n" + b
		once, _ := Redact(in)
		if strings.Contains(dropInnerHidden(once), planted) {
			t.Fatalf("planted token survived: %q", once)
		}
		if twice, _ := Redact(once); twice != once {
			t.Fatalf("not idempotent:\n once %q\ntwice %q", once, twice)
		}
	})
}
