package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
)

var searchNotes = map[string]string{
	"sqlite.md":   "# SQLite busy timeout\n\nSet the busy timeout so writers wait for the lock instead of failing.\nThe busy timeout is in milliseconds.\n",
	"postgres.md": "# Postgres\n\nConnection pooling with pgbouncer; lock timeouts are a server setting.\n",
	"config.md":   "# Config loader\n\nThe function parse_config_file reads TOML.\nSee internal/config/loader.go for details.\n",
	"camel.md":    "# Handlers\n\nCall newHTTPServer before registerRoutes.\n",
	"cafe.md":     "# Café\n\nThe café opens at noon; résumé reviews happen there.\n",
	"phrases.md":  "# Phrases\n\nRed green blue. Blue green red.\n",
	"running.md":  "# Running\n\nShe runs every morning and ran a marathon.\n",
}

func TestSearch(t *testing.T) {
	f := newFixture(t, searchNotes, Options{})
	f.sync()
	tests := []struct {
		query string
		first string // expected first hit; "" means no hits
		all   []string
	}{
		{query: "busy timeout", first: "sqlite.md"},
		{query: "lock timeout", first: "sqlite.md", all: []string{"sqlite.md", "postgres.md"}},
		{query: "walrus busy", first: "sqlite.md"}, // any-words fallback: no chunk has both
		{query: "parseConfigFile", first: "config.md"},
		{query: "parse_config_file", first: "config.md"},
		{query: "new_http_server", first: "camel.md"},
		{query: "registerRoutes", first: "camel.md"},
		{query: "register routes", first: "camel.md"},
		{query: "loader.go", first: "config.md"},
		{query: "internal/config/loader.go", first: "config.md"},
		{query: "cafe resume", first: "cafe.md"},
		{query: `"green blue"`, first: "phrases.md"},
		{query: `"blue red green"`},
		{query: "pgbounc*", first: "postgres.md"},
		{query: "running", first: "running.md"},
		{query: "the walrus", first: ""},
	}
	for _, tt := range tests {
		got := f.paths(tt.query)
		first := ""
		if len(got) > 0 {
			first = got[0]
		}
		if first != tt.first {
			t.Errorf("search %q: first = %q, want %q (all %v)", tt.query, first, tt.first, got)
		}
		for _, want := range tt.all {
			if !strings.Contains(strings.Join(got, ","), want) {
				t.Errorf("search %q = %v, want it to include %s", tt.query, got, want)
			}
		}
	}
}

func TestSearchHitShape(t *testing.T) {
	f := newFixture(t, searchNotes, Options{})
	f.sync()
	hits, err := f.eng.Search(context.Background(), "milliseconds", &cairn.SearchOptions{Explain: true})
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search = %v, %v; want one hit", hits, err)
	}
	h := hits[0]
	if h.Path != "cairn://notes/sqlite.md" || h.Corpus != "notes" || h.StartLine != 1 || h.EndLine != 4 {
		t.Errorf("hit = %+v", h)
	}
	if h.Score <= 0 || h.Score >= 1 {
		t.Errorf("score %v not in (0,1)", h.Score)
	}
	if !strings.Contains(h.Snippet, "milliseconds") {
		t.Errorf("snippet %q lacks the match", h.Snippet)
	}
	if len(h.Explain) == 0 || !strings.HasPrefix(h.Explain[0], "bm25(") {
		t.Errorf("explain = %v", h.Explain)
	}
}

