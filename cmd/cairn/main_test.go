package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// cli runs cairn in-process with CAIRN_HOME set to home.
type cli struct {
	t    *testing.T
	home string
}

func newCLI(t *testing.T) *cli {
	home := t.TempDir()
	t.Setenv("CAIRN_HOME", home)
	return &cli{t: t, home: home}
}

func (c *cli) run(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func (c *cli) ok(args ...string) string {
	c.t.Helper()
	out, errs, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("cairn %v: exit %d, stderr %q", args, code, errs)
	}
	return out
}

// keys returns the sorted keys of a JSON object.
func keys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %s", raw)
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func wantKeys(t *testing.T, what string, raw json.RawMessage, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := keys(t, raw); !slices.Equal(got, want) {
		t.Errorf("%s keys = %v, want %v", what, got, want)
	}
}

func TestCLIJSONShapes(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "db.md"), []byte("# Database\n\nSet busy_timeout to 5000 ms.\nMore lines.\n"), 0o644)
	c.ok("init")
	c.ok("corpus", "add", "notes", notes)

	var list struct{ Corpora []json.RawMessage }
	json.Unmarshal([]byte(c.ok("corpus", "list", "--json")), &list)
	if len(list.Corpora) != 1 {
		t.Fatalf("corpus list: %d corpora", len(list.Corpora))
	}
	wantKeys(t, "corpus", list.Corpora[0], "name", "kind", "paths", "glob", "exclude")

	var sync struct {
		Corpora []json.RawMessage
		Seconds *float64
	}
	out := c.ok("sync", "--json")
	json.Unmarshal([]byte(out), &sync)
	wantKeys(t, "sync", json.RawMessage(out), "corpora", "seconds")
	wantKeys(t, "sync corpus", sync.Corpora[0], "name", "scanned", "added", "updated", "unchanged", "removed", "failed", "chunks")

	var search struct{ Results []json.RawMessage }
	out = c.ok("search", "busy", "timeout", "--json", "--limit", "3")
	json.Unmarshal([]byte(out), &search)
	wantKeys(t, "search", json.RawMessage(out), "results")
	if len(search.Results) != 1 {
		t.Fatalf("search results: %s", out)
	}
	wantKeys(t, "hit", search.Results[0], "path", "startLine", "endLine", "snippet", "corpus", "score")

	out = c.ok("get", "cairn://notes/db.md", "--from", "3", "--lines", "1", "--json")
	wantKeys(t, "get", json.RawMessage(out), "status", "text", "path", "from", "lines", "truncated", "nextFrom")
	var got struct {
		Text     string
		NextFrom int
	}
	json.Unmarshal([]byte(out), &got)
	if got.Text != "Set busy_timeout to 5000 ms.\n" || got.NextFrom != 4 {
		t.Errorf("get = %s", out)
	}
	out = c.ok("get", "cairn://notes/../db.md", "--json")
	if !strings.Contains(out, `"status":"not_found"`) {
		t.Errorf("traversal get = %s", out)
	}
}

func TestCLIExitCodes(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# A\n\nalpha beta\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{}, 2, "no command"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate": run cairn help`},
		{[]string{"status"}, 2, `unknown command "status": did you mean cairn sync status? run cairn help`},
		{[]string{"serach", "x"}, 2, `unknown command "serach": did you mean cairn search? run cairn help`}, // ux F16: a typo of a command
		{[]string{"snyc"}, 2, `unknown command "snyc": did you mean cairn sync? run cairn help`},
		{[]string{"search"}, 2, "needs a QUERY"},
		{[]string{"search", "alpha", "--limit", "0"}, 2, "limit 0 out of range"},
		{[]string{"search", "alpha", "--min-score", "1.5"}, 2, "min-score"},
		{[]string{"search", "alpha", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"search", "alpha", "--corpus", "nope"}, 2, "unknown corpus: nope (known: notes)"},
		{[]string{"search", "the", "of"}, 2, "only common words"},
		{[]string{"get"}, 2, "exactly one PATH"},
		{[]string{"get", "cairn://notes/a.md", "--lines", "1001"}, 2, "lines 1001 out of range"},
		{[]string{"get", "cairn://notes/missing.md"}, 1, "not found"},
		{[]string{"corpus", "add", "notes", notes}, 2, "already configured"},
		{[]string{"corpus", "add", "all", notes}, 2, "reserved"},
		{[]string{"sync", "--agent", "../evil"}, 2, "agent"},
		{[]string{"sync", "extra"}, 2, "takes no arguments"},
	}
	for _, tt := range tests {
		_, stderr, code := c.run(tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("cairn %v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, tt.code, tt.stderr)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("cairn %v: stderr has several lines: %q", tt.args, stderr)
		}
	}
	out := c.ok("search", "alpha")
	if !strings.Contains(out, "cairn://notes/a.md:1-3") {
		t.Errorf("plain search output: %q", out)
	}
}

