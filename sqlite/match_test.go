package sqlite

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/search"
)

// TestCompile: each match compiles to the FTS5 expression and phrase
// weights in the table; words are only ever text inside one quoted
// string, whatever characters they hold.
func TestCompile(t *testing.T) {
	term, ph, pre, all, any := cairn.Term, cairn.Phrase, cairn.Prefix, cairn.AllOf, cairn.AnyOf
	tests := []struct {
		name string
		m    cairn.Match
		expr string
		idf  []float64
	}{
		{"term", term("walrus"), `"walrus"`, []float64{1}},
		{"weighted term", term("walrus").Weighted(2.5), `"walrus"`, []float64{2.5}},
		{"phrase of one word: no grams", ph("walrus"), `"walrus"`, []float64{1}},
		{"phrase: answered with grams", ph("of", "the", "server"), "\"\x1fof the server\"", []float64{1}},
		{"prefix", pre("migr"), `"migr"*`, []float64{1}},
		{"prefix of a phrase: no grams", pre("write", "ahead"), `"write ahead"*`, []float64{1}},
		{"all of: the rarest (highest weight) first", all(term("busy").Weighted(2), term("timeout").Weighted(3)), `"timeout" AND "busy"`, []float64{3, 2}},
		{"any of", any(term("busy"), term("timeout").Weighted(0.5)), `"busy" OR "timeout"`, []float64{1, 0.5}},
		{"one member", all(term("walrus")), `"walrus"`, []float64{1}},
		{"a group inside a group is parenthesized", all(any(term("parseconfig").Weighted(6), ph("parse", "config").Weighted(5)), term("x").Weighted(4)),
			"(\"parseconfig\" OR \"\x1fparse config\") AND \"x\"", []float64{6, 5, 4}},
		{"one group member that is a group", all(any(term("a"), term("b"))), `("a" OR "b")`, []float64{1, 1}},
		{"deeper", any(all(term("a"), any(term("b"), pre("c"))), term("d")), `("a" AND ("b" OR "c"*)) OR "d"`, []float64{1, 1, 1, 1}},
		{"quote in a word is doubled", term(`wal"rus`), `"wal""rus"`, []float64{1}},
		{"a lone quote", term(`"`), `""""`, []float64{1}},
		{"quotes around a word", ph(`"the`, `end"`), "\"\x1f\"\"the end\"\"\"", []float64{1}},
		{"quote before a prefix star", pre(`wal"`), `"wal"""*`, []float64{1}},
		{"operators and groups are text", term(`a) OR (b`), `"a) OR (b"`, []float64{1}},
		{"operator words are text", all(term("NOT"), term("NEAR"), term("AND")), `"NOT" AND "NEAR" AND "AND"`, []float64{1, 1, 1}},
		{"column filters, stars, carets are text", all(term("title:x"), term("x*"), term("^x"), term("+x"), term("-x")),
			`"title:x" AND "x*" AND "^x" AND "+x" AND "-x"`, []float64{1, 1, 1, 1, 1}},
		{"the gram marker in a word is a space", term("\x1fof\x1fthe"), `" of the"`, []float64{1}},
		{"the marker starts a phrase once", ph("\x1fof", "the"), "\"\x1f of the\"", []float64{1}},
		{"other control characters are spaces", term("a\x00b\tc\x7fd"), `"a b c d"`, []float64{1}},
		{"unicode stays", term("café ü 東京"), `"café ü 東京"`, []float64{1}},
		{"punctuation alone compiles (and matches nothing)", term("?"), `"?"`, []float64{1}},
	}
	for _, tt := range tests {
		got, err := compile(tt.m)
		if err != nil {
			t.Errorf("%s: compile(%s): %v", tt.name, tt.m, err)
			continue
		}
		if got.expr != tt.expr || !slices.Equal(got.idf, tt.idf) {
			t.Errorf("%s: compile(%s) = %q %v, want %q %v", tt.name, tt.m, got.expr, got.idf, tt.expr, tt.idf)
		}
	}
}

