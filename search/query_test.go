package search

import (
	"errors"
	"fmt"
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
		// A colon or another join IdentText does not index as one word: the
		// phrase alone, as quoted (review finding F19).
		{in: "timeout:5000", exprs: []cairn.Match{ph("timeout", "5000")}},
		{in: `"timeout:5000"`, exprs: []cairn.Match{ph("timeout", "5000")}},
		{in: "retries: 3 key=value src/main.go a::b", exprs: []cairn.Match{term("retries"), term("3"), ph("key", "value"), ph("src", "main", "go"), ph("a", "b")}},
		{in: "(parse_config),", exprs: []cairn.Match{anyOf(term("parseconfig"), ph("parse", "config"))}},
		{in: "parse__config", exprs: []cairn.Match{ph("parse", "config")}},
		// An apostrophe is not such a join: a possessive keeps both forms.
		{in: "Caroline's", exprs: []cairn.Match{anyOf(term("carolines"), ph("caroline", "s"))}},
		{in: `say "hi" AND OR NOT`, exprs: []cairn.Match{term("say"), term("hi")}, dropped: []string{"and", "or", "not"}},
		{in: `a"b`, exprs: []cairn.Match{term("b")}, dropped: []string{"a"}},
		{in: "walrus Walrus WALRUS tusk walrus", exprs: []cairn.Match{term("walrus"), term("tusk")}},
		{in: `parseConfig parseconfig parse_config "parse config"`, exprs: []cairn.Match{
			anyOf(term("parseconfig"), ph("parse", "config")), term("parseconfig"), ph("parse", "config")}},
		{in: `migr* migr "migr"*`, exprs: []cairn.Match{cairn.Prefix("migr"), term("migr")}},
		{in: "the walrus and the tusk and the ice", exprs: []cairn.Match{term("walrus"), term("tusk"), term("ice")}, dropped: []string{"the", "and"}},
		{in: "", err: "blank"},
		{in: "  \t ", err: "blank"},
		{in: "to be or not to be", err: "only common words (to, be, or, not)"},
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

// TestParseLimits: a query over MaxQueryBytes or MaxQueryTerms distinct
// terms is an ErrInvalid error naming the limit, however it is made (a
// generated query of 50,000 terms, 129 distinct identifiers); a query at
// the limits parses whole, and repeats count once. CheckQuery gives the
// same errors and nothing for a query that is merely unsearchable.
func TestParseLimits(t *testing.T) {
	many := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i) + " ")
		}
		return b.String()
	}
	word := func(i int) string { return fmt.Sprintf("w%d", i) }
	ident := func(i int) string { return fmt.Sprintf("parseConfig%d", i) }
	tests := []struct {
		name  string
		in    string
		terms int    // on success
		err   string // else
	}{
		{"50,000 terms", many(50000, word), 0, "allowed up to 32768"},
		{"bytes at the limit", strings.Repeat("walrus ", MaxQueryBytes/7) + strings.Repeat("x", MaxQueryBytes%7), 2, ""}, // walrus, x,
		{"one byte over", strings.Repeat("a", MaxQueryBytes+1), 0, fmt.Sprintf("query is %d bytes: allowed up to %d", MaxQueryBytes+1, MaxQueryBytes)},
		{"distinct terms at the limit", many(MaxQueryTerms, ident), MaxQueryTerms, ""},
		{"one distinct term over", many(MaxQueryTerms+1, ident), 0, "query has 129 distinct terms: allowed up to 128"},
		{"16,000 terms of nine words", many(16000, func(i int) string { return string("bcdefghjk"[i%9]) }), 9, ""},
		{"repeats count once", many(MaxQueryTerms, word) + many(MaxQueryTerms, word), MaxQueryTerms, ""},
		{"stop words do not count", many(MaxQueryTerms, word) + strings.Repeat("the of and ", 500), MaxQueryTerms, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := Parse(tt.in)
			cerr := CheckQuery(tt.in)
			if tt.err != "" {
				for _, e := range []error{err, cerr} {
					if !errors.Is(e, cairn.ErrInvalid) || !strings.Contains(e.Error(), tt.err) {
						t.Fatalf("Parse, CheckQuery: %v, %v; want ErrInvalid naming %q", err, cerr, tt.err)
					}
				}
				return
			}
			if err != nil || cerr != nil || len(q.Terms) != tt.terms {
				t.Fatalf("Parse: %d terms, %v (CheckQuery %v); want %d terms", len(q.Terms), err, cerr, tt.terms)
			}
		})
	}
	for _, in := range []string{"?? --", "to be or not to be"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) found terms", in)
		}
		if err := CheckQuery(in); err != nil {
			t.Errorf("CheckQuery(%q) = %v, want nil: only the limits are its errors", in, err)
		}
	}
}
