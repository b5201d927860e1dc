package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/chromedp/chromedp"
)

// uiScreenshots, when set, is where TestUIBrowser writes a screenshot of
// each page (docs/ui holds the committed ones):
//
//	go test -tags sqlite_fts5 ./cmd/cairn/ -run TestUIBrowser -ui-screenshots ../../docs/ui
var uiScreenshots = flag.String("ui-screenshots", "", "write a PNG of each page to this folder")

// browserPath finds Chromium, or skips (fails with CAIRN_REQUIRE_BROWSER=1).
func browserPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testshared.SkipOrFail(t, "BROWSER", "no chromium on PATH (apt-get install -y chromium): the browser tests need it")
	return ""
}

var servingOn = regexp.MustCompile(`serving agents .* on (http://\S+) `)

// startServe runs cairn serve in this process on a free loopback port
// until the test ends, and returns its base URL once it listens.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--watch=false"}, args...), io.Discard, stderr)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("cairn serve exited %d: %s", code, stderr.String())
		}
	})
	for range 600 {
		if m := servingOn.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("cairn serve exited %d before listening: %s", code, stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("cairn serve did not listen: %s", stderr.String())
	return ""
}

// newBrowser starts headless Chromium for the test.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	path := browserPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1200, 900), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium %s: %v", path, err)
	}
	return bctx
}