func TestCLIConfigErrorNamesLine(t *testing.T) {
	c := newCLI(t)
	cfg := filepath.Join(c.home, "config.toml")
	os.WriteFile(cfg, []byte("[[corpus]]\nname = \"n\"\nkind = \"files\"\npaths = [\"/tmp\"]\nglobs = \"*.md\"\n"), 0o600)
	_, stderr, code := c.run("sync")
	if code != 2 || !strings.Contains(stderr, cfg+":5") || !strings.Contains(stderr, "glob") {
		t.Errorf("exit %d, stderr %q; want 2 naming %s:5 and the allowed keys", code, stderr, cfg)
	}
}

func TestCLISessions(t *testing.T) {
	c := newCLI(t)
	out := c.ok("sync", "status", "--json")
	if !strings.Contains(out, `"status":"idle"`) {
		t.Errorf("status before any sync = %s", out)
	}
	root := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openai-chat")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openai-chat", "--root", "openai-chat="+root)
	out = c.ok("sync", "--json")
	if !strings.Contains(out, `"sessions":{"sources":[{"source":"openai-chat"`) {
		t.Errorf("sync JSON lacks the per-source session counts: %s", out)
	}
	var res struct {
		Results []struct {
			Snippet []map[string]any `json:"snippet"`
			Session map[string]any   `json:"session"`
		}
	}
	out = c.ok("search", "metric units", "--source", "openai-chat", "--started-from", "2026-05-01", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Results) == 0 || res.Results[0].Session["sessionId"] != "conv-001" || len(res.Results[0].Snippet) == 0 {
		t.Errorf("session search JSON = %s (%v)", out, err)
	}
	out = c.ok("sync", "status", "--json")
	if !strings.Contains(out, `"status":"completed"`) || !strings.Contains(out, `"lastSuccessfulSyncAt"`) {
		t.Errorf("status after sync = %s", out)
	}
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"search", "x", "--started-from", "yesterday"}, "ISO-8601"},
		{[]string{"search", "x", "--chat-type", "dm"}, "allowed direct, group or channel"},
		{[]string{"search", "x", "--source", "cursorx"}, "allowed claude-code"},
		{[]string{"search", "x", "--started-from", "2026-05-05", "--started-to", "2026-05-01"}, "startedFrom"},
		{[]string{"corpus", "add", "sessions", "--kind", "sessions", "--source", "nope"}, "unknown source"},
		{[]string{"corpus", "add", "s2", "--kind", "sessions", "--source", "codex"}, `name "sessions"`},
		{[]string{"corpus", "add", "x", "/tmp", "--root", "codex=/c"}, "need --kind sessions"},
	} {
		_, stderr, code := c.run(tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("cairn %v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.stderr)
		}
	}
}

