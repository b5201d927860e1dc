package ingest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestScanDefaultExcludes: dependency and tool folders are skipped at any
// depth unless the corpus names them in its glob or turns the defaults off
// (issue 14 item 15); ".git" is skipped always.
func TestScanDefaultExcludes(t *testing.T) {
	dir := t.TempDir()
	mkfiles(t, dir,
		"notes/a.md", "notes/node_modules/pkg/README.md", "notes/web/node_modules/x/README.md",
		"notes/.venv/lib/site/README.md", "notes/venv/README.md", "notes/__pycache__/x.md",
		"notes/.tox/y.md", "notes/.hg/h.md", "notes/.svn/s.md", "notes/.git/g.md",
		"notes/vendor/contract.md", "notes/build/plan.md", "notes/node_modules.md", "notes/.loggie/raw/r.md",
	)
	root := filepath.Join(dir, "notes")
	tests := []struct {
		name   string
		corpus cairn.Corpus
		want   []string
	}{
		{"defaults", cairn.Corpus{Paths: []string{root}},
			[]string{"a.md", "build/plan.md", "node_modules.md", "vendor/contract.md"}},
		{"glob names node_modules", cairn.Corpus{Paths: []string{root}, Glob: "**/node_modules/**/*.md"},
			[]string{"node_modules/pkg/README.md", "web/node_modules/x/README.md"}},
		{"path glob names .venv", cairn.Corpus{Paths: []string{filepath.Join(root, ".venv", "**", "*.md")}},
			[]string{"lib/site/README.md"}},
		{"defaultExcludes = false", cairn.Corpus{Paths: []string{root}, NoDefaultExcludes: true},
			[]string{".hg/h.md", ".loggie/raw/r.md", ".svn/s.md", ".tox/y.md", ".venv/lib/site/README.md", "__pycache__/x.md", "a.md", "build/plan.md",
				"node_modules.md", "node_modules/pkg/README.md", "vendor/contract.md", "venv/README.md", "web/node_modules/x/README.md"}},
	}
	for _, tt := range tests {
		tt.corpus.Name, tt.corpus.Kind = "notes", cairn.KindFiles
		files, failures, err := Scan(context.Background(), tt.corpus)
		if err != nil || len(failures) > 0 {
			t.Fatalf("%s: Scan: %v %v", tt.name, failures, err)
		}
		if diff := cmp.Diff(tt.want, rels(files)); diff != "" {
			t.Errorf("%s: files (-want +got):\n%s", tt.name, diff)
		}
	}
}
