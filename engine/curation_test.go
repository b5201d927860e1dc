package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/cluster"
)

// curationNotes are three topics of eight notes each in the words the
// conceptEmbedder maps to one concept, a dated note, and two notes whose
// first section is the same text (an exact duplicate).
func curationNotes() map[string]string {
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
	files["journal/2024-03-05.md"] = "# Day\n\ngarden compost soil tomatoes garden soil\n"
	shared := "# Shared\n\nbudget finance quarterly spending budget finance\n\n"
	files["dup/a.md"] = shared + "# A\n\nbudget budget quarterly\n"
	files["dup/b.md"] = shared + "# B\n\nfinance finance spending\n"
	return files
}

func reclusterFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t, curationNotes(), Options{Embedder: &conceptEmbedder{model: "v1"}})
	f.sync()
	return f
}

func smallClusters() *ReclusterOptions {
	return &ReclusterOptions{Cluster: cluster.Options{HDBSCAN: cluster.HDBSCAN{MinClusterSize: 4}}}
}

func TestReclusterListFetch(t *testing.T) {
	ctx := context.Background()
	f := reclusterFixture(t)
	if l, err := f.eng.ListClusters(ctx, 0); err != nil || l.Status != "not_analyzed" || !l.Stale || l.Hint == "" {
		t.Fatalf("list before a run: %+v, %v", l, err)
	}
	if p, err := f.eng.FetchCluster(ctx, FetchClusterOptions{ClusterID: "0123456789"}); err != nil || p.Status != "not_analyzed" {
		t.Fatalf("fetch before a run: %+v, %v", p, err)
	}
	run, err := f.eng.Recluster(ctx, smallClusters())
	if err != nil {
		t.Fatal(err)
	}
	// 24 topic notes + the dated one, one chunk each; a.md and b.md two
	// chunks each, the first the same text: 29 chunks, 28 unique.
	if run.Status != "ok" || run.Members != 28 || run.Clusters < 2 || run.Stale || run.StaleSince != nil || len(run.InputDigest) != 64 || run.Dimensions != 16 {
		t.Fatalf("recluster: %+v", run)
	}
	again, err := f.eng.Recluster(ctx, smallClusters())
	if err != nil || again.InputDigest != run.InputDigest || again.RunID == run.RunID || again.Clusters != run.Clusters || again.Noise != run.Noise {
		t.Fatalf("recluster of the same input: %+v, %v; first %+v", again, err, run)
	}
	l, err := f.eng.ListClusters(ctx, 0)
	if err != nil || l.Status != "ok" || l.RunID != again.RunID || l.Stale || l.AnalyzedAt == nil || len(l.Clusters) != again.Clusters {
		t.Fatalf("list: %+v, %v", l, err)
	}
	total := 0
	for i, c := range l.Clusters {
		total += c.Size
		if i > 0 && c.Size > l.Clusters[i-1].Size {
			t.Errorf("cluster %d larger than the one before it", i)
		}
		if c.Preview == nil || c.Preview.Text == "" || len(c.Preview.Text) > PreviewBytes || len(c.Preview.SourcePaths) == 0 || c.AvailableSize != c.Size {
			t.Errorf("cluster %s: %+v preview %+v", c.ClusterID, c, c.Preview)
		}
	}
	noise := 0
	if l.Noise != nil {
		noise = l.Noise.Size
	}
	if total+noise != 28 {
		t.Errorf("clusters hold %d and noise %d, want 28 in all", total, noise)
	}
	if one, _ := f.eng.ListClusters(ctx, 1); len(one.Clusters) != 1 || one.Clusters[0].ClusterID != l.Clusters[0].ClusterID {
		t.Errorf("list limit 1: %+v", one.Clusters)
	}
	first := l.Clusters[0]
	for _, sort := range FetchSorts {
		var got []ClusterMember
		for off := 0; ; {
			p, err := f.eng.FetchCluster(ctx, FetchClusterOptions{ClusterID: first.ClusterID, TopK: 3, Offset: off, Sort: sort})
			if err != nil || p.Status != "ok" || p.Page.Total != first.Size || p.Page.Offset != off {
				t.Fatalf("fetch %s at %d: %+v, %v", sort, off, p, err)
			}
			got = append(got, p.Members...)
			if !p.Page.HasMore {
				if p.Page.NextOffset != nil {
					t.Errorf("fetch %s: last page with a next offset", sort)
				}
				break
			}
			off = *p.Page.NextOffset
		}
		if len(got) != first.Size {
			t.Fatalf("fetch %s: %d members over the pages, want %d", sort, len(got), first.Size)
		}
		for i := 1; i < len(got); i++ {
			a, b := got[i-1], got[i]
			switch sort {
			case SortScoreDesc:
				if b.Probability > a.Probability {
					t.Errorf("%s: member %d probability %v after %v", sort, i, b.Probability, a.Probability)
				}
			case SortScoreAsc:
				if b.Probability < a.Probability {
					t.Errorf("%s: member %d probability %v after %v", sort, i, b.Probability, a.Probability)
				}
			case SortRepresentative:
				if a.RepresentativeRank == nil || b.RepresentativeRank != nil && *b.RepresentativeRank <= *a.RepresentativeRank {
					t.Errorf("%s: member %d rank %v after %v", sort, i, b.RepresentativeRank, a.RepresentativeRank)
				}
			}
		}
		for _, m := range got {
			if m.Text == "" || m.ContentFingerprint != fingerprint(m.Text) || len(m.SourcePaths) == 0 || m.SourceModifiedAt == nil {
				t.Errorf("%s: member %+v", sort, m)
			}
		}
	}
	for _, bad := range []FetchClusterOptions{{ClusterID: "XYZ"}, {ClusterID: first.ClusterID, TopK: 51}, {ClusterID: first.ClusterID, Offset: -1},
		{ClusterID: first.ClusterID, Sort: "date"}} {
		if _, err := f.eng.FetchCluster(ctx, bad); !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("fetch %+v: %v, want ErrInvalid", bad, err)
		}
	}
	if p, err := f.eng.FetchCluster(ctx, FetchClusterOptions{ClusterID: clusterRef(run.RunID, 0)}); err != nil || p.Status != "not_found" || p.Hint == "" {
		t.Errorf("fetch with a ref of the replaced run: %+v, %v", p, err)
	}
	if _, err := f.eng.ListClusters(ctx, 51); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("list limit 51: %v", err)
	}
	f.write("t0/new.md", "# New\n\ngarden soil\n")
	f.sync()
	if l, _ := f.eng.ListClusters(ctx, 0); !l.Stale || l.StaleSince == nil || l.Hint == "" {
		t.Errorf("list after a sync that indexed a note: stale %v since %v hint %q", l.Stale, l.StaleSince, l.Hint)
	}
}

