package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/mcpserver"
)

// server is the API handler with the pages mounted, as cairn serve builds
// it, over a real engine and a small synced notes corpus.
type server struct {
	*httptest.Server
	eng   *engine.Engine
	agent *mcpserver.Agent
	pages *Handler
	notes string
}

// notes are the fixture notes: one holds an injected script.
var notes = map[string]string{
	"db.md":     "# Database\n\nSet busy_timeout to 5000 ms so writers wait instead of failing.\n\nDecision: WAL mode stays on.\n",
	"deploy.md": "# Deploy\n\nThe staging cluster deploys from the release branch every night.\n",
	"evil.md":   "# Evil\n\nThe zanzibar note says <script>document.title='pwned'</script> and <img src=x onerror=alert(1)>.\n",
}

func newServer(t *testing.T, token string) *server {
	t.Helper()
	files := map[string]string{}
	for name, text := range notes {
		files[name] = text
	}
	for i := range 12 {
		files[fmt.Sprintf("filler-%02d.md", i)] = fmt.Sprintf("# Filler %d\n\nRoutine entry %d about lunch.\n", i, i)
	}
	return newServerWith(t, token, files, nil)
}

// newServerWith serves the given notes, embedded by emb when it is set.
func newServerWith(t *testing.T, token string, files map[string]string, emb cairn.Embedder) *server {
	t.Helper()
	s := &server{notes: t.TempDir()}
	for name, text := range files {
		writeFile(t, filepath.Join(s.notes, name), text)
	}
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir(), Embedder: emb,
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{s.notes}, Glob: cairn.DefaultGlob}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	agent := mcpserver.NewAgent("default", eng)
	pages, err := New(Options{Agent: agent, TokenRequired: token != ""})
	if err != nil {
		t.Fatal(err)
	}
	h, err := mcpserver.NewHandler(mcpserver.HTTPOptions{Agents: []*mcpserver.Agent{agent}, Token: token, UI: pages})
	if err != nil {
		t.Fatal(err)
	}
	s.Server, s.eng, s.agent, s.pages = httptest.NewServer(h), eng, agent, pages
	t.Cleanup(func() {
		s.Close()
		pages.Close(ctx)
		agent.Close(ctx)
		eng.Close(ctx)
	})
	return s
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// get fetches path with optional headers (name, value pairs).
func (s *server) get(t *testing.T, path string, hdr ...string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(body)
}

// TestSearchWithoutScript: /?q= answers with the hits in the HTML itself,
// each with its path, lines, score and lane bar, and a link to the lines.
func TestSearchWithoutScript(t *testing.T) {
	s := newServer(t, "")
	code, hdr, body := s.get(t, "/?q=busy_timeout&min=0")
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	for _, want := range []string{"cairn://notes/db.md", "lines 1–", "<meter", "lexical", "/ui/doc?", "busy_timeout"} {
		if !strings.Contains(body, want) {
			t.Errorf("search page lacks %q", want)
		}
	}
	if !strings.Contains(hdr.Get("Server-Timing"), "search;dur=") {
		t.Errorf("Server-Timing = %q", hdr.Get("Server-Timing"))
	}
	if csp := hdr.Get("Content-Security-Policy"); csp != CSP {
		t.Errorf("CSP = %q", csp)
	}
}

// TestSearchFilters: the filters are URL parameters too; a bad one is a
// 400 page naming the field, the form still filled in.
func TestSearchFilters(t *testing.T) {
	s := newServer(t, "")
	code, _, body := s.get(t, "/?q=busy_timeout&min=0&mode=lexical&corpus=notes&s_from=2026-01-01")
	if code != 200 || !strings.Contains(body, "cairn://notes/db.md") || !strings.Contains(body, `value="notes" checked`) {
		t.Errorf("search with filters: %d\n%s", code, body)
	}
	code, _, body = s.get(t, "/?q=busy_timeout&s_from=yesterday")
	if code != 400 || !strings.Contains(body, `from &#34;yesterday&#34;`) || !strings.Contains(body, `value="busy_timeout"`) {
		t.Errorf("bad session filter: %d\n%s", code, body)
	}
	if code, _, body = s.get(t, "/?q=busy_timeout&limit=many"); code != 400 || !strings.Contains(body, "limit") {
		t.Errorf("bad limit: %d\n%s", code, body)
	}
}

// TestInjectedScriptEscaped: a note's <script> and event handler come
// back as text in the search page and the document view.
func TestInjectedScriptEscaped(t *testing.T) {
	s := newServer(t, "")
	for _, path := range []string{"/?q=zanzibar&min=0", "/ui/doc?path=" + url.QueryEscape("cairn://notes/evil.md") + "&from=3&to=3&q=zanzibar"} {
		code, _, body := s.get(t, path)
		if code != 200 {
			t.Fatalf("%s: status %d: %s", path, code, body)
		}
		if strings.Contains(body, "<script>document") || strings.Contains(body, "<img src=x") {
			t.Errorf("%s: the note's markup is live HTML:\n%s", path, body)
		}
		if !strings.Contains(body, "&lt;script&gt;document.title=") {
			t.Errorf("%s: the note's script is not shown as text", path)
		}
	}
}

