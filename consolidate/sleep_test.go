package consolidate_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/engine"
	"github.com/google/go-cmp/cmp"
)

// Memories for the sleep pass: facts about the shop database (a duplicate
// pair, an upgrade that replaces them, a related backup note), two
// observations about where Dana lives, one unrelated observation and an
// episode (never judged).
const (
	pg14     = "m-0000000000000001" // told May 1, stated
	pg14b    = "m-0000000000000002" // told May 3, verified, two sources: kept
	pg16     = "m-0000000000000003" // told May 10
	backups  = "m-0000000000000004" // told May 5
	berlin   = "m-0000000000000005" // told May 2
	munich   = "m-0000000000000006" // told May 20
	desk     = "m-0000000000000007" // told May 4
	episode1 = "m-0000000000000008"
	nobody   = "m-ffffffffffffffff"
)

func sleepMemory(id, kind string, day int, title, summary string, concepts []string, records ...string) cairn.Memory {
	m := cairn.Memory{ID: id, Kind: kind, Title: title, Summary: summary, Thread: "sessions/notes.md", Status: cairn.StatusActive,
		ToldAt: at(day, 9, 0), Cues: []string{"cue of " + title}, Concepts: concepts, Confidence: "stated", Importance: 3, Scope: "project"}
	for _, r := range records {
		m.Provenance = append(m.Provenance, cairn.Provenance{Record: r, Corpus: "sessions", Path: "cairn://sessions/notes.md", StartLine: 1, EndLine: 2})
	}
	return m
}

func sleepMemories() []cairn.Memory {
	ms := []cairn.Memory{
		sleepMemory(pg14, "fact", 1, "Shop database runs PostgreSQL 14", "The shop database runs PostgreSQL 14 on db1.", []string{"PostgreSQL", "shop-db"}, "r1"),
		sleepMemory(pg14b, "fact", 3, "The shop database runs PostgreSQL 14 on db1", "The shop's database server db1 runs PostgreSQL 14.", []string{"shop-db", "db1"}, "r2", "r3"),
		sleepMemory(pg16, "fact", 10, "Shop database upgraded to PostgreSQL 16", "The shop database on db1 was upgraded from PostgreSQL 14 to 16.", []string{"shop-db"}, "r4"),
		sleepMemory(backups, "reference", 5, "Shop database backups live in S3", "Nightly backups of the shop database on db1 go to s3://shop-backups.", []string{"shop-db"}, "r5"),
		sleepMemory(berlin, "observation", 2, "Dana lives in Berlin", "Dana lives in Berlin.", nil, "r6"),
		sleepMemory(munich, "observation", 20, "Dana moved from Berlin to Munich", "Dana moved from Berlin to Munich in March 2026.", nil, "r7"),
		sleepMemory(desk, "observation", 4, "Dana bought a standing desk", "Dana bought a standing desk from Ikea for 349 euros.", nil, "r8"),
		sleepMemory(episode1, "episode", 3, "Check the shop database version", "Checked that the shop database runs PostgreSQL 14 on db1.", []string{"shop-db"}, "r2"),
	}
	ms[1].Confidence = "verified"
	for i := range ms {
		if ms[i].Kind == "observation" {
			ms[i].About, ms[i].Confidence, ms[i].Importance, ms[i].Scope = "Dana", "", 0, ""
		}
	}
	return ms
}

// storeMemories commits memories as one window of the notes thread.
func (f *fixture) storeMemories(ms []cairn.Memory) {
	f.t.Helper()
	var recs []string
	for _, m := range ms {
		for _, p := range m.Provenance {
			if !slices.Contains(recs, p.Record) {
				recs = append(recs, p.Record)
			}
		}
	}
	if _, err := f.eng.Store().CommitWindow(context.Background(), cairn.WindowCommit{Corpus: "sessions", Thread: "notes.md",
		Pass: consolidate.PassMain, Records: recs, Memories: ms}); err != nil {
		f.t.Fatal(err)
	}
}