// TestCompileInvalid: a match FTS5 cannot be given is ErrInvalid, naming
// what is wrong.
func TestCompileInvalid(t *testing.T) {
	nan := 0.0
	nan /= nan
	tests := []struct {
		m    cairn.Match
		want string
	}{
		{cairn.AllOf(), "at least one member"},
		{cairn.AnyOf(), "at least one member"},
		{cairn.AnyOf(cairn.Term("a"), cairn.AllOf()), "at least one member"},
		{cairn.Phrase(), "needs words"},
		{cairn.Match{Op: cairn.MatchTerm}, "needs words"},
		{cairn.Term(""), "needs words"},
		{cairn.Phrase("a", ""), "needs words"},
		{cairn.Match{Op: cairn.MatchTerm, Words: []string{"a", "b"}}, "one word"},
		{cairn.Term("a").Weighted(nan), "finite"},
		{cairn.AllOf(cairn.Term("a")).Weighted(2), "no weight"},
		{cairn.Match{Op: 9, Of: []cairn.Match{cairn.Term("a")}}, "unknown match op"},
	}
	for _, tt := range tests {
		_, err := compile(tt.m)
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("compile(%s) = %v, want ErrInvalid saying %q", tt.m, err, tt.want)
		}
	}
}

// TestCompileParsedQueries: search's parsed terms compile to exactly the
// FTS5 expressions package search wrote itself before the query value
// (its old TestParse table), alone and joined as its all-words (AND) and
// any-words (OR) queries, with one weight per phrase in the order the
// phrases appear.
func TestCompileParsedQueries(t *testing.T) {
	tests := []struct {
		in    string
		exprs []string
	}{
		{"busy timeout", []string{`"busy"`, `"timeout"`}},
		{"the busy timeout of sqlite", []string{`"busy"`, `"timeout"`, `"sqlite"`}},
		{`"the busy timeout" wal`, []string{"\"\x1fthe busy timeout\"", `"wal"`}},
		{`"unterminated phrase`, []string{"\"\x1funterminated phrase\""}},
		{`migr* "write ahead"*`, []string{`"migr"*`, `"write ahead"*`}},
		{"parse_config_file", []string{"(\"parseconfigfile\" OR \"\x1fparse config file\")"}},
		{"parseConfigFile", []string{"(\"parseconfigfile\" OR \"\x1fparse config file\")"}},
		{"HTTPServer", []string{"(\"httpserver\" OR \"\x1fhttp server\")"}},
		{"loader.go", []string{"(\"loadergo\" OR \"\x1floader go\")"}},
		{"Café", []string{`"café"`}},
		{`say "hi" AND OR NOT`, []string{`"say"`, `"hi"`}},
		{`a"b`, []string{`"b"`}},
		{`parseConfig "of the" walrus*`, []string{"(\"parseconfig\" OR \"\x1fparse config\")", "\"\x1fof the\"", `"walrus"*`}},
	}
	for _, tt := range tests {
		q, err := search.Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		var terms []cairn.Match
		var weights []float64
		for i, term := range q.Terms {
			// As a member of a group: alone at the top, a group's
			// parentheses are left out.
			got, err := compile(cairn.AllOf(term.Expr()))
			if err != nil || got.expr != tt.exprs[i] {
				t.Errorf("%q term %d compiles to %q (%v), want %q", tt.in, i, got.expr, err, tt.exprs[i])
			}
			// Weigh each phrase apart, as search does with IDFs, rarest
			// first so the all-of group keeps the terms' order
			// (TestCompileAllRarestFirst checks the reordering).
			var ph []cairn.Match
			for _, p := range term.Phrases() {
				weights = append(weights, float64(100-len(weights)))
				ph = append(ph, p.Weighted(weights[len(weights)-1]))
			}
			if len(ph) == 1 {
				terms = append(terms, ph[0])
			} else {
				terms = append(terms, cairn.AnyOf(ph...))
			}
		}
		for _, g := range []struct {
			m  cairn.Match
			op string
		}{{cairn.AllOf(terms...), " AND "}, {cairn.AnyOf(terms...), " OR "}} {
			got, err := compile(g.m)
			if want := strings.Join(tt.exprs, g.op); err != nil || got.expr != want || !slices.Equal(got.idf, weights) {
				t.Errorf("%q joined by%s: %q %v (%v), want %q %v", tt.in, g.op, got.expr, got.idf, err, want, weights)
			}
		}
	}
}

// BenchmarkCompile: the cost compiling adds to a search, for a query of
// an identifier, a phrase and two words.
func BenchmarkCompile(b *testing.B) {
	m := cairn.AllOf(cairn.AnyOf(cairn.Term("parseconfigfile").Weighted(3), cairn.Phrase("parse", "config", "file").Weighted(4)),
		cairn.Phrase("of", "the", "server").Weighted(2), cairn.Term("busy").Weighted(1.5), cairn.Term("timeout").Weighted(2.5))
	for b.Loop() {
		if _, err := compile(m); err != nil {
			b.Fatal(err)
		}
	}
}
