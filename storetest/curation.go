package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestCuration checks cairn.CurationStore: the clustering population, a
// run written and read back and replaced, staleness from writes, members
// whose documents went, and the durable state: maintenance tasks that
// never reopen, event-date annotations, cached judgments, and what
// survives the index being moved aside.
func TestCuration(t *testing.T, f Factory) {
	cases(t, f, []tcase{
		{"ClusterPopulation", testClusterPopulation},
		{"RunRoundTrip", testRunRoundTrip},
		{"RunReplaced", testRunReplaced},
		{"Staleness", testAnalysisStale},
		{"MembersOfRemovedDocuments", testMembersRemoved},
		{"TasksNeverReopen", testTasksNeverReopen},
		{"TaskFiltersAndOrder", testTaskOrder},
		{"AnnotationsWithUpdates", testAnnotations},
		{"CachedJudgments", testCachedJudgments},
		{"ChunkOccurrences", testChunkOccurrences},
	})
	t.Run("DurableSurvivesIndexRebuild", func(t *testing.T) { testCurationDurable(t, f) })
}

const testIdentity = "storetest|model|3|true"

// curationCorpus indexes three notes (two with the same text) and one
// note of another corpus, and gives every chunk of a.md a vector.
func curationCorpus(t *testing.T, s cairn.Storage) (a, same, other cairn.Document) {
	t.Helper()
	a = doc("notes", "a.md", "alpha one\nalpha two\n")
	same = doc("notes", "copy.md", "alpha one\nalpha two\n")
	other = doc("work", "w.md", "work line\n")
	apply(t, s, "notes", []cairn.Document{a, same})
	apply(t, s, "work", []cairn.Document{other})
	ids := chunkIDs(t, s, "notes", "a.md")
	if err := s.PutVectors(context.Background(), testIdentity, ids[:1], [][]float32{{1, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	return a, same, other
}

func walk(t *testing.T, s cairn.Storage, corpora ...string) []cairn.ClusterChunk {
	t.Helper()
	var got []cairn.ClusterChunk
	if err := s.EachClusterChunk(context.Background(), testIdentity, corpora, func(c cairn.ClusterChunk) error {
		got = append(got, c)
		return nil
	}); err != nil {
		t.Fatalf("walk clustering population: %v", err)
	}
	return got
}

// testClusterPopulation: each content once, by (hash, seq), its exact
// text and offsets, the vector where one exists, noise chunks left out,
// other corpora left out, and an error from fn returned.
func testClusterPopulation(t *testing.T, s cairn.Storage) {
	a, _, other := curationCorpus(t, s)
	noisy := doc("notes", "n.md", "---\nkept line\n")
	noisy.Chunks[0].Noise = true
	apply(t, s, "notes", []cairn.Document{noisy})
	got := walk(t, s, "notes")
	want := []cairn.ClusterChunk{
		{Hash: a.Hash, Seq: 0, Pos: 0, Len: 10, Text: "alpha one\n", Vector: []float32{1, 0, 0}},
		{Hash: a.Hash, Seq: 1, Pos: 10, Len: 10, Text: "alpha two\n"},
		{Hash: noisy.Hash, Seq: 1, Pos: 4, Len: 10, Text: "kept line\n"},
	}
	if a.Hash > noisy.Hash {
		want = []cairn.ClusterChunk{want[2], want[0], want[1]}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("population of notes (-want +got):\n%s", diff)
	}
	if got := walk(t, s, "notes", "work"); len(got) != 4 {
		t.Errorf("population of notes and work: %d chunks, want 4", len(got))
	}
	if got := walk(t, s, "work"); len(got) != 1 || got[0].Hash != other.Hash || got[0].Vector != nil {
		t.Errorf("population of work: %+v", got)
	}
	if got := walk(t, s); len(got) != 0 {
		t.Errorf("population of no corpus: %d chunks", len(got))
	}
	stop := errors.New("stop")
	if err := s.EachClusterChunk(context.Background(), testIdentity, []string{"notes"}, func(cairn.ClusterChunk) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("fn's error: got %v", err)
	}
}

// sampleRun is a run over a.md's two chunks and w.md's one: a.md's in
// cluster 0, w.md's noise, and copy.md's text a duplicate of a.md's
// first chunk (as the population never yields, since they share content;
// the store keeps what it is given).
func sampleRun(id string, a, other cairn.Document, at time.Time) *cairn.AnalysisWrite {
	return &cairn.AnalysisWrite{
		Run: cairn.AnalysisRun{ID: id, CreatedAt: at, CompletedAt: at.Add(time.Second), InputDigest: "digest-" + id,
			Model: "model", EmbeddingFingerprint: "fp", Dimensions: 3, Params: `{"seed":42}`, Corpora: []string{"notes", "work"},
			Clusters: 1, Members: 3, Noise: 1},
		Clusters: []cairn.AnalysisCluster{{ID: 0, Size: 2, MeanProbability: 0.75}},
		Members: []cairn.AnalysisMember{
			{Hash: a.Hash, Seq: 0, Cluster: 0, Probability: 1, OutlierScore: 0.1, X: 1.5, Y: -2, RepresentativeRank: 1},
			{Hash: a.Hash, Seq: 1, Cluster: 0, Probability: 0.5, OutlierScore: 0.2, X: 2, Y: 3, RepresentativeRank: 2},
			{Hash: other.Hash, Seq: 0, Cluster: -1, OutlierScore: 0.9, X: -1, Y: 0},
		},
		Duplicates: []cairn.DuplicateOccurrence{{Fingerprint: hashOf("alpha one\n"),
			Canonical: cairn.ChunkKey{Hash: a.Hash, Seq: 0}, Duplicate: cairn.ChunkKey{Hash: other.Hash, Seq: 5}}},
	}
}

func latest(t *testing.T, s cairn.Storage) cairn.AnalysisRun {
	t.Helper()
	r, err := s.LatestAnalysis(context.Background())
	if err != nil {
		t.Fatalf("latest run: %v", err)
	}
	return r
}

func putRun(t *testing.T, s cairn.Storage, w *cairn.AnalysisWrite) {
	t.Helper()
	if err := s.PutAnalysis(context.Background(), w); err != nil {
		t.Fatalf("put run %s: %v", w.Run.ID, err)
	}
}

func testRunRoundTrip(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	if _, err := s.LatestAnalysis(ctx); !errors.Is(err, cairn.ErrNotFound) {
		t.Fatalf("latest run of an empty store: %v, want ErrNotFound", err)
	}
	a, _, other := curationCorpus(t, s)
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.UTC)
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.PutSession(ctx, session("notes", "a.md", "/t/a.jsonl", start)); err != nil {
		t.Fatal(err)
	}
	w := sampleRun("run-1", a, other, t0)
	putRun(t, s, w)
	if diff := cmp.Diff(w.Run, latest(t, s)); diff != "" {
		t.Errorf("run read back (-put +got):\n%s", diff)
	}
	cs, err := s.AnalysisClusters(ctx, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	wantCs := []cairn.AnalysisCluster{{ID: -1, Size: 1, Members: 1, Available: 1}, {ID: 0, Size: 2, MeanProbability: 0.75, Members: 2, Available: 2}}
	if diff := cmp.Diff(wantCs, cs); diff != "" {
		t.Errorf("clusters (-want +got):\n%s", diff)
	}
	ms, err := s.AnalysisMembers(ctx, cairn.MemberQuery{RunID: "run-1", Cluster: 0})
	if err != nil {
		t.Fatal(err)
	}
	mod := time.Unix(0, a.ModTime).UTC()
	srcs := []cairn.ChunkSource{{Corpus: "notes", Path: "a.md", ModTime: mod, SessionStart: start}, {Corpus: "notes", Path: "copy.md", ModTime: mod}}
	want := []cairn.AnalysisMember{w.Members[0], w.Members[1]}
	want[0].Sources, want[1].Sources = srcs, srcs
	if diff := cmp.Diff(want, ms); diff != "" {
		t.Errorf("members of cluster 0 (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		q    cairn.MemberQuery
		want int
	}{
		{cairn.MemberQuery{RunID: "run-1", Cluster: -1}, 1},
		{cairn.MemberQuery{RunID: "run-1", AllClusters: true}, 3},
		{cairn.MemberQuery{RunID: "run-1", AllClusters: true, MaxRank: 1}, 1},
		{cairn.MemberQuery{RunID: "run-1", Cluster: 0, MaxRank: 2}, 2},
		{cairn.MemberQuery{RunID: "run-2", AllClusters: true}, 0},
	} {
		got, err := s.AnalysisMembers(ctx, c.q)
		if err != nil || len(got) != c.want {
			t.Errorf("members %+v: %d, %v; want %d", c.q, len(got), err, c.want)
		}
	}
	dups, err := s.AnalysisDuplicates(ctx, "run-1", []cairn.ChunkKey{{Hash: a.Hash, Seq: 1}, {Hash: a.Hash, Seq: 0}, {Hash: a.Hash, Seq: 0}})
	if err != nil {
		t.Fatal(err)
	}
	wantDups := []cairn.DuplicateOccurrence{w.Duplicates[0]}
	wantDups[0].Sources = []cairn.ChunkSource{{Corpus: "work", Path: "w.md", ModTime: time.Unix(0, other.ModTime).UTC()}}
	if diff := cmp.Diff(wantDups, dups); diff != "" {
		t.Errorf("duplicates (-want +got):\n%s", diff)
	}
	texts, err := s.ChunkKeyTexts(ctx, []cairn.ChunkKey{{Hash: a.Hash, Seq: 1}, {Hash: other.Hash, Seq: 0}, {Hash: a.Hash, Seq: 9}})
	if err != nil {
		t.Fatal(err)
	}
	wantTexts := map[cairn.ChunkKey]string{{Hash: a.Hash, Seq: 1}: "alpha two\n", {Hash: other.Hash, Seq: 0}: "work line\n"}
	if diff := cmp.Diff(wantTexts, texts); diff != "" {
		t.Errorf("chunk texts (-want +got):\n%s", diff)
	}
}

// testRunReplaced: a second run deletes the first with everything of it.
func testRunReplaced(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a, _, other := curationCorpus(t, s)
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	putRun(t, s, sampleRun("run-1", a, other, t0))
	second := sampleRun("run-2", a, other, t0.Add(time.Hour))
	second.Duplicates = nil
	putRun(t, s, second)
	if r := latest(t, s); r.ID != "run-2" {
		t.Errorf("latest run %s, want run-2", r.ID)
	}
	cs, err := s.AnalysisClusters(ctx, "run-1")
	if err != nil || len(cs) != 0 {
		t.Errorf("clusters of the replaced run: %v, %v", cs, err)
	}
	ms, err := s.AnalysisMembers(ctx, cairn.MemberQuery{RunID: "run-1", AllClusters: true})
	if err != nil || len(ms) != 0 {
		t.Errorf("members of the replaced run: %d, %v", len(ms), err)
	}
	dups, err := s.AnalysisDuplicates(ctx, "run-1", []cairn.ChunkKey{{Hash: a.Hash, Seq: 0}})
	if err != nil || len(dups) != 0 {
		t.Errorf("duplicates of the replaced run: %v, %v", dups, err)
	}
	// A write that fails (a duplicate membership key) leaves run-2 whole.
	bad := sampleRun("run-3", a, other, t0.Add(2*time.Hour))
	bad.Members = append(bad.Members, bad.Members[0])
	if err := s.PutAnalysis(ctx, bad); err == nil {
		t.Fatal("a run with a membership twice was stored")
	}
	if r := latest(t, s); r.ID != "run-2" {
		t.Errorf("after a failed write the latest run is %s, want run-2", r.ID)
	}
	if ms, _ := s.AnalysisMembers(ctx, cairn.MemberQuery{RunID: "run-2", AllClusters: true}); len(ms) != 3 {
		t.Errorf("after a failed write run-2 has %d members, want 3", len(ms))
	}
}

// testAnalysisStale: which writes make the run stale, and that StaleAt is
// set once.
func testAnalysisStale(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a, _, other := curationCorpus(t, s)
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	fresh := func(name string, w func()) {
		t.Helper()
		putRun(t, s, sampleRun("run-"+name, a, other, t0))
		w()
		if r := latest(t, s); !r.StaleAt.IsZero() {
			t.Errorf("%s made the run stale", name)
		}
	}
	stale := func(name string, w func()) {
		t.Helper()
		putRun(t, s, sampleRun("run-"+name, a, other, t0))
		before := time.Now().Add(-time.Minute)
		w()
		r := latest(t, s)
		if r.StaleAt.IsZero() || r.StaleAt.Before(before) {
			t.Errorf("%s: stale at %v, want a time after %v", name, r.StaleAt, before)
			return
		}
		first := r.StaleAt
		time.Sleep(5 * time.Millisecond)
		apply(t, s, "notes", []cairn.Document{doc("notes", "later-"+name+".md", "later "+name+"\n")})
		if r := latest(t, s); !r.StaleAt.Equal(first) {
			t.Errorf("%s: a later write moved stale_at from %v to %v", name, first, r.StaleAt)
		}
	}
	fresh("same content again", func() { apply(t, s, "notes", []cairn.Document{a}) })
	fresh("touch", func() {
		st := docStates(t, s, "notes")["a.md"]
		st.ModTime++
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Touch: []cairn.DocState{st}}); err != nil {
			t.Fatal(err)
		}
	})
	fresh("removing what is not indexed", func() { apply(t, s, "notes", nil, "never.md") })
	stale("a new document", func() { apply(t, s, "notes", []cairn.Document{doc("notes", "b.md", "beta\n")}) })
	stale("new content", func() { apply(t, s, "notes", []cairn.Document{doc("notes", "b.md", "beta two\n")}) })
	stale("a removal", func() { apply(t, s, "notes", nil, "b.md") })
	stale("a vector", func() {
		ids := chunkIDs(t, s, "notes", "a.md")
		if err := s.PutVectors(ctx, testIdentity, ids[1:], [][]float32{{0, 1, 0}}); err != nil {
			t.Fatal(err)
		}
	})
	stale("a prune", func() {
		if _, err := s.PruneCorpora(ctx, []string{"notes"}); err != nil {
			t.Fatal(err)
		}
	})
	stale("MarkAnalysisStale", func() {
		if err := s.MarkAnalysisStale(ctx); err != nil {
			t.Fatal(err)
		}
	})
	if err := s.MarkAnalysisStale(ctx); err != nil {
		t.Errorf("MarkAnalysisStale with a stale run: %v", err)
	}
}

// testMembersRemoved: a member whose documents are gone stays in the run,
// with no sources, and is no longer available.
func testMembersRemoved(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a, _, other := curationCorpus(t, s)
	putRun(t, s, sampleRun("run-1", a, other, time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)))
	apply(t, s, "work", nil, "w.md")
	cs, err := s.AnalysisClusters(ctx, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].ID != -1 || cs[0].Members != 1 || cs[0].Available != 0 || cs[1].Available != 2 {
		t.Errorf("clusters after removing w.md: %+v", cs)
	}
	ms, err := s.AnalysisMembers(ctx, cairn.MemberQuery{RunID: "run-1", Cluster: -1})
	if err != nil || len(ms) != 1 || len(ms[0].Sources) != 0 {
		t.Errorf("noise after removing w.md: %+v, %v", ms, err)
	}
	apply(t, s, "notes", nil, "copy.md")
	ms, _ = s.AnalysisMembers(ctx, cairn.MemberQuery{RunID: "run-1", Cluster: 0})
	if len(ms) != 2 || len(ms[0].Sources) != 1 || ms[0].Sources[0].Path != "a.md" {
		t.Errorf("cluster 0 after removing copy.md: %+v", ms)
	}
}

func task(typ, path, reason, fp, detail string, at time.Time) cairn.MaintenanceTask {
	return cairn.MaintenanceTask{ID: cairn.MaintenanceTaskID(typ, "notes", path, reason, fp), Type: typ, Corpus: "notes",
		Path: path, Reason: reason, Fingerprint: fp, Detail: detail, CreatedAt: at}
}

func putTask(t *testing.T, s cairn.Storage, tk cairn.MaintenanceTask) cairn.MaintenanceTask {
	t.Helper()
	got, err := s.PutMaintenanceTask(context.Background(), tk)
	if err != nil {
		t.Fatalf("put task %s: %v", tk.ID, err)
	}
	return got
}

// testTasksNeverReopen: a pending task's detail is refreshed; a closed one
// keeps its status, note and detail when the same task comes again; new
// content (another fingerprint) makes a new task.
func testTasksNeverReopen(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	first := putTask(t, s, task(cairn.TaskExactDuplicate, "a.md", "exact_duplicate", "fp1", `{"occurrences":2}`, t0))
	want := task(cairn.TaskExactDuplicate, "a.md", "exact_duplicate", "fp1", `{"occurrences":2}`, t0)
	want.Status, want.UpdatedAt = cairn.TaskPending, t0
	if diff := cmp.Diff(want, first); diff != "" {
		t.Fatalf("new task (-want +got):\n%s", diff)
	}
	again := putTask(t, s, task(cairn.TaskExactDuplicate, "a.md", "exact_duplicate", "fp1", `{"occurrences":3}`, t0.Add(time.Hour)))
	if again.Detail != `{"occurrences":3}` || !again.CreatedAt.Equal(t0) || !again.UpdatedAt.Equal(t0.Add(time.Hour)) || again.Status != cairn.TaskPending {
		t.Errorf("pending task put again: %+v", again)
	}
	closed, err := s.UpdateMaintenanceTask(ctx, cairn.TaskUpdate{ID: first.ID, Status: cairn.TaskIrrelevant, Note: "on purpose", At: t0.Add(2 * time.Hour)})
	if err != nil || closed.Status != cairn.TaskIrrelevant || closed.Note != "on purpose" || !closed.UpdatedAt.Equal(t0.Add(2*time.Hour)) {
		t.Fatalf("close task: %+v, %v", closed, err)
	}
	reput := putTask(t, s, task(cairn.TaskExactDuplicate, "a.md", "exact_duplicate", "fp1", `{"occurrences":9}`, t0.Add(3*time.Hour)))
	if diff := cmp.Diff(closed, reput); diff != "" {
		t.Errorf("a closed task put again changed (-closed +got):\n%s", diff)
	}
	fresh := putTask(t, s, task(cairn.TaskExactDuplicate, "a.md", "exact_duplicate", "fp2", `{}`, t0.Add(4*time.Hour)))
	if fresh.ID == first.ID || fresh.Status != cairn.TaskPending {
		t.Errorf("new content's task: %+v", fresh)
	}
	got, err := s.MaintenanceTask(ctx, first.ID)
	if err != nil || got.Status != cairn.TaskIrrelevant {
		t.Errorf("read closed task: %+v, %v", got, err)
	}
	if _, err := s.MaintenanceTask(ctx, "nope"); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("unknown task: %v", err)
	}
	if _, err := s.UpdateMaintenanceTask(ctx, cairn.TaskUpdate{ID: "nope", Status: cairn.TaskResolved, Note: "x"}); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("update unknown task: %v", err)
	}
}

