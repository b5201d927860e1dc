package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// topicEmbeddings is an OpenAI-compatible embeddings endpoint: each word
// lands in one of 16 buckets by its hash, so notes of the same words embed
// together.
func topicEmbeddings(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		var data []string
		for i, in := range req.Input {
			v := make([]float64, 16)
			for _, word := range strings.FieldsFunc(strings.ToLower(in), func(r rune) bool { return r < 'a' || r > 'z' }) {
				h := fnv.New32a()
				h.Write([]byte(word))
				v[h.Sum32()%16]++
			}
			var n float64
			for _, x := range v {
				n += x * x
			}
			for j := range v {
				v[j] /= math.Sqrt(n) + 1e-9
			}
			b, _ := json.Marshal(v)
			data = append(data, fmt.Sprintf(`{"index":%d,"embedding":%s}`, i, b))
		}
		fmt.Fprintf(w, `{"data":[%s]}`, strings.Join(data, ","))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCLIClustersAndTasks: clusters rebuild, list and show; a date sort
// filing tasks; tasks list and update with an event time; bad flags exit 2
// naming the flag.
func TestCLIClustersAndTasks(t *testing.T) {
	srv := topicEmbeddings(t)
	c := newCLI(t)
	notes := t.TempDir()
	for topic, ws := range [][]string{{"garden", "compost", "soil"}, {"budget", "finance", "spending"}} {
		for i := range 6 {
			os.WriteFile(filepath.Join(notes, fmt.Sprintf("t%d-%d.md", topic, i)),
				[]byte(fmt.Sprintf("# %s\n\n%s\n", ws[i%3], strings.Repeat(ws[(i+1)%3]+" "+ws[i%3]+" ", 2+i))), 0o644)
		}
	}
	c.ok("corpus", "add", "notes", notes)
	f, _ := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"openai\"\nmodel = \"topics\"\nbase_url = %q\n", srv.URL+"/v1")
	f.Close()
	c.ok("sync")
	if out := c.ok("clusters", "list"); !strings.Contains(out, "no clusters yet") {
		t.Errorf("list before a run: %q", out)
	}
	out := c.ok("clusters", "rebuild", "--min-cluster-size", "3", "--seed", "7")
	if !strings.HasPrefix(out, "run ") || !strings.Contains(out, "12 chunks") {
		t.Fatalf("rebuild: %q", out)
	}
	var list struct {
		Clusters []struct{ ClusterID string }
	}
	if err := json.Unmarshal([]byte(c.ok("clusters", "list", "--json")), &list); err != nil || len(list.Clusters) < 2 {
		t.Fatalf("list --json: %+v, %v", list, err)
	}
	id := list.Clusters[0].ClusterID
	if out := c.ok("clusters", "list"); !strings.Contains(out, id) || !strings.Contains(out, "cairn://notes/") {
		t.Errorf("list: %q", out)
	}
	show := c.ok("clusters", "show", id, "--sort", "date_asc", "--top-k", "2")
	if !strings.Contains(show, "by date_asc") || !strings.Contains(show, "no event time") || !strings.Contains(show, "more: --offset 2") {
		t.Errorf("show: %q", show)
	}
	var tasks struct {
		Tasks []struct{ ID, Type, Status string }
	}
	if err := json.Unmarshal([]byte(c.ok("tasks", "list", "--json")), &tasks); err != nil || len(tasks.Tasks) != 2 || tasks.Tasks[0].Type != "ambiguous_event_time" {
		t.Fatalf("tasks after a date sort of two: %+v, %v", tasks, err)
	}
	upd := c.ok("tasks", "update", tasks.Tasks[0].ID, "--action", "resolve", "--note", "from the log", "--event-time", "2025-04-01T10:00:00+02:00",
		"--evidence", "the garden log of that week")
	if upd != "task "+tasks.Tasks[0].ID+" resolved\n" {
		t.Errorf("update: %q", upd)
	}
	if out := c.ok("tasks", "list", "--status", "resolved"); !strings.Contains(out, tasks.Tasks[0].ID) {
		t.Errorf("resolved tasks: %q", out)
	}
	if out := c.ok("clusters", "show", id, "--sort", "date_asc", "--top-k", "50"); !strings.Contains(out, "2025-04-01 (agent_verified)") {
		t.Errorf("show after the annotation: %q", out)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"clusters", "rebuild", "--min-cluster-size", "1"}, "--min-cluster-size 1: allowed 2 to 100000"},
		{[]string{"clusters", "rebuild", "--method", "pca"}, `--method "pca": allowed umap, none`},
		{[]string{"clusters", "rebuild", "--selection", "top"}, `--selection "top": allowed eom, leaf`},
		{[]string{"clusters", "rebuild", "--seed", "-1"}, "--seed -1: allowed 0 to 4294967295"},
		{[]string{"clusters", "rebuild", "--min-dist", "1.5"}, "--min-dist 1.5: allowed 0 to 1"},
		{[]string{"clusters", "rebuild", "--epsilon", "-0.5"}, "--epsilon -0.5: allowed 0 or more"},
		{[]string{"clusters", "list", "--limit", "0"}, "--limit 0: allowed 1 to 50"},
		{[]string{"clusters", "show", "nonexistent"}, `cluster ID "nonexistent": allowed 10 lowercase hex digits (see cairn clusters list)`},
		{[]string{"clusters", "show", id, "--sort", "newest"}, `--sort "newest": allowed`},
		{[]string{"clusters", "show", id, "--top-k", "0"}, "--top-k 0: allowed 1 to 50"},
		{[]string{"clusters", "show", id, "--offset", "-1"}, "--offset -1: allowed 0 or more"},
		{[]string{"tasks", "list", "--status", "open"}, `--status "open": allowed`},
		{[]string{"tasks", "list", "--limit", "0"}, "--limit 0: allowed 1 to"},
		{[]string{"tasks", "update", tasks.Tasks[1].ID, "--action", "resolve"}, "annotation is required"},
		{[]string{"tasks", "update", tasks.Tasks[1].ID, "--action", "close"}, `--action "close": allowed`},
	} {
		_, errs, code := c.run(bad.args...)
		if code != 2 || !strings.Contains(errs, bad.want) {
			t.Errorf("cairn %v: exit %d, stderr %q; want 2 with %q", bad.args, code, errs, bad.want)
		}
		if strings.Contains(errs, "memory_") {
			t.Errorf("cairn %v names an MCP tool: %q", bad.args, errs)
		}
	}
	// A cluster ID of no run names the CLI command to list them, not the
	// MCP tool; so does the stale line once the index changes.
	if _, errs, code := c.run("clusters", "show", "ffffffffff"); code == 0 || !strings.Contains(errs, "cairn clusters list") || strings.Contains(errs, "memory_") {
		t.Errorf("show of an unknown cluster: exit %d, stderr %q", code, errs)
	}
	os.WriteFile(filepath.Join(notes, "new.md"), []byte("# compost\n\ncompost soil garden\n"), 0o644)
	c.ok("sync")
	if out := c.ok("clusters", "list"); !strings.Contains(out, "stale since ") || !strings.Contains(out, "run cairn clusters rebuild") || strings.Contains(out, "memory_") {
		t.Errorf("list of a stale run: %q", out)
	}
	var stale struct{ Hint string }
	if err := json.Unmarshal([]byte(c.ok("clusters", "list", "--json")), &stale); err != nil || !strings.Contains(stale.Hint, "memory_recluster") {
		t.Errorf("list --json keeps the engine's hint (the MCP tool's answer): %+v, %v", stale, err)
	}
	if _, errs, code := c.run("tasks", "update", "ffffffffffffffff", "--action", "defer"); code == 0 || !strings.Contains(errs, "not found") {
		t.Errorf("update of an unknown task: %d %q", code, errs)
	}
}
