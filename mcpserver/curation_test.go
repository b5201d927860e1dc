package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/local"
)

// topicEmbedder is a hand-written fake: each word lands in one of 32
// buckets by its hash, so notes made of the same few words embed close
// together and notes of other words far apart.
type topicEmbedder struct{}

func (topicEmbedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "test", Model: "topics", Dimension: 32, Normalized: true}
}

func (topicEmbedder) Embed(_ context.Context, _ string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 32)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return r < 'a' || r > 'z' }) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%32]++
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

// writeCurationNotes writes three topics of eight notes, a dated note and
// two notes sharing their first section into dir.
func writeCurationNotes(t testing.TB, dir string) {
	words := [][]string{{"garden", "compost", "soil", "tomatoes"}, {"budget", "quarterly", "finance", "spending"},
		{"support", "group", "meetup", "community"}}
	for topic, ws := range words {
		for i := range 8 {
			var b strings.Builder
			for j := range 4 + i {
				b.WriteString(ws[(i+j)%len(ws)] + " ")
			}
			write(t, filepath.Join(dir, fmt.Sprintf("t%d/n%d.md", topic, i)), "# "+ws[i%len(ws)]+"\n\n"+b.String()+"\n")
		}
	}
	write(t, filepath.Join(dir, "journal/2024-03-05.md"), "# Day\n\ngarden compost soil tomatoes garden soil\n")
	shared := "# Shared\n\nbudget finance quarterly spending budget finance\n\n"
	write(t, filepath.Join(dir, "dup/a.md"), shared+"# A\n\nbudget budget quarterly\n")
	write(t, filepath.Join(dir, "dup/b.md"), shared+"# B\n\nfinance finance spending\n")
}

func curationAgent(t *testing.T) *Agent {
	t.Helper()
	notes, data := t.TempDir(), t.TempDir()
	writeCurationNotes(t, notes)
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: data, Embedder: topicEmbedder{},
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}}})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAgent("default", eng)
	t.Cleanup(func() {
		a.Close(ctx)
		eng.Close(ctx)
	})
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestCurationTools calls every curation tool over the SDK's in-memory
// transport: outputs match their schemas, bad inputs are tool errors that
// name the field.
func TestCurationTools(t *testing.T) {
	cs := connect(t, curationAgent(t))
	var list engine.ClusterList
	callOK(t, cs, ToolListClusters, map[string]any{}, &list)
	if list.Status != "not_analyzed" || !list.Stale || list.Noise != nil {
		t.Fatalf("list before a run: %+v", list)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"hdbscan": map[string]any{"minClusterSize": 1}}, "hdbscan.minClusterSize"},
		{map[string]any{"space": map[string]any{"nComponents": 0}}, "space.nComponents"},
		{map[string]any{"space": map[string]any{"method": "pca"}}, "space.method"},
		{map[string]any{"seed": -1}, "seed"},
		{map[string]any{"hdbscan": map[string]any{"clusterSelectionEpsilon": -0.5}}, "clusterSelectionEpsilon"},
		{map[string]any{"spaces": map[string]any{}}, "unknown field"},
	} {
		text, isErr := call(t, cs, ToolRecluster, c.args)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("recluster %v: %v %s, want a tool error naming %s", c.args, isErr, text, c.want)
		}
	}
	var run ReclusterOut
	callOK(t, cs, ToolRecluster, map[string]any{"hdbscan": map[string]any{"minClusterSize": 4}, "seed": 7}, &run)
	if run.Status != "ok" || run.Members != 28 || run.Clusters < 2 || run.Stale {
		t.Fatalf("recluster: %+v", run)
	}
	callOK(t, cs, ToolListClusters, map[string]any{"limit": 2}, &list)
	if list.Status != "ok" || list.RunID != run.RunID || len(list.Clusters) != 2 || list.Clusters[0].Preview == nil {
		t.Fatalf("list: %+v", list)
	}
	var page engine.ClusterPage
	callOK(t, cs, ToolFetchCluster, map[string]any{"clusterId": list.Clusters[0].ClusterID, "topK": 2, "sort": "date_asc"}, &page)
	if page.Status != "ok" || len(page.Members) != 2 || !page.Page.HasMore || *page.Page.NextOffset != 2 {
		t.Fatalf("fetch: %+v", page)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"clusterId": "nothex!!!!"}, "clusterId"},
		{map[string]any{"clusterId": list.Clusters[0].ClusterID, "topK": 0}, "topK"},
		{map[string]any{"clusterId": list.Clusters[0].ClusterID, "sort": "newest"}, "sort"},
		{map[string]any{"clusterId": list.Clusters[0].ClusterID, "offset": -3}, "offset"},
	} {
		if text, isErr := call(t, cs, ToolFetchCluster, c.args); !isErr || !strings.Contains(text, c.want) {
			t.Errorf("fetch %v: %v %s, want a tool error naming %s", c.args, isErr, text, c.want)
		}
	}
	var tasks ListTasksOut
	callOK(t, cs, ToolListTasks, map[string]any{"limit": 10}, &tasks)
	if len(tasks.Tasks) == 0 {
		t.Fatalf("no tasks after a date sort: %+v", tasks)
	}
	var amb *engine.Task
	for i, tk := range tasks.Tasks {
		if tk.Type == cairn.TaskAmbiguousEventTime {
			amb = &tasks.Tasks[i]
			break
		}
	}
	if amb == nil || amb.Detail["instruction"] == nil || amb.Status != "pending" {
		t.Fatalf("no ambiguous_event_time task with an instruction: %+v", tasks.Tasks)
	}
	if text, isErr := call(t, cs, ToolListTasks, map[string]any{"status": "open"}); !isErr || !strings.Contains(text, "status") {
		t.Errorf("list tasks status open: %v %s", isErr, text)
	}
	if text, isErr := call(t, cs, ToolUpdateTask, map[string]any{"taskId": amb.ID, "action": "resolve"}); !isErr || !strings.Contains(text, "annotation") {
		t.Errorf("resolve without an annotation: %v %s", isErr, text)
	}
	var upd UpdateTaskOut
	callOK(t, cs, ToolUpdateTask, map[string]any{"taskId": amb.ID, "action": "resolve", "note": "dated",
		"annotation": map[string]any{"scope": "document", "eventTime": "2022-02-02T10:00:00-05:00", "basis": "frontmatter", "evidence": "date: 2022-02-02"}}, &upd)
	if upd.Status != "ok" || upd.Task.Status != "resolved" {
		t.Fatalf("update: %+v", upd)
	}
	var missing UpdateTaskOut
	callOK(t, cs, ToolUpdateTask, map[string]any{"taskId": "0000000000000000", "action": "defer"}, &missing)
	if missing.Status != "not_found" || missing.Task != nil {
		t.Errorf("update of an unknown task: %+v", missing)
	}
}

