package search

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStemRoot(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"running", "run"}, {"runs", "run"}, {"run", "run"},
		{"studies", "stud"}, {"study", "stud"}, {"studied", "stud"},
		{"configure", "configur"}, {"configured", "configur"}, {"configuring", "configur"},
		{"stopped", "stop"}, {"stopping", "stop"},
		{"quickly", "quick"}, {"exceedingly", "exceed"},
		{"is", "is"}, {"gas", "gas"}, // roots keep three letters
		{"add", "add"},    // a doubled d under four letters stays
		{"class", "clas"}, // a plain final s goes too: still a prefix
	} {
		if got := stemRoot(tc.in); got != tc.want {
			t.Errorf("stemRoot(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// The root must be a prefix of the word it came from, or Snippet
		// would not find the line of a match.
		if got := stemRoot(tc.in); !strings.HasPrefix(tc.in, got) {
			t.Errorf("stemRoot(%q) = %q is not a prefix", tc.in, got)
		}
	}
}

func TestHighlightWords(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want []string
	}{
		{"running tests", []string{"run", "test"}},
		{"parseConfigFile", []string{"parseconfigfil", "pars", "config", "fil"}},
		{`"exact phrase"`, []string{"exact", "phras"}}, // once each, not again as parts
		{"", nil},
	} {
		got := HighlightWords(tc.raw)
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("HighlightWords(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// TestSnippetClip: a snippet is at most SnippetChars bytes (plus the cut
// marks), valid UTF-8, and shows the match even when it lies deep in one
// long line.
func TestSnippetClip(t *testing.T) {
	long := strings.Repeat("filler words without the term ", 40) + "the needle is here " + strings.Repeat("tail text ", 40)
	for _, tc := range []struct {
		name, text string
		words      []string
		has        string // the snippet must contain it
		prefix     string // and start with it
	}{
		{"blank line before the best line gives no context", "# Title\n\nshort body", []string{"body"}, "short body", "short body"},
		{"short line before gives context", "# Title\nshort body", []string{"body"}, "short body", "# Title"},
		{"best line wins", "intro line one\nunrelated\nalpha beta gamma\nalpha only", []string{"alpha", "beta", "gamma"}, "alpha beta gamma", "unrelated"},
		{"match deep in one line", long, []string{"needl"}, "needle", "… "},
		{"multibyte text", strings.Repeat("日本語のテキスト ", 60) + "needle", []string{"needl"}, "", ""},
		{"crlf stripped", "first\r\nsecond needle\r\n", []string{"needl"}, "second needle", "first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Snippet(tc.text, tc.words)
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8: %q", s)
			}
			body := strings.TrimSuffix(strings.TrimPrefix(s, "… "), " …")
			if len(body) > SnippetChars {
				t.Errorf("snippet is %d bytes, over %d", len(body), SnippetChars)
			}
			if strings.Contains(s, "\r") {
				t.Errorf("snippet keeps a carriage return: %q", s)
			}
			if !strings.Contains(s, tc.has) || !strings.HasPrefix(s, tc.prefix) {
				t.Errorf("snippet %q: want it to start with %q and hold %q", s, tc.prefix, tc.has)
			}
		})
	}
}

func TestCutSnippet(t *testing.T) {
	s := strings.Repeat("word ", 100)
	got := cutSnippet(s)
	if !strings.HasSuffix(got, " …") || len(got) > SnippetChars+len(" …") || strings.HasSuffix(strings.TrimSuffix(got, " …"), "wor") {
		t.Errorf("cutSnippet cut mid-word or over the cap: %q (%d bytes)", got[len(got)-20:], len(got))
	}
	if cutSnippet("short") != "short" {
		t.Error("a short snippet is returned as is")
	}
}
