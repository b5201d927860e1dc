package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/mcpserver"
)

// TestDocBadLines: malformed line parameters are a 400 naming the
// parameter; a range past the end is cut to the document, never showing
// lines it does not have.
func TestDocBadLines(t *testing.T) {
	s := newServer(t, "")
	doc := "/ui/doc?path=" + url.QueryEscape("cairn://notes/db.md") // 5 lines
	for q, want := range map[string]string{
		"&from=abc":      "from",
		"&from=-5":       "from",
		"&from=0":        "from",
		"&to=abc":        "to",
		"&from=1&to=abc": "to",
		"&all=maybe":     "all",
		"&from=3&to=1":   "to 1 is before from 3",
		"&to=3":          "to 3 without from",
		"&from=1.5&to=2": "from",
	} {
		code, _, body := s.get(t, doc+q)
		if code != 400 || !strings.Contains(body, want) {
			t.Errorf("%s: status %d, want 400 naming %q:\n%s", q, code, want, body)
		}
	}
	code, _, body := s.get(t, doc+"&from=999")
	if code != 200 || !strings.Contains(body, "the document has 5 lines") {
		t.Errorf("from=999: status %d, want 200 saying the document has 5 lines:\n%s", code, body)
	}
	for _, bad := range []string{`id="L6"`, `id="L969"`, `id="L999"`, "999–999 highlighted", "from=939"} {
		if strings.Contains(body, bad) {
			t.Errorf("from=999 shows %s, past the document's end:\n%s", bad, body)
		}
	}
	code, _, body = s.get(t, doc+"&from=4&to=99")
	if code != 200 || !strings.Contains(body, "lines 4–5 highlighted") || strings.Contains(body, `id="L6"`) {
		t.Errorf("from=4&to=99: status %d, want lines 4–5:\n%s", code, body)
	}
	for _, ok := range []string{"&all=1", "&all=true", "&from=2", "&from=2&to=3&all=0"} {
		if code, _, body := s.get(t, doc+ok); code != 200 {
			t.Errorf("%s: status %d:\n%s", ok, code, body)
		}
	}
}