// do runs browser steps with a bound, failing the test on error.
func do(t *testing.T, bctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(bctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// read runs one browser action that returns a value.
func read[T any](t *testing.T, bctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(bctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// text is the text of the first element sel matches.
func text(t *testing.T, bctx context.Context, sel string) string {
	t.Helper()
	return read(t, bctx, "text of "+sel, chromedp.Text(chromedp.CSS(sel)))
}

// jsEval evaluates a JavaScript expression in the page.
func jsEval[T any](t *testing.T, bctx context.Context, expr string) T {
	t.Helper()
	return read(t, bctx, expr, chromedp.Evaluate[T](expr))
}

// shoot saves a screenshot of the page as name.png under -ui-screenshots.
func shoot(t *testing.T, bctx context.Context, name string) {
	t.Helper()
	if *uiScreenshots == "" {
		return
	}
	png := read(t, bctx, "screenshot "+name, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(*uiScreenshots, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// uiFixture is an index over a notes folder (one note holding injected
// markup) and the OpenAI chat fixture sessions, consolidated into
// memories by a fake model, as the CLI tests build it.
func uiFixture(t *testing.T) (*cli, string) {
	t.Helper()
	c := newCLI(t)
	notes := t.TempDir()
	writeNote := func(name, text string) {
		if err := os.WriteFile(filepath.Join(notes, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeNote("db.md", "# Database\n\nSet busy_timeout to 5000 ms so writers wait instead of failing.\n\nDecision: WAL mode stays on.\n")
	writeNote("evil.md", "# Evil\n\nThe zanzibar note says <script>document.title='pwned'</script> and <img src=x onerror=\"document.title='pwned'\">.\n")
	for i := range 12 {
		writeNote(fmt.Sprintf("filler-%02d.md", i), fmt.Sprintf("# Filler %d\n\nRoutine entry %d about lunch and the garden.\n", i, i))
	}
	c.ok("corpus", "add", "notes", notes)
	root := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openai-chat")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openai-chat", "--root", "openai-chat="+root)
	c.ok("sync")
	srv := fakeChat(t)
	appendConfig(t, c, fmt.Sprintf("\n[llm.consolidate]\napi = \"openai\"\nbase_url = %q\nmodel = \"test\"\n", srv.URL+"/v1"))
	c.ok("consolidate", "--idle", "0")
	return c, notes
}

const listTimes = `[...document.querySelectorAll('.timeline time')].map(e => e.textContent)`

// TestUIBrowser drives headless Chromium against a real cairn serve: a
// search and its hit's lines, a note's injected script shown as text,
// sessions filtered by date, a memory and its provenance, a sync's
// progress updating live.
func TestUIBrowser(t *testing.T) {
	bctx := newBrowser(t)
	_, notes := uiFixture(t)
	base := startServe(t)

	t.Run("search and open a hit", func(t *testing.T) {
		do(t, bctx, "search", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("q")),
			chromedp.SendKeys(chromedp.ID("q"), "busy_timeout\r"), chromedp.WaitVisible(chromedp.CSS(".hit h2 a")))
		href := read(t, bctx, "hit link", chromedp.AttributeValue(chromedp.CSS(".hit h2 a"), "href"))
		if !strings.Contains(href.Value, "db.md") {
			t.Fatalf("first hit opens %q, want db.md", href.Value)
		}
		shoot(t, bctx, "search")
		do(t, bctx, "open the hit", chromedp.Click(chromedp.CSS(".hit h2 a")), chromedp.WaitVisible(chromedp.CSS(".line.hit mark")))
		if marked, lines := text(t, bctx, ".line.hit mark"), text(t, bctx, ".doc"); marked != "busy_timeout" || !strings.Contains(lines, "so writers wait") {
			t.Errorf("hit view marks %q in %q", marked, lines)
		}
		shoot(t, bctx, "document")
	})

	t.Run("injected script shown as text", func(t *testing.T) {
		do(t, bctx, "search zanzibar", chromedp.Navigate(base+"/?q=zanzibar&min=0"), chromedp.WaitVisible(chromedp.CSS(".snippet")))
		title := read(t, bctx, "title", chromedp.Title())
		live := jsEval[int](t, bctx, `document.querySelectorAll('main script, main img').length`)
		snippet := text(t, bctx, ".snippet")
		if strings.Contains(title, "pwned") || live != 0 || !strings.Contains(snippet, "<script>document.title='pwned'</script>") {
			t.Errorf("title %q, %d live elements in main, snippet %q: the note's markup must show as text", title, live, snippet)
		}
	})

	t.Run("filter sessions by date", func(t *testing.T) {
		do(t, bctx, "sessions", chromedp.Navigate(base+"/ui/sessions"), chromedp.WaitVisible(chromedp.CSS(".timeline")))
		all := jsEval[[]string](t, bctx, listTimes)
		shoot(t, bctx, "sessions")
		do(t, bctx, "filter", chromedp.SetValue(chromedp.CSS(`input[name=from]`), "2026-05-05"),
			chromedp.SetValue(chromedp.CSS(`input[name=to]`), "2026-05-05"), chromedp.Click(chromedp.CSS(`.filters button`)),
			chromedp.WaitVisible(chromedp.CSS(`input[name=from][value="2026-05-05"]`)))
		filtered := jsEval[[]string](t, bctx, listTimes)
		if len(filtered) == 0 || len(filtered) >= len(all) {
			t.Fatalf("sessions %v, filtered to 2026-05-05: %v", all, filtered)
		}
		for _, s := range filtered {
			if !strings.HasPrefix(s, "2026-05-05") {
				t.Errorf("session started %q shown for 2026-05-05", s)
			}
		}
	})

	t.Run("open a memory and follow its provenance", func(t *testing.T) {
		do(t, bctx, "memories", chromedp.Navigate(base+"/ui/memories?kind=preference"), chromedp.WaitVisible(chromedp.CSS("tbody a")))
		shoot(t, bctx, "memories")
		do(t, bctx, "open the memory", chromedp.Click(chromedp.CSS("tbody a")), chromedp.WaitVisible(chromedp.CSS(".sources a")))
		if title := text(t, bctx, "h1"); !strings.Contains(title, "zebrafish") {
			t.Errorf("memory page title %q", title)
		}
		shoot(t, bctx, "memory")
		src := read(t, bctx, "source link", chromedp.AttributeValue(chromedp.CSS(".sources a"), "href"))
		u, err := url.Parse(src.Value)
		if err != nil {
			t.Fatal(err)
		}
		from, _ := strconv.Atoi(u.Query().Get("from"))
		to, _ := strconv.Atoi(u.Query().Get("to"))
		do(t, bctx, "follow the source", chromedp.Click(chromedp.CSS(".sources a")), chromedp.WaitVisible(chromedp.CSS(".line.hit")))
		ids := jsEval[[]string](t, bctx, `[...document.querySelectorAll('.line.hit')].map(e => e.id)`)
		lines := jsEval[string](t, bctx, `[...document.querySelectorAll('.line.hit .text')].map(e => e.textContent).join("\n")`)
		if path := text(t, bctx, "h1.path"); !strings.HasPrefix(path, "cairn://sessions/") || from < 1 || len(ids) != to-from+1 ||
			ids[0] != fmt.Sprintf("L%d", from) || strings.TrimSpace(lines) == "" {
			t.Errorf("provenance lines %d-%d opened %q with highlighted lines %v: %q", from, to, path, ids, lines)
		}
	})

	t.Run("keyboard, 200% zoom, nothing from the network", func(t *testing.T) {
		do(t, bctx, "memories", chromedp.Navigate(base+"/ui/memories"), chromedp.WaitVisible(chromedp.CSS("tbody a")),
			chromedp.KeyEvent("\t"))
		if focused := jsEval[string](t, bctx, `document.activeElement.className`); focused != "skip" {
			t.Errorf("the first Tab focuses %q, want the skip link", focused)
		}
		do(t, bctx, "skip", chromedp.KeyEvent("\r"))
		if focused := jsEval[string](t, bctx, `document.activeElement.id`); focused != "main" {
			t.Errorf("Enter on the skip link focuses %q, want main", focused)
		}
		memory := read(t, bctx, "memory link", chromedp.AttributeValue(chromedp.CSS("tbody a"), "href")).Value
		pages := []string{"/?q=busy_timeout&min=0", "/ui/doc?path=cairn%3A%2F%2Fnotes%2Fdb.md&from=3&to=3", "/ui/corpora", "/ui/sessions",
			"/ui/memories", memory, "/ui/clusters", "/ui/inbox", "/ui/diagnostics"}
		// 200% zoom of a 1200 px window: a 600 CSS px wide viewport at twice the pixels.
		do(t, bctx, "zoom", chromedp.EmulateViewport(600, 900, chromedp.EmulateScale(2)))
		for _, p := range pages {
			do(t, bctx, p, chromedp.Navigate(base+p), chromedp.WaitVisible(chromedp.CSS("main h1, main form")))
			if wide := jsEval[int](t, bctx, `document.documentElement.scrollWidth - window.innerWidth`); wide > 0 {
				t.Errorf("%s at 200%%: %d px wider than the window (scrolls sideways)", p, wide)
			}
			if foreign := jsEval[[]string](t, bctx, `performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith(location.origin))`); len(foreign) > 0 {
				t.Errorf("%s loads from elsewhere: %v", p, foreign)
			}
		}
		do(t, bctx, "unzoom", chromedp.EmulateViewport(1200, 900))
		do(t, bctx, "graph", chromedp.Navigate(base+memory), chromedp.WaitVisible(chromedp.CSS("svg.graph")))
		if n := jsEval[int](t, bctx, `[...document.querySelectorAll('svg.graph a')].filter(a => a.tabIndex >= 0).length`); n < 2 {
			t.Errorf("%d graph nodes reachable by keyboard", n)
		}
	})

	t.Run("sync progress updates live", func(t *testing.T) {
		for i := range 1200 {
			note := fmt.Sprintf("# Batch note %d\n\nA new note number %d about quartz and basalt.\n", i, i)
			if err := os.WriteFile(filepath.Join(notes, fmt.Sprintf("new-%04d.md", i)), []byte(note), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		do(t, bctx, "sync", chromedp.Navigate(base+"/ui/corpora"), chromedp.WaitVisible(chromedp.ID("sync-start")),
			chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := chromedp.Evaluate[bool](`window.notReloaded = true`)(ctx, tg)
				return err
			}),
			chromedp.Click(chromedp.ID("sync-start")), chromedp.WaitVisible(chromedp.CSS(`#sync[data-status=completed]`)))
		if !jsEval[bool](t, bctx, `window.notReloaded === true`) {
			t.Fatal("the page reloaded: progress must update in place")
		}
		log := jsEval[[]string](t, bctx, `[...document.querySelectorAll('#sync-log li')].map(e => e.textContent)`)
		partial := regexp.MustCompile(`Syncing notes: (\d+) of (\d+)`)
		seen := false
		for _, l := range log {
			if m := partial.FindStringSubmatch(l); m != nil {
				done, _ := strconv.Atoi(m[1])
				total, _ := strconv.Atoi(m[2])
				seen = seen || done < total && total >= 1200
			}
		}
		if !seen || len(log) == 0 || !strings.Contains(log[len(log)-1], "Sync completed") {
			t.Errorf("progress log %q: want a partial notes count before completion", log)
		}
		if results := text(t, bctx, "#sync-results"); !strings.Contains(results, "notes: ") || !strings.Contains(results, "1200 added") {
			t.Errorf("sync results %q", results)
		}
		// The corpora table follows the sync without a reload.
		do(t, bctx, "counts", chromedp.Poll[chromedp.Void](`document.querySelector('#corpora-table tbody td:nth-of-type(2)').textContent === '1214'`))
		shoot(t, bctx, "corpora")
	})

	t.Run("diagnostics and placeholders", func(t *testing.T) {
		do(t, bctx, "diagnostics", chromedp.Navigate(base+"/ui/diagnostics"), chromedp.WaitVisible(chromedp.CSS("main h2")))
		if main := text(t, bctx, "main"); !strings.Contains(main, "retrieval.chunks") {
			t.Errorf("diagnostics page: %q", main)
		}
		shoot(t, bctx, "diagnostics")
		do(t, bctx, "clusters", chromedp.Navigate(base+"/ui/clusters"), chromedp.WaitVisible(chromedp.CSS("main h1")))
		if main := text(t, bctx, "main"); !strings.Contains(main, "No clusters to show") {
			t.Errorf("clusters page without an embedder: %q", main)
		}
	})
}

// TestUIBrowserToken: with a token the page asks for it once, keeps it in
// sessionStorage and sends it as a header on every page it loads; a wrong
// token is asked for again.
func TestUIBrowserToken(t *testing.T) {
	bctx := newBrowser(t)
	uiFixture(t)
	t.Setenv("CAIRN_TOKEN", "tok-123")
	base := startServe(t)
	do(t, bctx, "wrong token", chromedp.Navigate(base+"/?q=busy_timeout"), chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), "nope\r"), chromedp.WaitVisible(chromedp.ID("token-error")))
	shoot(t, bctx, "login")
	do(t, bctx, "right token", chromedp.SendKeys(chromedp.ID("token"), "tok-123\r"), chromedp.WaitVisible(chromedp.CSS(".hit h2 a")))
	if kept := jsEval[string](t, bctx, `sessionStorage.getItem('cairn-token')`); kept != "tok-123" {
		t.Errorf("sessionStorage token = %q", kept)
	}
	do(t, bctx, "follow a link", chromedp.Click(chromedp.CSS(`nav a[href="/ui/memories"]`)), chromedp.WaitVisible(chromedp.CSS("tbody a")))
	if h1, at := text(t, bctx, "main h1"), read(t, bctx, "location", chromedp.Location()); h1 != "Memories" || !strings.HasSuffix(at, "/ui/memories") {
		t.Errorf("after the link: h1 %q at %q", h1, at)
	}
	do(t, bctx, "a GET form", chromedp.SetValue(chromedp.CSS(`select[name=status]`), "all"), chromedp.Click(chromedp.CSS(`.filters button`)),
		chromedp.WaitReady(chromedp.CSS(`select[name=status] option[value=all][selected]`)))
	if at := read(t, bctx, "location", chromedp.Location()); !strings.Contains(at, "status=all") {
		t.Errorf("form navigated to %q", at)
	}
}

// topicVector embeds a text on four axes: three topics' words and the
// rest, so notes of one topic cluster together.
func topicVector(text string) []float32 {
	axis := map[string]int{"garden": 0, "compost": 0, "soil": 0, "tomatoes": 0,
		"budget": 1, "quarterly": 1, "finance": 1, "spending": 1, "meetup": 2, "community": 2, "group": 2, "support": 2}
	v := make([]float32, 8)
	for i, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
		if a, ok := axis[w]; ok {
			v[a] += 4
		} else {
			v[3+(len(w)+i)%5]++
		}
	}
	return v
}

// fakeEmbeddings answers /v1/embeddings with topicVector of each input.
func fakeEmbeddings(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Input []string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Data []item `json:"data"`
		}{}
		for i, s := range in.Input {
			out.Data = append(out.Data, item{i, topicVector(s)})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestUIBrowserCuration: over notes embedded by a fake endpoint, "Cluster
// now" draws the clusters, a cluster opens with its members, and the
// exact duplicate its fetch found is resolved from the inbox.
func TestUIBrowserCuration(t *testing.T) {
	bctx := newBrowser(t)
	c := newCLI(t)
	notes := t.TempDir()
	topics := [][]string{{"garden", "compost", "soil", "tomatoes"}, {"budget", "quarterly", "finance", "spending"}, {"support", "group", "meetup", "community"}}
	for k, ws := range topics {
		for i := range 20 {
			var b strings.Builder
			for j := range 3 + i%5 {
				b.WriteString(ws[(i+j)%len(ws)] + " ")
			}
			name := filepath.Join(notes, fmt.Sprintf("%s-%02d.md", ws[0], i))
			if err := os.WriteFile(name, []byte(fmt.Sprintf("# %s %d\n\n%snote %d of topic %d.\n", ws[i%4], i, b.String(), i, k)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	shared := "# Shared\n\nbudget finance quarterly spending budget finance\n\n"
	os.WriteFile(filepath.Join(notes, "dup-a.md"), []byte(shared+"# A\n\nbudget budget quarterly\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "dup-b.md"), []byte(shared+"# B\n\nfinance finance spending\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	appendConfig(t, c, fmt.Sprintf("\n[embedder]\nprovider = \"openai\"\nmodel = \"topics\"\nbase_url = %q\n", fakeEmbeddings(t).URL+"/v1"))
	c.ok("sync")
	base := startServe(t)

	do(t, bctx, "cluster now", chromedp.Navigate(base+"/ui/clusters"), chromedp.WaitVisible(chromedp.ID("recluster")),
		chromedp.Click(chromedp.ID("recluster")), chromedp.WaitVisible(chromedp.CSS("svg.scatter")))
	points := jsEval[int](t, bctx, `document.querySelectorAll('svg.scatter circle').length`)
	clusters := jsEval[[]string](t, bctx, `[...document.querySelectorAll('tbody th a')].map(a => a.getAttribute('href'))`)
	if points < 20 || len(clusters) < 2 {
		t.Fatalf("clusters page: %d points, clusters %v", points, clusters)
	}
	shoot(t, bctx, "clusters")
	for _, href := range clusters {
		do(t, bctx, "open cluster", chromedp.Navigate(base+href), chromedp.WaitVisible(chromedp.CSS("td.member-text")))
	}
	do(t, bctx, "inbox", chromedp.Navigate(base+"/ui/inbox"), chromedp.WaitVisible(chromedp.CSS("form.task-form")))
	task := read(t, bctx, "task id", chromedp.AttributeValue(chromedp.CSS("form.task-form"), "data-task")).Value
	if h2 := text(t, bctx, "article.task h2"); !strings.Contains(h2, "exact_duplicate") {
		t.Errorf("first task %q", h2)
	}
	shoot(t, bctx, "inbox")
	do(t, bctx, "resolve", chromedp.SendKeys(chromedp.CSS(`form.task-form input[name=note]`), "both stay: the sections after differ"),
		chromedp.Click(chromedp.CSS(`form.task-form button[value=resolve]`)),
		chromedp.Poll[chromedp.Void](`document.getElementById('task-state').textContent.includes('resolved')`))
	if left := jsEval[int](t, bctx, fmt.Sprintf(`document.querySelectorAll('form[data-task=%q]').length`, task)); left != 0 {
		t.Errorf("task %s still pending after Resolve", task)
	}
	do(t, bctx, "resolved list", chromedp.Navigate(base+"/ui/inbox?status=resolved"), chromedp.WaitVisible(chromedp.CSS("article.task")))
	if main := text(t, bctx, "main"); !strings.Contains(main, "both stay") {
		t.Errorf("resolved inbox: %q", main)
	}
}
