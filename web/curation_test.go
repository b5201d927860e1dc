package web

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/cluster"
	"github.com/cairnmemory/cairn/engine"
)

// topicEmbedder puts each of three topics' words on its own axis and any
// other word on a hashed one, so notes of one topic cluster together.
type topicEmbedder struct{}

var topicAxis = map[string]int{"garden": 0, "compost": 0, "soil": 0, "tomatoes": 0,
	"budget": 1, "quarterly": 1, "finance": 1, "spending": 1, "meetup": 2, "community": 2, "group": 2, "support": 2}

func (topicEmbedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "test", Model: "topics", Dimension: 12, Normalized: true}
}

func (topicEmbedder) Embed(_ context.Context, _ string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 12)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return r < 'a' || r > 'z' }) {
			axis, ok := topicAxis[w]
			if !ok {
				h := fnv.New32a()
				h.Write([]byte(w))
				axis = 3 + int(h.Sum32()%9)
			}
			v[axis]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n) + 1e-9)
		}
		out[i] = v
	}
	return out, nil
}

// topicNotes are eight notes per topic and two notes sharing a section
// (an exact duplicate, which a fetch turns into a task).
func topicNotes() map[string]string {
	words := [][]string{{"garden", "compost", "soil", "tomatoes"}, {"budget", "quarterly", "finance", "spending"},
		{"support", "group", "meetup", "community"}}
	files := map[string]string{}
	for topic, ws := range words {
		for i := range 8 {
			var b strings.Builder
			for j := range 4 + i {
				b.WriteString(ws[(i+j)%len(ws)] + " ")
			}
			files[fmt.Sprintf("t%d/n%d.md", topic, i)] = "# " + ws[i%len(ws)] + "\n\n" + b.String() + "\n"
		}
	}
	shared := "# Shared\n\nbudget finance quarterly spending budget finance\n\n"
	files["dup/a.md"] = shared + "# A\n\nbudget budget quarterly\n"
	files["dup/b.md"] = shared + "# B\n\nfinance finance spending\n"
	return files
}

// TestClustersAndInbox: before a run the clusters page says what to run;
// after one it draws the members' layout and lists the clusters; a
// cluster's page lists its members; the exact duplicate its fetch found
// is in the inbox, and resolving it there moves it to resolved.
func TestClustersAndInbox(t *testing.T) {
	s := newServerWith(t, "", topicNotes(), topicEmbedder{})
	if _, _, body := s.get(t, "/ui/clusters"); !strings.Contains(body, "Cluster now") {
		t.Errorf("clusters before a run:\n%s", body)
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/ui/recluster", nil)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("recluster without the header: %v %v", res.StatusCode, err)
	} else {
		res.Body.Close()
	}
	run, err := s.eng.Recluster(context.Background(), &engine.ReclusterOptions{Cluster: cluster.Options{HDBSCAN: cluster.HDBSCAN{MinClusterSize: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	code, _, body := s.get(t, "/ui/clusters")
	points := strings.Count(body, `<circle class="pt k`)
	rows := regexp.MustCompile(`href="/ui/clusters\?id=([0-9a-f]+)">`).FindAllStringSubmatch(body, -1)
	if code != 200 || !strings.Contains(body, `<svg class="scatter"`) || points < run.Members-run.Noise || len(rows) == 0 {
		t.Fatalf("clusters page: status %d, %d points, %d cluster links, run %+v:\n%s", code, points, len(rows), run, body)
	}
	var dupCluster string
	for _, m := range rows {
		_, _, page := s.get(t, "/ui/clusters?id="+m[1])
		if !strings.Contains(page, "Members") || !strings.Contains(page, "cairn://notes/") {
			t.Errorf("cluster %s page:\n%s", m[1], page)
		}
		if strings.Contains(page, "dup/a.md") {
			dupCluster = m[1]
		}
	}
	if dupCluster == "" {
		t.Fatal("no cluster holds the duplicate notes")
	}
	_, _, inbox := s.get(t, "/ui/inbox")
	ids := regexp.MustCompile(`data-task="([^"]+)"`).FindAllStringSubmatch(inbox, -1)
	if !strings.Contains(inbox, "exact_duplicate") || len(ids) == 0 {
		t.Fatalf("inbox after the fetch:\n%s", inbox)
	}
	post := func(body string, hdr bool) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/ui/tasks", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if hdr {
			req.Header.Set(UIHeader, "1")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, fmt.Sprint(out)
	}
	action := fmt.Sprintf(`{"id":%q,"action":"resolve","note":"kept both: different sections follow"}`, ids[0][1])
	if code, out := post(action, false); code != http.StatusForbidden {
		t.Errorf("task action without the header: %d %s", code, out)
	}
	if code, out := post(fmt.Sprintf(`{"id":%q,"action":"frobnicate"}`, ids[0][1]), true); code != http.StatusBadRequest || !strings.Contains(out, "allowed") {
		t.Errorf("bad action: %d %s", code, out)
	}
	if code, out := post(action, true); code != 200 || !strings.Contains(out, "status:resolved") {
		t.Fatalf("resolve: %d %s", code, out)
	}
	if _, _, done := s.get(t, "/ui/inbox?status=resolved"); !strings.Contains(done, ids[0][1]) || !strings.Contains(done, "kept both") {
		t.Errorf("resolved tasks:\n%s", done)
	}
}
