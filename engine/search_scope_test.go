package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// TestSessionFilterKeepsFileCorpora: a session filter narrows the session
// hits only; a notes corpus searched beside the sessions keeps its hits
// (spec C11). Before, the filter removed every corpus but the sessions.
func TestSessionFilterKeepsFileCorpora(t *testing.T) {
	notes := t.TempDir()
	if err := os.WriteFile(filepath.Join(notes, "db.md"), []byte("# Database\n\nRun the migrations before the units test.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var specs []cairn.SourceSpec
	for _, src := range []string{cairn.SourceCodex, cairn.SourceClaudeCode} {
		root := t.TempDir()
		copyTree(t, filepath.Join(fixtures, src), root)
		specs = append(specs, cairn.SourceSpec{ID: src, Roots: []string{root}})
	}
	eng, err := Open(context.Background(), Options{Dir: t.TempDir(), Embedder: &conceptEmbedder{model: "v1"}, Corpora: []cairn.Corpus{
		{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob},
		{Name: "sessions", Kind: cairn.KindSessions, Sources: specs, MaxExpandedTokens: 500},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	if _, err := eng.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	future, _ := time.Parse(time.RFC3339, "2030-01-01T00:00:00Z")
	tests := []struct {
		name     string
		corpora  []string
		filter   cairn.SessionFilter
		notes    bool   // the note is among the hits
		sessions string // every session hit's source; "" means none
	}{
		{"codex sessions and notes", nil, cairn.SessionFilter{Source: cairn.SourceCodex}, true, cairn.SourceCodex},
		{"no session matches", nil, cairn.SessionFilter{StartedFrom: future}, true, ""},
		{"sessions only, none match", []string{"sessions"}, cairn.SessionFilter{StartedFrom: future}, false, ""},
		{"notes only", []string{"notes"}, cairn.SessionFilter{Source: cairn.SourceCodex}, true, ""},
	}
	for _, mode := range []string{cairn.ModeLexical, cairn.ModeHybrid, cairn.ModeVector} {
		for _, tt := range tests {
			hits, err := eng.Search(context.Background(), "test OR fence OR units OR migrations",
				&cairn.SearchOptions{Mode: mode, Limit: 20, Corpora: tt.corpora, Sessions: &tt.filter})
			if err != nil {
				t.Fatalf("%s %s: %v", mode, tt.name, err)
			}
			var sawNote, sawSession bool
			for _, h := range hits {
				switch h.Corpus {
				case "notes":
					sawNote = true
				case "sessions":
					sawSession = true
					if h.Session == nil || h.Session.Source != tt.sessions {
						t.Errorf("%s %s: session hit from %+v, want source %q", mode, tt.name, h.Session, tt.sessions)
					}
				}
			}
			if sawNote != tt.notes {
				t.Errorf("%s %s: note among the hits = %v, want %v (%d hits)", mode, tt.name, sawNote, tt.notes, len(hits))
			}
			if sawSession != (tt.sessions != "") {
				t.Errorf("%s %s: session hits = %v, want %v", mode, tt.name, sawSession, tt.sessions != "")
			}
		}
	}
}