// sleepAnswer is the scripted fast model: its decisions for the shop
// database group (with three the gate must drop) and for the Dana group.
func sleepAnswer(system, prompt string) string {
	if !strings.HasPrefix(system, "You tidy a store of long-term memories") {
		return `{}`
	}
	a := map[string]any{"duplicates": []any{}, "supersedes": []any{}, "related": []any{}}
	switch {
	case strings.Contains(prompt, pg16):
		a["duplicates"] = []any{map[string]any{"ids": []string{pg14, pg14b}, "reason": "Both say db1 runs PostgreSQL 14."}}
		a["supersedes"] = []any{
			map[string]any{"newer": pg16, "older": pg14b, "reason": "db1 was upgraded from 14 to 16."},
			map[string]any{"newer": pg16, "older": pg14, "reason": "Merged already: conflict."},
			map[string]any{"newer": pg14, "older": pg16, "reason": "Backwards: not newer."},
		}
		a["related"] = []any{
			map[string]any{"a": pg16, "b": backups, "reason": "Both about the shop database on db1."},
			map[string]any{"a": backups, "b": nobody, "reason": "Not in the group."},
		}
	case strings.Contains(prompt, berlin):
		a["supersedes"] = []any{map[string]any{"newer": munich, "older": berlin, "reason": "Dana moved to Munich."}}
	}
	return mustJSON(a)
}

func (f *fixture) sleep(url string, opts *cairn.SleepOptions) *cairn.SleepResult {
	f.t.Helper()
	var model cairn.LLM
	if url != "" {
		model = client("openai", url, 10*time.Second)
	}
	res, err := f.eng.Sleep(context.Background(), model, opts, nil)
	if err != nil {
		f.t.Fatalf("sleep: %v", err)
	}
	return res
}

func sleepCounts(r *cairn.SleepResult) cairn.SleepResult {
	c := *r
	c.TokensIn, c.TokensOut, c.Error = 0, 0, ""
	return c
}

// memoryState is what the sleep pass may change of a memory.
type memoryState struct {
	Status, SupersededBy string
	Body                 string
	Cues, Concepts       []string
	Sources              []string
}

func (f *fixture) states() map[string]memoryState {
	f.t.Helper()
	out := map[string]memoryState{}
	for _, m := range f.memories() {
		s := memoryState{Status: m.Status, SupersededBy: m.SupersededBy, Body: m.Body, Cues: m.Cues, Concepts: m.Concepts}
		for _, p := range m.Provenance {
			s.Sources = append(s.Sources, p.Record)
		}
		out[m.ID] = s
	}
	return out
}