// TestToldMemorySource: a memory written with remember has no source
// document, so its page links none.
func TestToldMemorySource(t *testing.T) {
	s := newServer(t, "")
	res, err := s.eng.Remember(context.Background(), &cairn.RememberRequest{Kind: "fact", Title: "Lunch", Summary: "Lunch is at noon.", Agent: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	code, _, body := s.get(t, "/ui/memory?id="+url.QueryEscape(res.Memory.ID))
	if code != 200 {
		t.Fatalf("status %d:\n%s", code, body)
	}
	if strings.Contains(body, `/ui/doc?path=#`) || strings.Contains(body, "lines 0–0") || !strings.Contains(body, "told directly") {
		t.Errorf("told memory's source links a document or lacks \"told directly\":\n%s", body)
	}
}

// TestUIRoot: the search page is at /ui/ as at /, and the API's 404
// names the pages.
func TestUIRoot(t *testing.T) {
	s := newServer(t, "")
	for _, p := range []string{"/ui/", "/ui/?q=busy_timeout&min=0"} {
		code, _, body := s.get(t, p)
		if code != 200 || !strings.Contains(body, `role="search"`) {
			t.Errorf("%s: status %d, want the search page:\n%s", p, code, body)
		}
	}
	if _, _, body := s.get(t, "/ui/?q=busy_timeout&min=0"); !strings.Contains(body, "db.md") {
		t.Errorf("/ui/?q= found no hits:\n%s", body)
	}
	code, _, body := s.get(t, "/corpora")
	if code != 404 || !strings.Contains(body, "/ui/") {
		t.Errorf("/corpora: status %d, want a 404 naming /ui/: %s", code, body)
	}
}

// TestProgressBounded: the progress poll checks after and does not wait
// while no sync runs.
func TestProgressBounded(t *testing.T) {
	s := newServer(t, "")
	code, _, body := s.get(t, "/ui/sync/progress?after=abc")
	if code != 400 || !strings.Contains(body, "after") {
		t.Errorf("after=abc: status %d, want 400 naming after: %s", code, body)
	}
	start := time.Now()
	code, _, body = s.get(t, "/ui/sync/progress?after=5")
	if code != 200 || !strings.Contains(body, `"idle"`) || time.Since(start) > 5*time.Second {
		t.Errorf("after=5 while idle: status %d after %s, want the idle state at once: %s", code, time.Since(start), body)
	}
}

// TestParamNames: the pages' errors name their own URL parameters, and
// the parameters the review found unchecked are checked.
func TestParamNames(t *testing.T) {
	s := newServer(t, "")
	for p, want := range map[string]string{
		"/?q=lunch&min=2":                             "min 2 out of range",
		"/?q=lunch&limit=5000":                        "limit 5000 out of range",
		"/?q=lunch&s_from=notadate":                   "s_from &#34;notadate&#34;",
		"/?q=lunch&s_from=2026-12-01&s_to=2026-01-01": "s_to 2026-01-01 is before s_from",
		"/?q=lunch&m_from=2026-13":                    "m_from",
		"/?q=lunch&m_kind=bogus":                      "m_kind",
		"/ui/clusters?id=abc":                         "id &#34;abc&#34;",
		"/ui/clusters?id=0123456789&offset=x":         "offset &#34;x&#34;",
		"/ui/inbox?limit=abc":                         "limit &#34;abc&#34;",
		"/ui/sessions?from=2026-12-01&to=2026-01-01":  "to 2026-01-01 is before from",
		"/ui/memories?status=bogus":                   "allowed active, superseded, all",
	} {
		code, _, body := s.get(t, p)
		if code != 400 || !strings.Contains(body, want) {
			t.Errorf("%s: status %d, want 400 with %q:\n%s", p, code, want, body)
		}
		for _, api := range []string{"min-score", "memoryFilter", "clusterId", "or empty for both"} {
			if strings.Contains(body, api) {
				t.Errorf("%s names the API's %s:\n%s", p, api, body)
			}
		}
	}
	if _, _, body := s.get(t, "/?q=lunch"); !strings.Contains(body, `name="limit" min="1" max="100"`) {
		t.Errorf("the limit field's max is not 100:\n%s", body)
	}
	if code, _, body := s.get(t, "/ui/memories?status=all"); code != 200 || !strings.Contains(body, `<option value="profile"`) {
		t.Errorf("/ui/memories?status=all: status %d or no profile kind:\n%s", code, body)
	}
	if code, _, body := s.get(t, "/ui/inbox?limit=5"); code != 200 {
		t.Errorf("/ui/inbox?limit=5: status %d:\n%s", code, body)
	}
}

// TestLoginWithoutScript: the token form posted without script gets the
// token page and a message saying why, not the API's JSON.
func TestLoginWithoutScript(t *testing.T) {
	for _, token := range []string{"s3cret", ""} {
		s := newServer(t, token)
		res, err := http.PostForm(s.URL+"/ui/login", url.Values{"token": {"s3cret"}})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(body), `id="token-form"`) ||
			!strings.Contains(string(body), `role="alert">this server asks for no token`) && !strings.Contains(string(body), `role="alert">the token was not used`) {
			t.Errorf("token %q: POST /ui/login answered %d %s:\n%s", token, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
}

// TestCorporaSkillsAndMemories: the corpora page lists the memories
// corpus once it holds memories, and says the skills corpus is held in
// memory instead of "0 documents, 0 B".
func TestCorporaSkillsAndMemories(t *testing.T) {
	s := newServer(t, "")
	if _, err := s.eng.Remember(context.Background(), &cairn.RememberRequest{Kind: "fact", Title: "Lunch", Summary: "Lunch is at noon.", Agent: "cli"}); err != nil {
		t.Fatal(err)
	}
	code, _, body := s.get(t, "/ui/corpora")
	if code != 200 || !strings.Contains(body, `<a href="/ui/corpora?corpus=memories">memories</a>`) {
		t.Errorf("corpora page without the memories corpus: %d\n%s", code, body)
	}
	if row := corporaRow(body, "memories"); strings.Contains(row, "<td>0</td>") {
		t.Errorf("memories row counts no documents: %s", row)
	}

	skillsDir := t.TempDir()
	writeFile(t, filepath.Join(skillsDir, "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploy the app.\n---\n# Deploy\n")
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir(), Corpora: []cairn.Corpus{
		{Name: "notes", Kind: cairn.KindFiles, Paths: []string{s.notes}, Glob: cairn.DefaultGlob},
		{Name: cairn.KindSkills, Kind: cairn.KindSkills, Paths: []string{skillsDir}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	agent := mcpserver.NewAgent("default", eng)
	defer agent.Close(ctx)
	pages, err := New(Options{Agent: agent})
	if err != nil {
		t.Fatal(err)
	}
	defer pages.Close(ctx)
	rec := httptest.NewRecorder()
	pages.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui/corpora", nil))
	row := corporaRow(rec.Body.String(), cairn.KindSkills)
	if rec.Code != 200 || !strings.Contains(row, "held in memory") || strings.Contains(row, "0 B") {
		t.Errorf("skills row: %d %q\n%s", rec.Code, row, rec.Body.String())
	}
}

// corporaRow is the table row of the named corpus.
func corporaRow(body, name string) string {
	i := strings.Index(body, `?corpus=`+name+`">`)
	if i < 0 {
		return ""
	}
	j := strings.Index(body[i:], "</tr>")
	return body[i : i+max(j, 0)]
}