func TestSearchLimitsAndErrors(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nshared keyword appears here %s\n", i, strings.Repeat("filler ", i))
	}
	f := newFixture(t, files, Options{})
	f.sync()
	ctx := context.Background()
	for _, limit := range []int{1, 5, 25} {
		hits, err := f.eng.Search(ctx, "keyword", &cairn.SearchOptions{Limit: limit})
		if err != nil || len(hits) != limit {
			t.Errorf("limit %d: %d hits, %v", limit, len(hits), err)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Errorf("limit %d: hits not sorted by score at %d", limit, i)
			}
		}
	}
	// Calibrated scores stay below 1 (search.MaxScore).
	hits, err := f.eng.Search(ctx, "keyword", &cairn.SearchOptions{MinScore: 1})
	if err != nil || len(hits) != 0 {
		t.Errorf("min score 1: %d hits, %v", len(hits), err)
	}
	bad := []struct {
		query string
		opts  *cairn.SearchOptions
		want  string
	}{
		{"", nil, "blank"},
		{"   ", nil, "blank"},
		{"the and of", nil, "only common words"},
		{"?!... --- ///", nil, "no words"},
		{"keyword", &cairn.SearchOptions{Limit: -1}, "limit"},
		{"keyword", &cairn.SearchOptions{Limit: 101}, "limit"},
		{"keyword", &cairn.SearchOptions{MinScore: 2}, "min-score"},
		{"keyword", &cairn.SearchOptions{Corpora: []string{"nope"}}, "unknown corpus: nope (known: notes)"},
		{"keyword", &cairn.SearchOptions{Corpora: []string{"all", "notes"}}, "unknown corpus: all"},
	}
	for _, b := range bad {
		_, err := f.eng.Search(ctx, b.query, b.opts)
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Search(%q, %+v) error = %v, want ErrInvalid mentioning %q", b.query, b.opts, err, b.want)
		}
	}
}

func TestSearchCorpusFilter(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	f := newFixture(t, nil, Options{Corpora: []cairn.Corpus{
		{Name: "work", Kind: cairn.KindFiles, Paths: []string{a}},
		{Name: "home", Kind: cairn.KindFiles, Paths: []string{b}},
	}})
	f.notes = a
	f.write("w.md", "# Work\n\nquarterly budget review\n")
	f.notes = b
	f.write("h.md", "# Home\n\nbudget for the garden\n")
	if _, err := f.eng.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		corpora []string
		want    int
	}{{nil, 2}, {[]string{"work"}, 1}, {[]string{"HOME"}, 1}, {[]string{"work", "home"}, 2}, {[]string{"all"}, 2}} {
		hits, err := f.eng.Search(context.Background(), "budget", &cairn.SearchOptions{Corpora: tt.corpora})
		if err != nil || len(hits) != tt.want {
			t.Errorf("corpora %v: %d hits, %v; want %d", tt.corpora, len(hits), err, tt.want)
		}
		for _, h := range hits {
			if len(tt.corpora) == 1 && tt.corpora[0] != "all" && !strings.EqualFold(h.Corpus, tt.corpora[0]) {
				t.Errorf("corpora %v returned a hit from %s", tt.corpora, h.Corpus)
			}
		}
	}
}

// TestSearchDuringSync runs searches while a sync writes; run it with -race.
func TestSearchDuringSync(t *testing.T) {
	files := map[string]string{}
	for i := range 400 {
		files[fmt.Sprintf("d%03d/n%d.md", i%20, i)] = fmt.Sprintf("# N %d\n\nconcurrent reader writer test %d alpha\n", i, i)
	}
	f := newFixture(t, files, Options{BatchSize: 16})
	ctx := context.Background()
	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, 8)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := f.eng.Search(ctx, "concurrent alpha", nil); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for round := range 3 {
		if round > 0 {
			f.write(fmt.Sprintf("d000/n%d.md", round), "# changed\n\nconcurrent change\n")
		}
		if _, err := f.eng.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("search during sync: %v", err)
	}
	hits, err := f.eng.Search(ctx, "concurrent", &cairn.SearchOptions{Limit: 100})
	if err != nil || len(hits) != 100 {
		t.Fatalf("after sync: %d hits, %v", len(hits), err)
	}
}

// TestSearchSmallCorpusMinScore: in a corpus of two notes a word found in
// one of them is in half the rows, where FTS5's inverse document frequency
// is 0. The match must still score above memory_search's default minimum
// (0.3), not be dropped as worthless.
func TestSearchSmallCorpusMinScore(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
		"b.md": "# Garden\n\nThe tomatoes need compost and better soil.\n",
	}, Options{})
	if _, err := f.eng.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	hits, err := f.eng.Search(context.Background(), "compost", &cairn.SearchOptions{MinScore: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Path != "cairn://notes/b.md" {
		t.Fatalf("compost with minScore 0.3: %+v; want b.md", hits)
	}
}