// TestDocHighlight: the document view marks the hit's lines and the
// query's words in them.
func TestDocHighlight(t *testing.T) {
	s := newServer(t, "")
	_, _, body := s.get(t, "/ui/doc?path="+url.QueryEscape("cairn://notes/db.md")+"&from=3&to=3&q=busy_timeout")
	if !strings.Contains(body, `class="line hit" id="L3"`) || !strings.Contains(body, "<mark>busy_timeout</mark>") {
		t.Errorf("doc view without the highlight:\n%s", body)
	}
	if strings.Contains(body, `class="line hit" id="L1"`) {
		t.Errorf("line 1 highlighted though the hit is line 3")
	}
}

// TestTokenPages: with a token a page asked for without it is the login
// page (401, no data), the static files need none, a page with it is
// served, and the API still answers JSON 401.
func TestTokenPages(t *testing.T) {
	s := newServer(t, "s3cret")
	code, _, body := s.get(t, "/?q=busy_timeout&min=0")
	if code != 401 || !strings.Contains(body, `id="token-form"`) || strings.Contains(body, "db.md") {
		t.Errorf("page without token: %d\n%s", code, body)
	}
	if code, _, _ := s.get(t, "/ui/static/app.js"); code != 200 {
		t.Errorf("static file without token: %d", code)
	}
	code, _, body = s.get(t, "/?q=busy_timeout&min=0", "Authorization", "Bearer s3cret")
	if code != 200 || !strings.Contains(body, "cairn://notes/db.md") || !strings.Contains(body, `data-token="required"`) {
		t.Errorf("page with token: %d\n%s", code, body)
	}
	if code, _, body := s.get(t, "/v1/diagnostics"); code != 401 || !strings.Contains(body, `"error"`) {
		t.Errorf("API without token: %d %s", code, body)
	}
	if code, _, _ := s.get(t, "/ui/sync/progress"); code != 401 {
		t.Errorf("progress without token: %d", code)
	}
}

// TestSyncNeedsHeader: the sync POST without X-Cairn-UI is refused (a
// form elsewhere cannot add it), and a foreign Origin is refused by the
// guard before it.
func TestSyncNeedsHeader(t *testing.T) {
	s := newServer(t, "")
	post := func(hdr ...string) int {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/ui/sync", nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post(); code != http.StatusForbidden {
		t.Errorf("POST without header: %d", code)
	}
	if code := post(UIHeader, "1", "Origin", "https://evil.example"); code != http.StatusForbidden {
		t.Errorf("POST from a foreign origin: %d", code)
	}
	if code := post(UIHeader, "1"); code != http.StatusAccepted {
		t.Errorf("POST with header: %d", code)
	}
	if err := s.pages.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, _, body := s.get(t, "/ui/sync/progress?after=0")
	if !strings.Contains(body, `"status":"completed"`) {
		t.Errorf("progress after the sync: %s", body)
	}
}

// TestPagesRender: every page answers 200 over the fixture.
func TestPagesRender(t *testing.T) {
	s := newServer(t, "")
	for _, p := range []string{"/", "/ui/corpora", "/ui/corpora?corpus=notes", "/ui/sessions", "/ui/memories", "/ui/memories?kind=&status=all", "/ui/memories?kind=fact&status=superseded", "/ui/clusters", "/ui/inbox", "/ui/diagnostics"} {
		code, _, body := s.get(t, p)
		if code != 200 {
			t.Errorf("%s: %d\n%s", p, code, body)
		}
	}
	if code, _, _ := s.get(t, "/ui/nope"); code != 404 {
		t.Errorf("/ui/nope: %d", code)
	}
	if code, _, body := s.get(t, "/v1/nope"); code != 404 || !strings.Contains(body, `"error"`) {
		t.Errorf("/v1/nope: %d %s", code, body)
	}
}

// TestTemplatesNoInline: the CSP forbids inline script and style, so no
// template may hold a script body, a style attribute or element, or an
// event handler attribute (they would silently not work).
func TestTemplatesNoInline(t *testing.T) {
	bad := regexp.MustCompile(`(?i)<script[^>]*>[^<]|<style|\sstyle=|\son[a-z]+=|javascript:`)
	entries, err := templateFS.ReadDir("templates")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := templateFS.ReadFile("templates/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if m := bad.FindString(string(data)); m != "" {
			t.Errorf("%s holds %q, which the CSP blocks", e.Name(), m)
		}
	}
}

// TestServerSyncs: /ui/sync/server reports the server's own first sync
// until it has completed, and the corpora page shows it.
func TestServerSyncs(t *testing.T) {
	s := newServer(t, "")
	if err := s.agent.StartBackground(mcpserver.BackgroundOptions{FirstSync: true}); err != nil {
		t.Fatal(err)
	}
	var st struct {
		Running bool
		Fields  []struct{ Key, Value string }
	}
	for range 300 {
		_, _, body := s.get(t, "/ui/sync/server")
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatalf("server syncs: %v: %s", err, body)
		}
		if !st.Running {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	done := false
	for _, f := range st.Fields {
		done = done || f.Key == "firstSync.status" && f.Value == "completed"
	}
	if st.Running || !done {
		t.Fatalf("server syncs after the first sync: %+v", st)
	}
	if _, _, page := s.get(t, "/ui/corpora"); !strings.Contains(page, `id="server-sync" data-running="0"`) || !strings.Contains(page, "firstSync.status") {
		t.Errorf("corpora page without the server's syncs:\n%s", page)
	}
}
