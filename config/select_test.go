package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairnmemory/cairn"
)

func TestSelect(t *testing.T) {
	cfg := &Config{Corpora: []Corpus{
		{Name: "notes", Kind: "files", Paths: []string{"/n"}},
		{Name: "Work", Kind: "files", Paths: []string{"/w"}, Glob: "**/*.txt"},
		{Name: "docs", Kind: "files", Paths: []string{"/d"}, Exclude: []string{"x/**"}},
	}}
	all := []string{"notes", "Work", "docs"}
	tests := []struct {
		name    string
		in      []string
		want    []string // corpus names, in order
		wantErr string
	}{
		{"nil means all", nil, all, ""},
		{"empty means all", []string{}, all, ""},
		{"all", []string{"all"}, all, ""},
		{"one", []string{"docs"}, []string{"docs"}, ""},
		{"configuration order", []string{"docs", "notes"}, []string{"notes", "docs"}, ""},
		{"ignores case", []string{"work"}, []string{"Work"}, ""},
		{"duplicates once", []string{"docs", "docs", "DOCS"}, []string{"docs"}, ""},
		{"unknown", []string{"notes", "nope"}, nil, "unknown corpus: nope (known: notes, Work, docs)"},
		{"all mixed with names", []string{"all", "notes"}, nil, "unknown corpus: all"},
		{"names then all", []string{"notes", "all"}, nil, "unknown corpus: all"},
		{"all twice", []string{"all", "all"}, nil, "unknown corpus: all"},
		{"reserved name", []string{"memories"}, nil, "unknown corpus: memories"},
		{"blank", []string{""}, nil, "unknown corpus:  (known"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cfg.Select(tt.in)
			if tt.wantErr != "" {
				if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Select(%q) error = %v; want ErrInvalid containing %q", tt.in, err, tt.wantErr)
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
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Fatalf("Select(%q) names (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestSelectFillsDefaults(t *testing.T) {
	cfg := &Config{Corpora: []Corpus{{Name: "notes", Kind: "files", Paths: []string{"/n"}, Line: 3}}}
	got, err := cfg.Select([]string{"notes"})
	if err != nil {
		t.Fatal(err)
	}
	want := []cairn.Corpus{{Name: "notes", Kind: "files", Paths: []string{"/n"}, Glob: cairn.DefaultGlob}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Select (-want +got):\n%s", diff)
	}
	got[0].Paths[0] = "changed"
	if cfg.Corpora[0].Paths[0] != "/n" {
		t.Fatal("Select shares Paths with the Config")
	}
}

func TestSelectNoCorpora(t *testing.T) {
	for _, in := range [][]string{nil, {"all"}, {"notes"}} {
		_, err := (&Config{}).Select(in)
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "add one with: cairn corpus add NAME PATH") {
			t.Fatalf("Select(%q) on empty config: %v", in, err)
		}
	}
}