func testTaskOrder(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := putTask(t, s, task(cairn.TaskQualityReview, "c.md", "possible_ingestion_noise", "f", "{}", t0.Add(time.Minute)))
	b := putTask(t, s, task(cairn.TaskAmbiguousEventTime, "b.md", "missing_event_time", "f", "{}", t0))
	a := putTask(t, s, task(cairn.TaskAmbiguousEventTime, "a.md", "missing_event_time", "f", "{}", t0))
	if _, err := s.UpdateMaintenanceTask(ctx, cairn.TaskUpdate{ID: c.ID, Status: cairn.TaskDeferred, Note: "later"}); err != nil {
		t.Fatal(err)
	}
	first, second := a, b
	if b.ID < a.ID {
		first, second = b, a
	}
	ids := func(f cairn.TaskFilter) []string {
		ts, err := s.MaintenanceTasks(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range ts {
			out = append(out, x.ID)
		}
		return out
	}
	for _, tc := range []struct {
		f    cairn.TaskFilter
		want []string
	}{
		{cairn.TaskFilter{}, []string{first.ID, second.ID, c.ID}},
		{cairn.TaskFilter{Status: cairn.TaskPending}, []string{first.ID, second.ID}},
		{cairn.TaskFilter{Status: cairn.TaskDeferred}, []string{c.ID}},
		{cairn.TaskFilter{Type: cairn.TaskQualityReview}, []string{c.ID}},
		{cairn.TaskFilter{Status: cairn.TaskResolved}, nil},
	} {
		if diff := cmp.Diff(tc.want, ids(tc.f)); diff != "" {
			t.Errorf("tasks %+v (-want +got):\n%s", tc.f, diff)
		}
	}
}

// testAnnotations: an update writes its annotation with the task in one
// transaction; a second one for the same key replaces it.
func testAnnotations(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tk := putTask(t, s, task(cairn.TaskAmbiguousEventTime, "a.md", "missing_event_time", "fp", "{}", t0))
	ev := time.Date(2024, 5, 6, 7, 0, 0, 0, time.UTC)
	ann := &cairn.TemporalAnnotation{Corpus: "notes", Path: "a.md", Fingerprint: "fp", EventTime: ev, Basis: cairn.BasisAgentVerified,
		Evidence: "the note says so", Chunk: cairn.ChunkKey{Hash: "h", Seq: 2}}
	if _, err := s.UpdateMaintenanceTask(ctx, cairn.TaskUpdate{ID: tk.ID, Status: cairn.TaskResolved, Note: "dated", Annotation: ann, At: t0}); err != nil {
		t.Fatal(err)
	}
	doc := &cairn.TemporalAnnotation{Corpus: "notes", Path: "a.md", EventTime: ev.Add(time.Hour), Basis: cairn.BasisFrontmatter, Evidence: "date: field"}
	if _, err := s.UpdateMaintenanceTask(ctx, cairn.TaskUpdate{ID: tk.ID, Status: cairn.TaskResolved, Note: "dated", Annotation: doc, At: t0}); err != nil {
		t.Fatal(err)
	}
	moved := *ann
	moved.EventTime, moved.Chunk = ev.Add(2*time.Hour), cairn.ChunkKey{Hash: "h2", Seq: 0}
	if _, err := s.UpdateMaintenanceTask(ctx, cairn.TaskUpdate{ID: tk.ID, Status: cairn.TaskResolved, Note: "redated", Annotation: &moved, At: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.TemporalAnnotations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d, m := *doc, moved
	d.CreatedAt, d.UpdatedAt = t0, t0
	m.CreatedAt, m.UpdatedAt = t0, t0.Add(time.Hour)
	if diff := cmp.Diff([]cairn.TemporalAnnotation{d, m}, got); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
}

func testCachedJudgments(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	if _, ok, err := s.CachedJudgment(ctx, "p", "k"); ok || err != nil {
		t.Fatalf("empty cache: %v, %v", ok, err)
	}
	for _, v := range []string{`{"noise":0.1}`, `{"noise":0.9}`} {
		if err := s.PutCachedJudgment(ctx, "p", "k", v); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := s.CachedJudgment(ctx, "p", "k"); !ok || err != nil || got != v {
			t.Errorf("cached: %q, %v, %v; want %q", got, ok, err, v)
		}
	}
	if _, ok, _ := s.CachedJudgment(ctx, "other-policy", "k"); ok {
		t.Error("a judgment is found under another policy")
	}
}

// testCurationDurable: after the index is moved aside (a rebuild), the run
// is gone and the tasks, annotations and judgments are all still there.
func testCurationDurable(t *testing.T, f Factory) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, f, dir)
	a, _, other := curationCorpus(t, s)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	putRun(t, s, sampleRun("run-1", a, other, t0))
	tk := putTask(t, s, task(cairn.TaskAmbiguousEventTime, "a.md", "missing_event_time", "fp", "{}", t0))
	ann := &cairn.TemporalAnnotation{Corpus: "notes", Path: "a.md", EventTime: t0, Basis: cairn.BasisPath, Evidence: "e"}
	if _, err := s.UpdateMaintenanceTask(ctx, cairn.TaskUpdate{ID: tk.ID, Status: cairn.TaskResolved, Note: "n", Annotation: ann}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCachedJudgment(ctx, "p", "k", "v"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, f, dir)
	if r := latest(t, s); r.ID != "run-1" {
		t.Errorf("reopened: latest run %s", r.ID)
	}
	s.Close()
	if _, err := f.Backend.MoveAside(dir); err != nil {
		t.Fatal(err)
	}
	s = open(t, f, dir)
	if _, err := s.LatestAnalysis(ctx); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("run after the index was moved aside: %v, want ErrNotFound", err)
	}
	if got, err := s.MaintenanceTask(ctx, tk.ID); err != nil || got.Status != cairn.TaskResolved {
		t.Errorf("task after the index was moved aside: %+v, %v", got, err)
	}
	if anns, err := s.TemporalAnnotations(ctx); err != nil || len(anns) != 1 {
		t.Errorf("annotations after the index was moved aside: %v, %v", anns, err)
	}
	if v, ok, err := s.CachedJudgment(ctx, "p", "k"); !ok || err != nil || v != "v" {
		t.Errorf("judgment after the index was moved aside: %q, %v, %v", v, ok, err)
	}
}

// testChunkOccurrences: non-noise chunks by (document id, seq) after a
// cursor, per corpus set or for one document, with lines and text.
func testChunkOccurrences(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	curationCorpus(t, s)
	noisy := doc("notes", "n.md", "---\nkept line\n")
	noisy.Chunks[0].Noise = true
	apply(t, s, "notes", []cairn.Document{noisy})
	all, err := s.ChunkOccurrences(ctx, cairn.OccurrenceQuery{Corpora: []string{"notes", "work"}, AfterSeq: -1})
	if err != nil {
		t.Fatal(err)
	}
	type occ struct {
		Corpus, Path string
		Seq, Line    int
		Text         string
	}
	var got []occ
	for i, o := range all {
		got = append(got, occ{o.Corpus, o.Path, o.Seq, o.StartLine, o.Text})
		if i > 0 && (o.DocumentID < all[i-1].DocumentID || o.DocumentID == all[i-1].DocumentID && o.Seq <= all[i-1].Seq) {
			t.Errorf("occurrence %d (%d, %d) not after (%d, %d)", i, o.DocumentID, o.Seq, all[i-1].DocumentID, all[i-1].Seq)
		}
	}
	want := []occ{{"notes", "a.md", 0, 1, "alpha one\n"}, {"notes", "a.md", 1, 2, "alpha two\n"},
		{"notes", "copy.md", 0, 1, "alpha one\n"}, {"notes", "copy.md", 1, 2, "alpha two\n"},
		{"work", "w.md", 0, 1, "work line\n"}, {"notes", "n.md", 1, 2, "kept line\n"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("occurrences (-want +got):\n%s", diff)
	}
	after, err := s.ChunkOccurrences(ctx, cairn.OccurrenceQuery{Corpora: []string{"notes", "work"}, AfterDoc: all[1].DocumentID, AfterSeq: all[1].Seq, Limit: 2})
	if err != nil || len(after) != 2 || after[0].Path != "copy.md" || after[0].Seq != 0 || after[1].Seq != 1 {
		t.Errorf("two after a.md seq 1: %+v, %v", after, err)
	}
	one, err := s.ChunkOccurrences(ctx, cairn.OccurrenceQuery{Corpora: []string{"work"}, Path: "w.md", AfterSeq: -1})
	if err != nil || len(one) != 1 || one[0].Hash != hashOf("work line\n") {
		t.Errorf("one document: %+v, %v", one, err)
	}
	if none, err := s.ChunkOccurrences(ctx, cairn.OccurrenceQuery{Corpora: []string{"notes"}, Path: "w.md", AfterSeq: -1}); err != nil || len(none) != 0 {
		t.Errorf("a path of another corpus: %+v, %v", none, err)
	}
}