// links lists every link as "from kind to", sorted.
func (f *fixture) links() []string {
	f.t.Helper()
	var out []string
	for _, m := range f.memories() {
		ls, err := f.eng.MemoryLinks(context.Background(), m.ID)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, l := range ls {
			if s := l.From + " " + l.Kind + " " + l.To; !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	slices.Sort(out)
	return out
}

func wantSleepStates() map[string]memoryState {
	want := map[string]memoryState{}
	for _, m := range sleepMemories() {
		s := memoryState{Status: cairn.StatusActive, Body: m.Body, Cues: m.Cues, Concepts: m.Concepts}
		for _, p := range m.Provenance {
			s.Sources = append(s.Sources, p.Record)
		}
		want[m.ID] = s
	}
	set := func(id string, fn func(s *memoryState)) {
		s := want[id]
		fn(&s)
		want[id] = s
	}
	set(pg14, func(s *memoryState) { s.Status, s.SupersededBy = cairn.StatusSuperseded, pg14b })
	set(pg14b, func(s *memoryState) {
		s.Status, s.SupersededBy = cairn.StatusSuperseded, pg16
		s.Cues = append(s.Cues, "Shop database runs PostgreSQL 14", "cue of Shop database runs PostgreSQL 14")
		s.Concepts = append(s.Concepts, "PostgreSQL")
		s.Sources = append(s.Sources, "r1")
	})
	set(pg16, func(s *memoryState) {
		s.Body = "Before (" + pg14b + ", told 2026-05-03): The shop's database server db1 runs PostgreSQL 14."
	})
	set(berlin, func(s *memoryState) { s.Status, s.SupersededBy = cairn.StatusSuperseded, munich })
	set(munich, func(s *memoryState) { s.Body = "Before (" + berlin + ", told 2026-05-02): Dana lives in Berlin." })
	return want
}

var wantSleepLinks = slices.Sorted(slices.Values([]string{
	pg14b + " merged " + pg14,
	pg16 + " supersedes " + pg14b,
	pg16 + " related " + backups,
	backups + " related " + pg16,
	munich + " supersedes " + berlin,
}))

// TestSleepOverWire runs the sleep pass with the real OpenAI client against
// the wire fake: the exact statuses, pointers, unions, notes and links it
// leaves, the decisions its gate drops, superseded memories out of search
// but readable, and a second pass that changes nothing and asks nothing.
func TestSleepOverWire(t *testing.T) {
	f := newFixture(t)
	f.storeMemories(sleepMemories())
	srv := newWireServer(t, "openai", nil)
	srv.answer = sleepAnswer

	dry := f.sleep("", &cairn.SleepOptions{DryRun: true})
	var groups [][]string
	for _, g := range dry.Plan {
		groups = append(groups, g.Members)
	}
	if d := cmp.Diff([][]string{{pg14, pg14b, backups, pg16}, {berlin, munich}}, groups); d != "" || dry.Groups != 2 || len(srv.requests()) != 0 {
		t.Fatalf("dry run: %d groups, %d requests; groups (-want +got):\n%s", dry.Groups, len(srv.requests()), d)
	}

	res := f.sleep(srv.URL, nil)
	want := cairn.SleepResult{Groups: 2, Merged: 1, Superseded: 2, Linked: 1, Status: cairn.ConsolidateCompleted,
		Dropped: map[string]int{consolidate.DropSleepConflict: 1, consolidate.DropSleepNotNewer: 1, consolidate.DropSleepUnknownID: 1}}
	if d := cmp.Diff(want, sleepCounts(res)); d != "" {
		t.Errorf("sleep (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantSleepStates(), f.states()); d != "" {
		t.Errorf("memories after sleep (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantSleepLinks, f.links()); d != "" {
		t.Errorf("links (-want +got):\n%s", d)
	}
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want one per group", len(reqs))
	}
	for _, b := range reqs {
		if !strings.Contains(b, `"name":"cairn_sleep"`) || strings.Contains(b, episode1) || strings.Contains(b, desk) {
			t.Errorf("a sleep request without the schema, or with a memory outside its group:\n%.400s", b)
		}
	}

	// Superseded memories leave the memories corpus and stay readable.
	docs, err := f.eng.Store().DocStates(context.Background(), "memories")
	if err != nil {
		t.Fatal(err)
	}
	var indexed []string
	for p := range docs {
		indexed = append(indexed, consolidate.IDFromPath(p))
	}
	slices.Sort(indexed)
	if d := cmp.Diff([]string{pg16, backups, munich, desk, episode1}, indexed, cmp.Transformer("sort", func(s []string) []string {
		return slices.Sorted(slices.Values(s))
	})); d != "" {
		t.Errorf("memories indexed after sleep (-want +got):\n%s", d)
	}
	hits, err := f.eng.Search(context.Background(), "Dana lives", &cairn.SearchOptions{Corpora: []string{"memories"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Memory == nil || hits[0].Memory.ID != munich {
		t.Errorf("searching where Dana lives should find the newer observation (with what it replaced) first: %+v", hits)
	}
	if m, err := f.eng.Memory(context.Background(), berlin); err != nil || m.Status != cairn.StatusSuperseded || m.SupersededBy != munich {
		t.Errorf("the superseded observation: %+v, %v", m, err)
	}

	// A second pass: every pair was judged, nothing is asked or changed.
	before, beforeLinks := f.states(), f.links()
	again := f.sleep(srv.URL, nil)
	if d := cmp.Diff(cairn.SleepResult{Dropped: map[string]int{}, Status: cairn.ConsolidateCompleted}, sleepCounts(again)); d != "" {
		t.Errorf("second sleep (-want +got):\n%s", d)
	}
	if len(srv.requests()) != 2 {
		t.Errorf("the second pass asked the model %d times", len(srv.requests())-2)
	}
	if d := cmp.Diff(before, f.states()); d != "" {
		t.Errorf("the second pass changed memories (-before +after):\n%s", d)
	}
	if d := cmp.Diff(beforeLinks, f.links()); d != "" {
		t.Errorf("the second pass changed links (-before +after):\n%s", d)
	}
}

// TestSleepPauses: an unavailable or busy fast model pauses the pass (a
// status, not an error) with the groups judged so far applied and none
// half-applied; the next pass finishes the rest.
func TestSleepPauses(t *testing.T) {
	busyFrom := func(n int) fault {
		return func(i int, w http.ResponseWriter, r *http.Request) bool {
			if i >= n {
				w.Header().Set("Retry-After", "0")
				http.Error(w, `{"error":{"message":"rate limited"}}`, http.StatusTooManyRequests)
				return true
			}
			return false
		}
	}
	tests := []struct {
		name  string
		fault fault
		noURL bool
		want  cairn.SleepResult
		// applied: the first group's changes are in
		applied bool
	}{
		{name: "no model", noURL: true, want: cairn.SleepResult{Pending: 2, Status: cairn.ConsolidatePausedUnavailable}},
		{name: "busy from the start", fault: busyFrom(1), want: cairn.SleepResult{Pending: 2, Status: cairn.ConsolidatePausedBusy}},
		{name: "busy after the first group", fault: busyFrom(2), applied: true,
			want: cairn.SleepResult{Groups: 1, Merged: 1, Superseded: 1, Linked: 1, Pending: 1, Status: cairn.ConsolidatePausedBusy,
				Dropped: map[string]int{consolidate.DropSleepConflict: 1, consolidate.DropSleepNotNewer: 1, consolidate.DropSleepUnknownID: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.storeMemories(sleepMemories())
			srv := newWireServer(t, "openai", tt.fault)
			srv.answer = sleepAnswer
			url := srv.URL
			if tt.noURL {
				url = ""
			}
			res := f.sleep(url, nil)
			if tt.want.Dropped == nil {
				tt.want.Dropped = map[string]int{}
			}
			if d := cmp.Diff(tt.want, sleepCounts(res)); d != "" || res.Error == "" {
				t.Errorf("paused pass (error %q) (-want +got):\n%s", res.Error, d)
			}
			got, want := f.states(), wantSleepStates()
			for _, id := range []string{berlin, munich} { // the second group: untouched
				if got[id].Status != cairn.StatusActive || got[id].Body != "" {
					t.Errorf("memory %s half-applied: %+v", id, got[id])
				}
			}
			if applied := cmp.Equal(want[pg14b], got[pg14b]); applied != tt.applied {
				t.Errorf("first group applied: %v, want %v (%+v)", applied, tt.applied, got[pg14b])
			}
			good := newWireServer(t, "openai", nil)
			good.answer = sleepAnswer
			f.sleep(good.URL, nil)
			if d := cmp.Diff(wantSleepStates(), f.states()); d != "" {
				t.Errorf("after the next pass (-want +got):\n%s", d)
			}
			if d := cmp.Diff(wantSleepLinks, f.links()); d != "" {
				t.Errorf("links after the next pass (-want +got):\n%s", d)
			}
		})
	}
}

// TestSleepUndoneByConsolidation: when consolidation writes again or
// removes a memory a sleep decision involved, the decision is undone (what
// it superseded comes back, what absorbed it gives back what it added)
// and the pair is judged again by the next pass.
func TestSleepUndoneByConsolidation(t *testing.T) {
	f := newFixture(t)
	ms := sleepMemories()
	f.storeMemories(ms)
	srv := newWireServer(t, "openai", nil)
	srv.answer = sleepAnswer
	f.sleep(srv.URL, nil)

	// The window that wrote them is read again and writes all but the
	// oldest fact about db1 (the one merged into pg14b).
	var rewrite []cairn.Memory
	for _, m := range ms {
		if m.ID != pg14 {
			rewrite = append(rewrite, m)
		}
	}
	f.storeMemories(rewrite)
	states := f.states()
	if _, ok := states[pg14]; ok {
		t.Errorf("the memory no longer written is still stored")
	}
	for _, id := range []string{pg14b, pg16, backups, berlin, munich} {
		if s := states[id]; s.Status != cairn.StatusActive || s.Body != "" || len(s.Cues) != 1 {
			t.Errorf("memory %s after being written again: %+v, want active and as written", id, s)
		}
	}
	if l := f.links(); len(l) != 0 {
		t.Errorf("links left after the memories were written again: %v", l)
	}
	res := f.sleep(srv.URL, nil)
	if res.Groups != 2 || res.Superseded != 2 || res.Linked != 1 || res.Merged != 0 {
		t.Errorf("the next pass: %+v, want both groups judged again", sleepCounts(res))
	}
}

// TestSleepGroupsJSON pins the JSON names of a sleep result.
func TestSleepGroupsJSON(t *testing.T) {
	f := newFixture(t)
	f.storeMemories(sleepMemories())
	res, err := f.eng.Sleep(context.Background(), nil, &cairn.SleepOptions{DryRun: true},
		&engine.SleepOptions{Tune: func(s *consolidate.Sleeper) { s.MinScore = 2 }})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if string(b) != `{"groups":0,"merged":0,"superseded":0,"linked":0,"profiles":0,"dropped":{},"status":"completed","pending":0,"invalid_answers":0,"failed":0}` {
		t.Errorf("a dry run with a high bar: %s", b)
	}
}
