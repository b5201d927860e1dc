package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// TestCurationHTTP: the curation tools on the JSON API answer as over MCP
// (recluster, list, fetch, tasks, update; the judged ones disabled without
// their tables), a bad input is 400 naming the field, and with an access
// file a read-only token may list but not recluster or update tasks, and
// a token without the corpus a run covers reads none of its clusters.
func TestCurationHTTP(t *testing.T) {
	a := curationAgent(t)
	access, err := NewAccess(map[string]Grant{
		sha("writer"): {Name: "writer", Agents: []string{"*"}, Write: true},
		sha("reader"): {Name: "reader", Agents: []string{"*"}},
		sha("other"):  {Name: "other", Agents: []string{"*"}, Corpora: []string{"other"}, Write: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, HTTPOptions{Agents: []*Agent{a}, Access: access})
	post := func(token, path, body string, out any) (int, string) {
		t.Helper()
		code, text := do(t, srv, request{"POST", path, body, map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"}})
		if out != nil && code == http.StatusOK {
			if err := json.Unmarshal([]byte(text), out); err != nil {
				t.Fatalf("%s: %v in %s", path, err, text)
			}
		}
		return code, text
	}
	var list engine.ClusterList
	if code, text := post("reader", "/v1/clusters", `{}`, &list); code != 200 || list.Status != "not_analyzed" {
		t.Fatalf("list before a run: %d %s", code, text)
	}
	if code, text := post("writer", "/v1/clusters/recluster", `{"seed": -1}`, nil); code != 400 || !strings.Contains(text, "seed") {
		t.Errorf("recluster with seed -1: %d %s; want 400 naming seed", code, text)
	}
	if code, text := post("reader", "/v1/clusters/recluster", `{}`, nil); code != 403 || !strings.Contains(text, "read only") {
		t.Errorf("a read-only token's recluster: %d %s; want 403", code, text)
	}
	var run ReclusterOut
	if code, text := post("writer", "/v1/clusters/recluster", `{"hdbscan": {"minClusterSize": 4}, "seed": 7}`, &run); code != 200 || run.Status != "ok" || run.Members != 28 {
		t.Fatalf("recluster: %d %s", code, text)
	}
	if code, text := post("reader", "/v1/clusters", `{"limit": 2}`, &list); code != 200 || list.RunID != run.RunID || len(list.Clusters) != 2 {
		t.Fatalf("list: %d %s", code, text)
	}
	var page engine.ClusterPage
	if code, text := post("reader", "/v1/clusters/fetch", `{"clusterId": "`+list.Clusters[0].ClusterID+`", "topK": 2, "sort": "date_asc"}`, &page); code != 200 || page.Status != "ok" || len(page.Members) != 2 {
		t.Fatalf("fetch: %d %s", code, text)
	}
	if code, text := post("reader", "/v1/clusters/fetch", `{"clusterId": "nothex!!!!"}`, nil); code != 400 || !strings.Contains(text, "clusterId") {
		t.Errorf("fetch of a bad id: %d %s; want 400 naming clusterId", code, text)
	}
	var tasks ListTasksOut
	if code, text := post("reader", "/v1/tasks", `{"limit": 10}`, &tasks); code != 200 || len(tasks.Tasks) == 0 {
		t.Fatalf("tasks after a date sort: %d %s", code, text)
	}
	update := `{"taskId": "` + tasks.Tasks[0].ID + `", "action": "defer"}`
	if code, text := post("reader", "/v1/tasks/update", update, nil); code != 403 || !strings.Contains(text, "read only") {
		t.Errorf("a read-only token's task update: %d %s; want 403", code, text)
	}
	var upd UpdateTaskOut
	if code, text := post("writer", "/v1/tasks/update", update, &upd); code != 200 || upd.Status != "ok" || upd.Task.Status != cairn.TaskDeferred {
		t.Errorf("task update: %d %s", code, text)
	}
	for _, p := range []string{"/v1/audit", "/v1/clusters/review", "/v1/claims/review"} {
		body := map[string]string{"/v1/audit": `{}`, "/v1/clusters/review": `{"clusterId": "` + list.Clusters[0].ClusterID + `"}`,
			"/v1/claims/review": `{"claim": "x", "citations": [{"path": "cairn://notes/a.md", "from": 1, "lines": 1}]}`}[p]
		if code, text := post("reader", p, body, nil); code != 200 || !strings.Contains(text, "disabled") {
			t.Errorf("%s without its tables: %d %s; want status disabled", p, code, text)
		}
	}
	// A token without the run's corpus reads none of it.
	for _, c := range []struct{ path, body string }{{"/v1/clusters", `{}`}, {"/v1/clusters/fetch", `{"clusterId": "` + list.Clusters[0].ClusterID + `"}`}} {
		if code, text := post("other", c.path, c.body, nil); code != 403 || !strings.Contains(text, `\"notes\"`) || strings.Contains(text, "preview") {
			t.Errorf("a token of corpus other, %s: %d %s; want 403 naming notes", c.path, code, text)
		}
	}
	if code, text := post("other", "/v1/tasks", `{}`, &tasks); code != 200 || len(tasks.Tasks) != 0 {
		t.Errorf("a token of corpus other, tasks: %d %s; want none", code, text)
	}
}

// sha is the sha256 hex of a token, as the access file keeps it.
func sha(token string) string {
	s := sha256.Sum256([]byte(token))
	return hex.EncodeToString(s[:])
}

// TestClusterSourcesScoped: a content that a document of another corpus
// also holds does not name that document to a token limited to the run's
// corpus (the corpus condition is in the store's member query); without
// the limit it does. The run covers notes, then a mirror corpus holding a
// copy of a note is added (the run goes stale and stays readable).
func TestClusterSourcesScoped(t *testing.T) {
	notes, mirror, data := t.TempDir(), t.TempDir(), t.TempDir()
	writeCurationNotes(t, notes)
	ctx := context.Background()
	open := func(corpora ...cairn.Corpus) *Agent {
		eng, err := local.Open(ctx, engine.Options{Dir: data, Embedder: topicEmbedder{}, Corpora: corpora})
		if err != nil {
			t.Fatal(err)
		}
		a := NewAgent("default", eng)
		t.Cleanup(func() { a.Close(ctx); eng.Close(ctx) })
		if _, err := eng.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
		return a
	}
	notesCorpus := cairn.Corpus{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}
	first := open(notesCorpus)
	if run, err := first.Recluster(ctx, ReclusterIn{HDBSCAN: &HDBSCANIn{MinClusterSize: ptr(4)}, Seed: ptr(int64(7))}); err != nil || run.Status != "ok" {
		t.Fatalf("recluster: %+v, %v", run, err)
	}
	first.Close(ctx)
	first.Engine().Close(ctx)
	copyTree(t, filepath.Join(notes, "t0"), mirror)
	a := open(notesCorpus, cairn.Corpus{Name: "mirror", Kind: cairn.KindFiles, Paths: []string{mirror}, Glob: cairn.DefaultGlob})
	access, err := NewAccess(map[string]Grant{sha("all"): {Name: "all", Agents: []string{"*"}}, sha("notes"): {Name: "notes", Agents: []string{"*"}, Corpora: []string{"Notes"}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, HTTPOptions{Agents: []*Agent{a}, Access: access})
	mirrored := func(token string) int {
		hdr := map[string]string{"Authorization": "Bearer " + token}
		code, text := do(t, srv, request{"POST", "/v1/clusters", `{"limit": 50}`, hdr})
		var list engine.ClusterList
		if err := json.Unmarshal([]byte(text), &list); code != 200 || err != nil || len(list.Clusters) == 0 {
			t.Fatalf("%s: list: %d %s", token, code, text)
		}
		n := strings.Count(text, "cairn://mirror/")
		for _, c := range list.Clusters {
			_, page := do(t, srv, request{"POST", "/v1/clusters/fetch", `{"clusterId": "` + c.ClusterID + `", "topK": 50}`, hdr})
			n += strings.Count(page, "cairn://mirror/")
		}
		return n
	}
	if n := mirrored("all"); n == 0 {
		t.Fatalf("an unlimited token sees no mirror source: the fixture is wrong")
	}
	if n := mirrored("notes"); n != 0 {
		t.Errorf("a token limited to notes sees %d mirror sources; want none", n)
	}
}