// TestJudgedCurationGates: without the tables or a judge the judged tools
// answer disabled; with a judge whose key is missing, unavailable; a
// second audit while one runs, busy.
func TestJudgedCurationGates(t *testing.T) {
	a := curationAgent(t)
	cs := connect(t, a)
	claim := map[string]any{"claim": "x", "citations": []any{map[string]any{"path": "cairn://notes/t0/n0.md", "from": 1, "lines": 1}}}
	status := func(tool string, args map[string]any) string {
		t.Helper()
		var out struct{ Status, Reason string }
		callOK(t, cs, tool, args, &out)
		return out.Status + ": " + out.Reason
	}
	for _, tool := range []string{ToolAuditQuality, ToolReviewCluster, ToolReviewClaim} {
		args := map[string]any{}
		switch tool {
		case ToolReviewCluster:
			args = map[string]any{"clusterId": "0123456789"}
		case ToolReviewClaim:
			args = claim
		}
		if got := status(tool, args); !strings.HasPrefix(got, "disabled: not enabled") {
			t.Errorf("%s with no curation: %s", tool, got)
		}
		a.Curation = &Curation{AuditEnabled: true, ReviewEnabled: true, AuditCorpora: []string{"notes"}, ReviewCorpora: []string{"notes"}}
		if got := status(tool, args); !strings.HasPrefix(got, "disabled: no judge") {
			t.Errorf("%s with no judge: %s", tool, got)
		}
		a.Curation.Judge = nopJudge{}
		a.Curation.Credential = func() string { return "missing" }
		if got := status(tool, args); got != "unavailable: judge key missing" {
			t.Errorf("%s with a missing key: %s", tool, got)
		}
		a.Curation = nil
	}
	var diag DiagnosticsOut
	callOK(t, cs, ToolDiagnostics, map[string]any{}, &diag)
	if diag.Enabled.QualityAudit || diag.Enabled.EvidenceReview {
		t.Errorf("diagnostics with no curation: %+v", diag.Enabled)
	}
	a.Curation = &Curation{AuditEnabled: true, AuditCorpora: []string{"notes"}, Judge: nopJudge{}}
	callOK(t, cs, ToolDiagnostics, map[string]any{}, &diag)
	if !diag.Enabled.QualityAudit || diag.Enabled.EvidenceReview {
		t.Errorf("diagnostics with the audit enabled: %+v", diag.Enabled)
	}
	a.Curation.audit.Lock()
	if got := status(ToolAuditQuality, map[string]any{}); !strings.HasPrefix(got, "busy") {
		t.Errorf("a second audit: %s", got)
	}
	a.Curation.audit.Unlock()
	if text, isErr := call(t, cs, ToolReviewClaim, map[string]any{"claim": " ", "citations": claim["citations"]}); !isErr || !strings.Contains(text, "claim") {
		t.Errorf("a blank claim: %v %s", isErr, text)
	}
}

// nopJudge answers nothing; the gate tests never reach it.
type nopJudge struct{}

func (nopJudge) Ask(context.Context, *judge.Request) (*judge.Judgment, error) {
	return nil, errors.New("nopJudge: not expected")
}
func (nopJudge) Policy(r *judge.Rubric) string { return "nop:" + r.ID }
