package cairn_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestSearchOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		o       cairn.SearchOptions
		wantErr string // "" valid; else a substring naming the field
	}{
		{cairn.SearchOptions{Limit: 1}, ""},
		{cairn.SearchOptions{Limit: cairn.MaxSearchLimit, MinScore: 1, Mode: cairn.ModeVector}, ""},
		{cairn.SearchOptions{Limit: 10, Mode: cairn.ModeHybrid}, ""},
		{cairn.SearchOptions{Limit: 10, Mode: cairn.ModeLexical}, ""},
		{cairn.SearchOptions{Limit: 0}, "limit 0 out of range: allowed 1 to 100"},
		// Up to MaxRecallLimit validates: engine.Search holds a search
		// that takes in other corpora than memories to MaxSearchLimit
		// (engine TestRecallBadFilters).
		{cairn.SearchOptions{Limit: cairn.MaxSearchLimit + 1}, ""},
		{cairn.SearchOptions{Limit: cairn.MaxRecallLimit}, ""},
		{cairn.SearchOptions{Limit: cairn.MaxRecallLimit + 1}, "limit 201 out of range: allowed 1 to 100 (200 when only the memories corpus is searched)"},
		{cairn.SearchOptions{Limit: 5, MinScore: -0.1}, "min-score -0.1 out of range: allowed 0 to 1"},
		{cairn.SearchOptions{Limit: 5, MinScore: 1.5}, "min-score 1.5"},
		{cairn.SearchOptions{Limit: 5, Mode: "semantic"}, `mode "semantic": allowed hybrid, lexical or vector`},
	} {
		err := tc.o.Validate()
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%+v: %v", tc.o, err)
		case tc.wantErr != "" && (!errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%+v: err = %v, want ErrInvalid containing %q", tc.o, err, tc.wantErr)
		}
	}
	var o cairn.SearchOptions
	o.SetDefaults()
	if o.Limit != cairn.DefaultSearchLimit || o.Validate() != nil {
		t.Errorf("defaults %+v do not validate", o)
	}
	o = cairn.SearchOptions{Limit: 7}
	o.SetDefaults()
	if o.Limit != 7 {
		t.Errorf("SetDefaults changed a set limit to %d", o.Limit)
	}
}

func TestGetOptionsValidate(t *testing.T) {
	var o cairn.GetOptions
	o.SetDefaults()
	if o.From != 1 || o.Lines != cairn.DefaultGetLines || o.Validate() != nil {
		t.Errorf("defaults %+v", o)
	}
	for _, tc := range []struct {
		o       cairn.GetOptions
		wantErr string
	}{
		{cairn.GetOptions{From: 1, Lines: cairn.MaxGetLines}, ""},
		{cairn.GetOptions{From: -3, Lines: 10}, "from -3 out of range: must be at least 1"},
		{cairn.GetOptions{From: 1, Lines: cairn.MaxGetLines + 1}, "lines 1001 out of range: allowed 1 to 1000"},
		{cairn.GetOptions{From: 1, Lines: -1}, "lines -1"},
	} {
		err := tc.o.Validate()
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%+v: %v", tc.o, err)
			}
		} else if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%+v: err = %v, want %q", tc.o, err, tc.wantErr)
		}
	}
}

// TestHitJSON: the JSON names of a hit are fixed (scripts read them); a
// session hit's snippet is its message array, a file hit's a string, and
// the lanes' internals never leak into the JSON.
func TestHitJSON(t *testing.T) {
	score := 0.5
	for _, tc := range []struct {
		name string
		hit  cairn.Hit
		want string
	}{
		{"file hit", cairn.Hit{Path: "cairn://notes/a.md", StartLine: 3, EndLine: 9, Snippet: "text", Corpus: "notes", Score: 0.75,
			TextScore: &score, VectorScore: &score, Signals: &cairn.HitSignals{BM25: 2}},
			`{"path":"cairn://notes/a.md","startLine":3,"endLine":9,"snippet":"text","corpus":"notes","score":0.75}`},
		{"explained", cairn.Hit{Path: "cairn://notes/a.md", StartLine: 1, EndLine: 1, Corpus: "notes", Score: 0.4, Explain: []string{"bm25(1.0)"}},
			`{"path":"cairn://notes/a.md","startLine":1,"endLine":1,"snippet":"","corpus":"notes","score":0.4,"explain":["bm25(1.0)"]}`},
		{"session hit", cairn.Hit{Path: "cairn://s/x.md", StartLine: 2, EndLine: 4, Snippet: "ignored", Corpus: "s", Score: 0.9,
			MessageTimestamp: "2026-01-02T03:04:05Z", Messages: []cairn.SnippetMessage{}},
			`{"path":"cairn://s/x.md","startLine":2,"endLine":4,"corpus":"s","score":0.9,"messageTimestamp":"2026-01-02T03:04:05Z","snippet":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.hit)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
}
