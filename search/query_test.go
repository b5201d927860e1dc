package search

import (
	"errors"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	term, ph, anyOf := cairn.Term, cairn.Phrase, cairn.AnyOf
	tests := []struct {
		in      string
		exprs   []cairn.Match
		dropped []string
		err     string
	}{
		{in: "busy timeout", exprs: []cairn.Match{term("busy"), term("timeout")}},
		{in: "the busy timeout of sqlite", exprs: []cairn.Match{term("busy"), term("timeout"), term("sqlite")}, dropped: []string{"the", "of"}},
		{in: `"the busy timeout" wal`, exprs: []cairn.Match{ph("the", "busy", "timeout"), term("wal")}},
		{in: `"unterminated phrase`, exprs: []cairn.Match{ph("unterminated", "phrase")}},
		{in: `"one"`, exprs: []cairn.Match{term("one")}},
		{in: `migr* "write ahead"*`, exprs: []cairn.Match{cairn.Prefix("migr"), cairn.Prefix("write", "ahead")}},
		{in: "parse_config_file", exprs: []cairn.Match{anyOf(term("parseconfigfile"), ph("parse", "config", "file"))}},
		{in: "parseConfigFile", exprs: []cairn.Match{anyOf(term("parseconfigfile"), ph("parse", "config", "file"))}},
		{in: "HTTPServer", exprs: []cairn.Match{anyOf(term("httpserver"), ph("http", "server"))}},
		{in: "loader.go", exprs: []cairn.Match{anyOf(term("loadergo"), ph("loader", "go"))}},
		{in: "Café", exprs: []cairn.Match{term("café")}},
		{in: `say "hi" AND OR NOT`, exprs: []cairn.Match{term("say"), term("hi")}, dropped: []string{"and", "or", "not"}},
		{in: `a"b`, exprs: []cairn.Match{term("b")}, dropped: []string{"a"}},
		{in: "", err: "blank"},
		{in: "  \t ", err: "blank"},
		{in: "to be or not to be", err: "only common words"},
		{in: "?? -- ** //", err: "no words"},
		{in: `""`, err: "no words"},
	}
	for _, tt := range tests {
		q, err := Parse(tt.in)
		if tt.err != "" {
			if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) error = %v, want ErrInvalid containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		var got []cairn.Match
		for _, term := range q.Terms {
			got = append(got, term.Expr())
		}
		if diff := cmp.Diff(tt.exprs, got); diff != "" {
			t.Errorf("Parse(%q) exprs (-want +got):\n%s", tt.in, diff)
		}
		if strings.Join(q.Dropped, ",") != strings.Join(tt.dropped, ",") {
			t.Errorf("Parse(%q) dropped = %q, want %q", tt.in, q.Dropped, tt.dropped)
		}
	}
}

func TestIdentText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain words only", ""},
		{"call parseConfig now", "parse config"},
		{"parse_config_file reads", "parseconfigfile"},
		{"kebab-case-name", "kebabcasename"},
		{"see loader.go.", "loadergo"},
		{"my_parseConfig", "myparseconfig my parse config"},
		{"HTTPServer and XMLHttpRequest", "http server xml http request"},
		{"version 1.2.3 on 2024-05-01", ""},
		{"end of sentence. Next", ""},
	}
	for _, tt := range tests {
		if got := IdentText(tt.in); got != tt.want {
			t.Errorf("IdentText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ score, want float64 }{{0, 0}, {-1, 0}, {1, 0.5}, {3, 0.75}, {9, 0.9}}
	for _, tt := range tests {
		if got := Normalize(tt.score); got != tt.want {
			t.Errorf("Normalize(%v) = %v, want %v", tt.score, got, tt.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("word ", 200)
	tests := []struct {
		name, text string
		words      []string
		want       string
	}{
		{"best line with context", "# Title\nintro line\nthe walrus line\nafter\n", []string{"walrus"}, "intro line\nthe walrus line\nafter"},
		{"first line match", "walrus first\nsecond\n", []string{"walrus"}, "walrus first\nsecond"},
		{"no match falls back to start", "alpha\nbeta\n", []string{"zzz"}, "alpha\nbeta"},
		{"crlf removed", "a\r\nwalrus\r\n", []string{"walrus"}, "a\nwalrus"},
	}
	for _, tt := range tests {
		if got := Snippet(tt.text, tt.words); got != tt.want {
			t.Errorf("%s: Snippet = %q, want %q", tt.name, got, tt.want)
		}
	}
	got := Snippet(long, []string{"word"})
	if len(got) > SnippetChars+4 || !strings.HasSuffix(got, "…") {
		t.Errorf("long snippet: %d bytes, suffix %q", len(got), got[len(got)-5:])
	}
}

func BenchmarkIdentText(b *testing.B) {
	text := strings.Repeat("The function parse_config_file reads TOML via newHTTPServer and plain words here. ", 100)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		IdentText(text)
	}
}
