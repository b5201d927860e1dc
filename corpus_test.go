package cairn_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestSelectCorpora: the selection rules every surface (CLI --corpus, MCP
// corpora, HTTP corpora) relies on.
func TestSelectCorpora(t *testing.T) {
	configured := []cairn.Corpus{
		{Name: "notes", Kind: cairn.KindFiles},
		{Name: "skills", Kind: cairn.KindSkills},
		{Name: "Sessions", Kind: cairn.KindSessions},
		{Name: "docs", Kind: cairn.KindFiles},
	}
	for _, tc := range []struct {
		name    string
		names   []string
		want    []string // corpus names in configuration order
		wantErr string   // substring of the ErrInvalid message
	}{
		{name: "nil selects all but skills", names: nil, want: []string{"notes", "Sessions", "docs"}},
		{name: "empty selects all", names: []string{}, want: []string{"notes", "Sessions", "docs"}},
		{name: "all", names: []string{"all"}, want: []string{"notes", "Sessions", "docs"}},
		{name: "configuration order, not request order", names: []string{"docs", "notes"}, want: []string{"notes", "docs"}},
		{name: "case-insensitive", names: []string{"sessions", "NOTES"}, want: []string{"notes", "Sessions"}},
		{name: "repeats count once", names: []string{"docs", "docs", "DOCS"}, want: []string{"docs"}},
		{name: "unknown lists known", names: []string{"nope"}, wantErr: "unknown corpus: nope (known: notes, Sessions, docs)"},
		{name: "skills are not searchable corpora", names: []string{"skills"}, wantErr: "unknown corpus: skills"},
		{name: "all mixed with names", names: []string{"all", "docs"}, wantErr: `"all" cannot be combined`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cairn.SelectCorpora(configured, tc.names)
			if tc.wantErr != "" {
				if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want ErrInvalid containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range got {
				names = append(names, c.Name)
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("got %v, want %v", names, tc.want)
			}
		})
	}
	_, err := cairn.SelectCorpora([]cairn.Corpus{{Name: "s", Kind: cairn.KindSkills}}, nil)
	if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "cairn corpus add") {
		t.Errorf("no searchable corpus: err = %v, want a hint naming cairn corpus add", err)
	}
}