// TestCLIVectorSearch configures an OpenAI-compatible embedder served by a
// fake that checks each request, syncs, and searches by meaning.
func TestCLIVectorSearch(t *testing.T) {
	groups := map[string]int{"support": 0, "group": 0, "meetup": 0, "lgbtq": 0, "garden": 1, "compost": 1}
	srv := wordGroupEmbedder(t, "concepts", groups, []float64{0, 0, 0.01}, nil)
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Week\n\nCaroline went to the support group.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "b.md"), []byte("# Garden\n\nMore compost this spring.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	cfg := filepath.Join(c.home, "config.toml")
	f, _ := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"openai\"\nmodel = \"concepts\"\nbase_url = %q\n", srv.URL+"/v1")
	f.Close()
	if out := c.ok("sync"); !strings.Contains(out, "embedded 2 chunks, 0 waiting") {
		t.Errorf("sync output: %s", out)
	}
	out := c.ok("search", "LGBTQ meetup", "--mode", "vector", "--json")
	var res struct{ Results []struct{ Path string } }
	json.Unmarshal([]byte(out), &res)
	if len(res.Results) == 0 || res.Results[0].Path != "cairn://notes/a.md" {
		t.Errorf("vector search: %s", out)
	}
	if out := c.ok("search", "LGBTQ meetup", "--explain"); !strings.Contains(out, "fused:") {
		t.Errorf("hybrid is the default with an embedder: %s", out)
	}
	if _, stderr, code := c.run("search", "x", "--mode", "fuzzy"); code != 2 || !strings.Contains(stderr, "allowed hybrid, lexical or vector") {
		t.Errorf("bad mode: %d %s", code, stderr)
	}
}

func TestCLIModels(t *testing.T) {
	c := newCLI(t)
	if out := c.ok("models", "list", "--json"); !strings.Contains(out, `"models":[]`) {
		t.Errorf("empty list: %s", out)
	}
	if _, stderr, code := c.run("models", "pull", "not-a-name"); code != 2 || !strings.Contains(stderr, "owner/model") {
		t.Errorf("bad name: exit %d %q", code, stderr)
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	if _, stderr, code := c.run("models", "pull", "acme/mini", "--hub", url); code != 1 || !strings.Contains(stderr, "by hand") {
		t.Errorf("offline pull: exit %d %q", code, stderr)
	}
}

// TestCLIEmbedderOnFirstUse checks that one-shot commands build the
// embedder only when they embed: with a model that cannot load, lexical
// search and sync's indexing still work, and the model's error is
// reported where vectors are needed.
func TestCLIEmbedderOnFirstUse(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Week\n\nCaroline went to the support group.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	f, _ := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"onnx\"\nmodel = %q\n", filepath.Join(t.TempDir(), "no-model"))
	f.Close()

	out, errs, code := c.run("sync", "--json")
	if code != 1 || !strings.Contains(out, `"added":1`) || !strings.Contains(errs, "no-model") || !strings.Contains(errs, "point [embedder] model at a folder") {
		t.Fatalf("sync with a broken model: exit %d, stdout %s, stderr %q; want the note indexed and the model named", code, out, errs)
	}
	if out := c.ok("search", "support group", "--mode", "lexical", "--json"); !strings.Contains(out, "a.md") {
		t.Errorf("lexical search = %s", out)
	}
	out, errs, code = c.run("search", "support group", "--json", "--explain")
	if code != 0 || !strings.Contains(out, "a.md") || !strings.Contains(out, "vector lane off") || !strings.Contains(errs, "no-model") {
		t.Errorf("hybrid search with a broken model: exit %d, stdout %s, stderr %q; want lexical hits and the model named", code, out, errs)
	}
}

// TestFlagErrorPrefix: a flag error names the command once, after the one
// "cairn: " prefix, for every command (it read "cairn: cairn whisper: ...").
func TestFlagErrorPrefix(t *testing.T) {
	c := newCLI(t)
	for _, cmd := range commands {
		args := append(strings.Fields(cmd.path), "--bogus")
		_, errs, code := c.run(args...)
		want := "cairn: " + cmd.path + ": flag provided but not defined: -bogus; run cairn " + cmd.path + " --help\n"
		if code != 2 || errs != want {
			t.Errorf("cairn %s --bogus: exit %d, stderr %q; want exit 2 and %q", cmd.path, code, errs, want)
		}
	}
}
