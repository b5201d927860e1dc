package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSyncEmbedderPaused: an embedder endpoint that cannot serve (503 on
// every try) pauses the embedding, it does not fail the sync (ux F25): the
// table of what was indexed, a line saying the embedding is paused, why
// and that the next sync resumes it, exit 0, and --json counts the chunks
// waiting. The words are searchable meanwhile.
func TestSyncEmbedderPaused(t *testing.T) {
	var refused atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refused.Load() {
			http.Error(w, "bad key", http.StatusUnauthorized)
			return
		}
		http.Error(w, "model loading", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Week\n\nCaroline went to the support group.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "b.md"), []byte("# Garden\n\nMore compost this spring.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	f, _ := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"openai\"\nmodel = \"m\"\nbase_url = %q\n", srv.URL+"/v1")
	f.Close()
	out, stderr, code := c.run("sync")
	t.Logf("stdout:\n%s\nstderr:\n%s", out, stderr)
	if code != 0 {
		t.Errorf("sync exit %d, want 0 (paused)", code)
	}
	for _, want := range []string{"notes        2      2", "embedding paused: ", "2 chunks wait for vectors; the next sync embeds them"} {
		if !strings.Contains(out, want) {
			t.Errorf("sync output lacks %q", want)
		}
	}
	if hits := c.ok("search", "compost", "--mode", "lexical", "--json"); !strings.Contains(hits, "cairn://notes/b.md") {
		t.Errorf("lexical search while paused: %s", hits)
	}
	out, stderr, code = c.run("sync", "--json")
	if code != 0 || !strings.Contains(out, `"pendingEmbeddings":2`) || !strings.HasPrefix(stderr, "cairn: embedding paused: ") {
		t.Errorf("sync --json while paused: exit %d, stdout %s, stderr %q", code, out, stderr)
	}
	srv.Close() // not listening: the model's server is down, a pause too
	if out, stderr, code = c.run("sync"); code != 0 || !strings.Contains(out, "embedding paused: unavailable: ") || !strings.Contains(out, "connection refused") {
		t.Errorf("sync with the endpoint down: exit %d, stdout %s, stderr %q; want 0 and paused", code, out, stderr)
	}
	down := srv.URL
	srv = httptest.NewServer(srv.Config.Handler)
	t.Cleanup(srv.Close)
	cfg, _ := os.ReadFile(filepath.Join(c.home, "config.toml"))
	os.WriteFile(filepath.Join(c.home, "config.toml"), []byte(strings.ReplaceAll(string(cfg), down, srv.URL)), 0o600)
	refused.Store(true) // a refused key is a failure, not a pause
	if out, stderr, code = c.run("sync"); code != 1 || !strings.Contains(stderr, "401") {
		t.Errorf("sync with the key refused: exit %d, stderr %q; want 1", code, stderr)
	}
}
