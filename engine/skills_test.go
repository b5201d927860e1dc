package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestSkillsCorpusNeverIndexed (C4): a skills corpus beside a files
// corpus is never synced, searched (not even by "all") or read by Get,
// though its SKILL.md is Markdown a files corpus would take.
func TestSkillsCorpusNeverIndexed(t *testing.T) {
	skills := t.TempDir()
	p := filepath.Join(skills, "deploy", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\nname: deploy\ndescription: zebracorn rollout\n---\nzebracorn steps\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, map[string]string{"a.md": "# Notes\n\nzebracorn sighting in the notes\n"}, Options{})
	f.eng.opts.Corpora = append(f.eng.opts.Corpora, cairn.Corpus{Name: "skills", Kind: cairn.KindSkills, Paths: []string{skills}, Glob: cairn.DefaultGlob})
	r := f.sync() // fails unless exactly one corpus synced
	if r.Name != "notes" {
		t.Fatalf("synced %q, want notes only", r.Name)
	}
	ctx := context.Background()
	for _, sel := range [][]string{nil, {"all"}} {
		hits, err := f.eng.Search(ctx, "zebracorn", &cairn.SearchOptions{Corpora: sel, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].Path != "cairn://notes/a.md" {
			t.Fatalf("search %v: %+v, want the note only", sel, hits)
		}
	}
	if _, err := f.eng.Search(ctx, "zebracorn", &cairn.SearchOptions{Corpora: []string{"skills"}}); !errors.Is(err, cairn.ErrInvalid) {
		t.Fatalf("search skills: %v, want ErrInvalid", err)
	}
	for _, path := range []string{"cairn://skills/deploy/SKILL.md", p} {
		res, err := f.eng.Get(ctx, path, nil)
		if err != nil || res.Status != cairn.StatusNotFound {
			t.Fatalf("get %s: %+v, %v; want not_found", path, res, err)
		}
	}
}