// allMembers fetches every member of every cluster and the noise with a
// sort, 50 a page.
func allMembers(t *testing.T, eng *Engine, sort string) map[string]ClusterMember {
	t.Helper()
	ctx := context.Background()
	l, err := eng.ListClusters(ctx, MaxClusterList)
	if err != nil {
		t.Fatal(err)
	}
	refs := []string{}
	for _, c := range l.Clusters {
		refs = append(refs, c.ClusterID)
	}
	if l.Noise != nil {
		refs = append(refs, l.Noise.ClusterID)
	}
	out := map[string]ClusterMember{}
	for _, ref := range refs {
		for off := 0; ; {
			p, err := eng.FetchCluster(ctx, FetchClusterOptions{ClusterID: ref, TopK: MaxFetchTopK, Offset: off, Sort: sort})
			if err != nil || p.Status != "ok" {
				t.Fatalf("fetch %s: %+v, %v", ref, p, err)
			}
			for _, m := range p.Members {
				out[m.SourcePaths[0]+fmt.Sprintf("#%d", m.Seq)] = m
			}
			if !p.Page.HasMore {
				break
			}
			off = *p.Page.NextOffset
		}
	}
	return out
}

func TestFetchTasksAndAnnotations(t *testing.T) {
	ctx := context.Background()
	f := reclusterFixture(t)
	if _, err := f.eng.Recluster(ctx, smallClusters()); err != nil {
		t.Fatal(err)
	}
	tasks := func(status string) []Task {
		t.Helper()
		ts, err := f.eng.ListTasks(ctx, status, MaxTaskList)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	if ts := tasks(""); len(ts) != 0 {
		t.Fatalf("tasks before any fetch: %+v", ts)
	}
	ms := allMembers(t, f.eng, SortRepresentative)
	dated := ms["cairn://notes/journal/2024-03-05.md#0"]
	if dated.EventTime == nil || *dated.EventTime != "2024-03-05T00:00:00.000Z" || *dated.EventTimeBasis != cairn.BasisPath {
		t.Errorf("dated note: %+v", dated)
	}
	dups := tasks("")
	// The canonical chunk is the first by content hash: a.md's or b.md's.
	other := map[string]string{"dup/a.md": "cairn://notes/dup/b.md", "dup/b.md": "cairn://notes/dup/a.md"}
	if len(dups) != 1 || dups[0].Type != cairn.TaskExactDuplicate || other[dups[0].Path] == "" ||
		dups[0].Detail["occurrences"] != float64(2) || !slices.Equal(toStrings(dups[0].Detail["duplicates"]), []string{other[dups[0].Path]}) {
		t.Fatalf("tasks after reading every cluster: %+v", dups)
	}
	ms = allMembers(t, f.eng, SortDateAsc)
	var ambiguous []Task
	for _, tk := range tasks(cairn.TaskPending) {
		if tk.Type == cairn.TaskAmbiguousEventTime {
			ambiguous = append(ambiguous, tk)
		}
	}
	// A date sort: every member without an event time (all but the dated
	// note) has a task; ListTasks shows at most MaxTaskList.
	if len(ambiguous) != MaxTaskList-1 {
		t.Fatalf("%d ambiguous_event_time tasks listed, want %d (with the duplicate task: the limit)", len(ambiguous), MaxTaskList-1)
	}
	all, err := f.eng.store.MaintenanceTasks(ctx, cairn.TaskFilter{Type: cairn.TaskAmbiguousEventTime})
	if err != nil || len(all) != 27 {
		t.Fatalf("ambiguous_event_time tasks: %d, %v; want 27", len(all), err)
	}
	tk := ambiguous[0]
	if _, err := f.eng.UpdateTask(ctx, TaskUpdateRequest{TaskID: tk.ID, Action: "resolve", Note: "x"}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("resolve without an annotation: %v", err)
	}
	ann := &AnnotationRequest{EventTime: "2023-07-01T09:30:00+02:00", Basis: cairn.BasisAgentVerified, Evidence: "the meeting notes of that day"}
	if _, err := f.eng.UpdateTask(ctx, TaskUpdateRequest{TaskID: tk.ID, Action: "defer", Annotation: ann}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("defer with an annotation: %v", err)
	}
	if _, err := f.eng.UpdateTask(ctx, TaskUpdateRequest{TaskID: dups[0].ID, Action: "resolve", Annotation: ann}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("an annotation on a duplicate task: %v", err)
	}
	if _, err := f.eng.UpdateTask(ctx, TaskUpdateRequest{TaskID: "nope", Action: "resolve"}); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("unknown task: %v", err)
	}
	done, err := f.eng.UpdateTask(ctx, TaskUpdateRequest{TaskID: tk.ID, Action: "resolve", Note: "dated from the minutes", Annotation: ann})
	if err != nil || done.Status != cairn.TaskResolved || *done.ResolutionNote != "dated from the minutes" {
		t.Fatalf("resolve with an annotation: %+v, %v", done, err)
	}
	ms = allMembers(t, f.eng, SortDateDesc)
	key := "cairn://" + tk.Corpus + "/" + tk.Path + "#0"
	if m := ms[key]; m.EventTime == nil || *m.EventTime != "2023-07-01T07:30:00.000Z" || *m.EventTimeBasis != cairn.BasisAgentVerified ||
		*m.EventTimeSource != "cairn://notes/"+tk.Path {
		t.Errorf("annotated member %s: %+v", key, m)
	}
	irrelevant := ambiguous[1]
	if _, err := f.eng.UpdateTask(ctx, TaskUpdateRequest{TaskID: irrelevant.ID, Action: "irrelevant"}); err != nil {
		t.Fatal(err)
	}
	allMembers(t, f.eng, SortDateAsc)
	got, err := f.eng.store.MaintenanceTask(ctx, irrelevant.ID)
	if err != nil || got.Status != cairn.TaskIrrelevant {
		t.Errorf("a closed task after the same page again: %+v, %v", got, err)
	}
	pending, _ := f.eng.store.MaintenanceTasks(ctx, cairn.TaskFilter{Status: cairn.TaskPending, Type: cairn.TaskAmbiguousEventTime})
	if len(pending) != 25 {
		t.Errorf("%d pending ambiguous_event_time tasks after closing two, want 25", len(pending))
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestReclusterUnavailable(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, curationNotes(), Options{})
	f.sync()
	if _, err := f.eng.Recluster(ctx, nil); !errors.Is(err, cairn.ErrUnavailable) || !strings.Contains(err.Error(), "embedder") {
		t.Errorf("recluster without an embedder: %v", err)
	}
	emb := &conceptEmbedder{model: "v1"}
	emb.down.Store(true)
	g := newFixture(t, curationNotes(), Options{Embedder: emb})
	g.eng.Sync(ctx, nil)
	if _, err := g.eng.Recluster(ctx, nil); !errors.Is(err, cairn.ErrUnavailable) || !strings.Contains(err.Error(), "29 chunks still need embedding") {
		t.Errorf("recluster with every chunk unembedded: %v", err)
	}
	few := newFixture(t, map[string]string{"a.md": "# A\n\ngarden\n", "b.md": "# B\n\nbudget\n"}, Options{Embedder: &conceptEmbedder{model: "v1"}})
	few.sync()
	if _, err := few.eng.Recluster(ctx, nil); !errors.Is(err, cairn.ErrUnavailable) || !strings.Contains(err.Error(), "2 unique chunks") {
		t.Errorf("recluster of two chunks: %v", err)
	}
	bad := &ReclusterOptions{Cluster: cluster.Options{HDBSCAN: cluster.HDBSCAN{MinClusterSize: 1}}}
	if _, err := few.eng.Recluster(ctx, bad); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("minClusterSize 1: %v", err)
	}
	if _, err := few.eng.Recluster(ctx, &ReclusterOptions{Corpora: []string{"nope"}}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("an unknown corpus: %v", err)
	}
}

// TestReclusterStaleAfterForcedSync: a sync that changes nothing keeps
// the run fresh; a forced one marks it stale.
func TestReclusterStaleAfterForcedSync(t *testing.T) {
	ctx := context.Background()
	f := reclusterFixture(t)
	if _, err := f.eng.Recluster(ctx, smallClusters()); err != nil {
		t.Fatal(err)
	}
	f.sync()
	if l, _ := f.eng.ListClusters(ctx, 0); l.Stale {
		t.Fatalf("a sync that changed nothing made the run stale")
	}
	if _, err := f.eng.Sync(ctx, &cairn.SyncOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if l, _ := f.eng.ListClusters(ctx, 0); !l.Stale || l.StaleSince == nil {
		t.Errorf("after a forced sync: stale %v since %v", l.Stale, l.StaleSince)
	}
}
