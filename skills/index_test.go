package skills

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/whisper"
)

func TestIndexSearch(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "deploy", "SKILL.md"), skill("deploy", "Ship the website to the staging server"))
	write(t, filepath.Join(root, "review", "SKILL.md"), skill("review", "Review a pull request for bugs"))
	emb := &wordEmbedder{}
	idx := NewIndex([]string{root}, emb)
	got, err := idx.Search(context.Background(), "user: please ship the website to staging", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "deploy" || got[0].Score <= got[1].Score {
		t.Fatalf("matches = %+v", got)
	}
	// Embedded as title and text, as documents; the query as a query.
	if emb.calls[0].kind != cairn.EmbedDocument || emb.calls[0].texts[0] != "deploy\n\nShip the website to the staging server" {
		t.Fatalf("document call = %+v", emb.calls[0])
	}
	if emb.calls[1].kind != cairn.EmbedQuery {
		t.Fatalf("query call = %+v", emb.calls[1])
	}
	// Built once; Invalidate rebuilds on the next use.
	if _, err := idx.Search(context.Background(), "review", 1); err != nil {
		t.Fatal(err)
	}
	if n := emb.documentCalls(); n != 1 {
		t.Fatalf("skills embedded %d times, want 1", n)
	}
	write(t, filepath.Join(root, "lint", "SKILL.md"), skill("lint", "Run the linters"))
	idx.Invalidate()
	got, err = idx.Search(context.Background(), "run the linters", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "lint" {
		t.Fatalf("after invalidate: %+v", got)
	}
}

func TestIndexNoEmbedder(t *testing.T) {
	idx := NewIndex([]string{t.TempDir()}, nil)
	if _, err := idx.Search(context.Background(), "x", 1); !errors.Is(err, cairn.ErrUnavailable) {
		t.Fatalf("search without embedder: %v, want ErrUnavailable", err)
	}
	// The whisperer over it: unavailable, counted as such, and logged by code.
	var logs strings.Builder
	w := NewWhisperer(idx, nil)
	w.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	sec, err := w.Whisper(context.Background(), &whisper.Turn{AgentID: "a", SessionID: "s", RunID: "r", Prompt: "deploy"})
	if err != nil || sec.Outcome != "unavailable" || !strings.Contains(logs.String(), `"code":"unavailable"`) || strings.Contains(logs.String(), "deploy") {
		t.Fatalf("whisper without embedder = %+v, %v; log %s", sec, err, logs.String())
	}
}

// TestWatcherInvalidates: a SKILL.md added under a watched folder (and
// under a folder created after the start) is found without a manual
// Invalidate.
func TestWatcherInvalidates(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "deploy", "SKILL.md"), skill("deploy", "Ship it"))
	later := filepath.Join(t.TempDir(), "later", "skills") // created after the start
	idx := NewIndex([]string{later, root}, &wordEmbedder{})
	w, err := Watch(idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	count := func() int {
		s, _, err := idx.Skills(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return len(s)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d skills, want 1", n)
	}
	write(t, filepath.Join(root, "new", "SKILL.md"), skill("new", "A new one"))
	waitFor(t, func() bool { return count() == 2 })
	if err := os.Remove(filepath.Join(root, "deploy", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return count() == 1 })
	write(t, filepath.Join(later, "x", "SKILL.md"), skill("x", "Created later"))
	waitFor(t, func() bool { return count() == 2 })
	write(t, filepath.Join(later, "y", "SKILL.md"), skill("y", "Then another"))
	waitFor(t, func() bool { return count() == 3 })
}

// waitFor polls cond until it holds; the bound only keeps a broken
// watcher from hanging the test.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition never held")
}

// gatedEmbedder embeds documents only once its gate is open; entered
// receives each document call as it starts.
type gatedEmbedder struct {
	wordEmbedder
	gate     chan struct{}
	entered  chan struct{}
	attempts atomic.Int32
}

func (g *gatedEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	if kind == cairn.EmbedDocument {
		g.attempts.Add(1)
		if g.entered != nil {
			g.entered <- struct{}{}
		}
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.wordEmbedder.Embed(ctx, kind, texts)
}

// TestIndexBuildOutlivesDeadline: a caller whose deadline ends while the
// skills are being embedded gets its error; the build goes on and serves
// the next caller without embedding again.
func TestIndexBuildOutlivesDeadline(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "deploy", "SKILL.md"), skill("deploy", "Ship it"))
	emb := &gatedEmbedder{gate: make(chan struct{}), entered: make(chan struct{}, 4)}
	idx := NewIndex([]string{root}, emb)
	defer idx.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-emb.entered; cancel() }() // the deadline ends mid-embedding
	if _, err := idx.Search(ctx, "ship", 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("search past its deadline: %v", err)
	}
	close(emb.gate)
	got, err := idx.Search(context.Background(), "ship", 1)
	if err != nil || len(got) != 1 || got[0].Name != "deploy" {
		t.Fatalf("next search = %+v, %v", got, err)
	}
	if n := emb.attempts.Load(); n != 1 {
		t.Fatalf("skills embedded %d times, want 1 (the build outlived the first caller)", n)
	}
}

// TestIndexClose: Close ends a build under way and waits for it.
func TestIndexClose(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "deploy", "SKILL.md"), skill("deploy", "Ship it"))
	idx := NewIndex([]string{root}, &gatedEmbedder{gate: make(chan struct{})}) // never opens
	idx.Warm()
	idx.Close()
	if _, err := idx.Search(context.Background(), "ship", 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("search after Close: %v", err)
	}
}
