package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// recallFixture is the session fixtures synced, with memories committed
// through the store's CommitWindow and indexed as consolidation indexes
// them (Worker.Index is Engine.indexMemories): five memories, two of them
// from the acme-api session.
type recallFixture struct {
	*sessionsFixture
	acme, other string // session threads: corpus/projection path
}

func newRecallFixture(t *testing.T) *recallFixture {
	t.Helper()
	ctx := context.Background()
	f := &recallFixture{sessionsFixture: newSessionsFixture(t)}
	f.sync()
	acme, err := f.eng.store.FilterSessions(ctx, []string{"sessions"}, cairn.SessionFilter{Cwd: "/home/dev/acme-api"})
	if err != nil || len(acme) == 0 {
		t.Fatalf("acme-api sessions: %v %v", acme, err)
	}
	other, err := f.eng.store.FilterSessions(ctx, []string{"sessions"}, cairn.SessionFilter{Source: cairn.SourceOpenClaw})
	other = slices.DeleteFunc(other, func(p string) bool { return slices.Contains(acme, p) })
	if err != nil || len(other) == 0 {
		t.Fatalf("openclaw sessions outside acme-api: %v %v", other, err)
	}
	f.acme, f.other = acme[0], other[0]
	told := func(day string) time.Time { t, _ := time.Parse(time.RFC3339, day+"T10:00:00Z"); return t }
	mem := func(id, kind, scope, thread, toldDay, event, start, end string) cairn.Memory {
		return cairn.Memory{ID: id, Kind: kind, Title: "Lantern " + id, Summary: "The lantern note " + id + ".",
			Scope: scope, Thread: "sessions/" + thread, Cues: []string{"lantern " + id}, Concepts: []string{"lantern"},
			ToldAt: told(toldDay), EventDate: event, StartDate: start, EndDate: end, Status: cairn.StatusActive,
			Provenance: []cairn.Provenance{{Record: "r-" + id, Corpus: "sessions", Path: "cairn://sessions/" + thread, StartLine: 1, EndLine: 3}}}
	}
	byThread := map[string][]cairn.Memory{
		f.acme: {
			mem("m-a", "fact", "project", f.acme, "2026-05-01", "2023-06-10", "", ""),
			mem("m-c", cairn.MemoryObservation, "", f.acme, "2026-05-05", "2023", "", ""),
		},
		f.other: {
			mem("m-b", "decision", "global", f.other, "2026-05-03", "", "2023-05-20", "2023-07-02"),
			mem("m-d", cairn.MemoryEpisode, "", f.other, "2026-05-07", "", "", ""),
			mem("m-e", "preference", "person", f.other, "2026-05-09", "2024-01", "", ""),
		},
	}
	for thread, ms := range byThread {
		var recs []string
		for _, m := range ms {
			recs = append(recs, m.Provenance[0].Record)
		}
		res, err := f.eng.store.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: thread, Pass: "main",
			Records: recs, Hashes: make([]string, len(recs)), Memories: ms})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.eng.indexMemories(ctx, ms, res); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// recall searches the memories corpus alone for "lantern" and returns the
// memory ids of the hits, sorted.
func (f *recallFixture) recall(filter *cairn.MemorySearch) ([]string, []cairn.Hit, error) {
	hits, err := f.eng.Search(context.Background(), "lantern", &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus},
		Limit: 50, Mode: cairn.ModeLexical, Memories: filter})
	var ids []string
	for _, h := range hits {
		if h.Memory == nil {
			f.t.Fatalf("hit without its memory: %+v", h)
		}
		ids = append(ids, h.Memory.ID)
	}
	slices.Sort(ids)
	return ids, hits, err
}

func TestRecallFilters(t *testing.T) {
	f := newRecallFixture(t)
	day := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	tests := []struct {
		name   string
		filter *cairn.MemorySearch
		want   []string
	}{
		{"no filter", nil, []string{"m-a", "m-b", "m-c", "m-d", "m-e"}},
		{"kinds", &cairn.MemorySearch{Kinds: []string{"fact", "decision"}}, []string{"m-a", "m-b"}},
		{"scope", &cairn.MemorySearch{Scope: "project"}, []string{"m-a"}},
		{"project", &cairn.MemorySearch{Project: "/home/dev/acme-api"}, []string{"m-a", "m-c"}},
		{"project none", &cairn.MemorySearch{Project: "/home/dev/nowhere"}, nil},
		{"status active", &cairn.MemorySearch{Status: cairn.StatusActive}, []string{"m-a", "m-b", "m-c", "m-d", "m-e"}},
		{"told from", &cairn.MemorySearch{ToldFrom: day("2026-05-04T00:00:00Z")}, []string{"m-c", "m-d", "m-e"}},
		{"told to", &cairn.MemorySearch{ToldTo: day("2026-05-02T00:00:00Z")}, []string{"m-a"}},
		{"told range", &cairn.MemorySearch{ToldFrom: day("2026-05-02T00:00:00Z"), ToldTo: day("2026-05-06T00:00:00Z")}, []string{"m-b", "m-c"}},
		{"event and kind", &cairn.MemorySearch{From: "2023-06", To: "2023-06", Kinds: []string{cairn.MemoryObservation}}, []string{"m-c"}},
	}
	for _, tt := range tests {
		got, hits, err := f.recall(tt.filter)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
		for _, h := range hits {
			if h.Corpus != cairn.MemoriesCorpus {
				t.Errorf("%s: hit from %s", tt.name, h.Corpus)
			}
		}
	}
}

// TestRecallEventOverlap is the overlap rule of the event-time range: a
// date covers its days at its precision, a span from its start to its
// end, and a memory with neither matches no range. The memories: m-a
// 2023-06-10, m-b 2023-05-20 to 2023-07-02, m-c 2023, m-d none, m-e
// 2024-01.
func TestRecallEventOverlap(t *testing.T) {
	f := newRecallFixture(t)
	tests := []struct {
		from, to string
		want     []string
	}{
		{"2023-06", "2023-06", []string{"m-a", "m-b", "m-c"}},       // "2023-06" overlaps 2023-06-10
		{"2023-06-10", "2023-06-10", []string{"m-a", "m-b", "m-c"}}, // one day
		{"2023-06-11", "2023-06-30", []string{"m-b", "m-c"}},        // after m-a's day, inside m-b's span
		{"2023-07-03", "", []string{"m-c", "m-e"}},                  // open end, past m-b's end
		{"", "2023-05-19", []string{"m-c"}},                         // open start, before m-b's start
		{"2023-07-02", "2023-07-02", []string{"m-b", "m-c"}},        // m-b's last day
		{"2024", "2024", []string{"m-e"}},                           // a year holds a month
		{"2024-01-31", "2024-02", []string{"m-e"}},                  // a month's last day
		{"2022", "2022-12-31", nil},                                 // before everything
		{"2023", "", []string{"m-a", "m-b", "m-c", "m-e"}},          // m-d has no event date
		{"2025", "2030", nil},                                       // after everything
		{"2023-05-20", "2023-05-20", []string{"m-b", "m-c"}},        // m-b's first day
		{"2023-12-31", "2024-01-01", []string{"m-c", "m-e"}},        // across the year
		{"2023-06-01", "2023-06-09", []string{"m-b", "m-c"}},        // June before m-a's day
		{"2023-01", "2023-05", []string{"m-b", "m-c"}},              // m-b starts in May
		{"2023-07", "2023-07", []string{"m-b", "m-c"}},              // m-b ends in July
		{"2023-08", "2023-12", []string{"m-c"}},                     // only the year
		{"2024-02", "", nil},                                        // after m-e's month
		{"", "", []string{"m-a", "m-b", "m-c", "m-d", "m-e"}},       // no range
	}
	for _, tt := range tests {
		got, _, err := f.recall(&cairn.MemorySearch{From: tt.from, To: tt.to})
		if err != nil {
			t.Fatalf("%s..%s: %v", tt.from, tt.to, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s..%s: %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
}

func TestRecallBadFilters(t *testing.T) {
	f := newRecallFixture(t)
	day := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	tests := []struct {
		filter cairn.MemorySearch
		field  string
	}{
		{cairn.MemorySearch{Kinds: []string{"fact", "nope"}}, "memoryFilter.kinds[1] \"nope\": allowed episode, observation, decision"},
		{cairn.MemorySearch{Scope: "team"}, "memoryFilter.scope \"team\": allowed project, global, person"},
		{cairn.MemorySearch{Status: cairn.StatusSuperseded}, "memoryFilter.status \"superseded\": allowed active"},
		{cairn.MemorySearch{From: "2023-13"}, "memoryFilter.from \"2023-13\": allowed a date as YYYY, YYYY-MM or YYYY-MM-DD"},
		{cairn.MemorySearch{To: "2023-06-10T00:00:00Z"}, "memoryFilter.to"},
		{cairn.MemorySearch{From: "2023-07", To: "2023-06"}, "memoryFilter.from 2023-07 is after memoryFilter.to 2023-06"},
		{cairn.MemorySearch{ToldFrom: day("2026-05-05T00:00:00Z"), ToldTo: day("2026-05-04T00:00:00Z")}, "memoryFilter.toldFrom"},
	}
	for _, tt := range tests {
		_, _, err := f.recall(&tt.filter)
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tt.field) {
			t.Errorf("%+v: %v, want an invalid error with %q", tt.filter, err, tt.field)
		}
	}
	// A memory filter is checked even when the memories corpus is not
	// searched, and the limit of a search of other corpora stays 100.
	_, err := f.eng.Search(context.Background(), "lantern", &cairn.SearchOptions{Corpora: []string{"sessions"},
		Memories: &cairn.MemorySearch{Scope: "team"}})
	if !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("bad filter on sessions alone: %v", err)
	}
	_, err = f.eng.Search(context.Background(), "lantern", &cairn.SearchOptions{Limit: 150})
	if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "allowed 1 to 100") {
		t.Errorf("limit 150 over every corpus: %v", err)
	}
	if _, _, err := f.recall(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Search(context.Background(), "lantern", &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}, Limit: 200}); err != nil {
		t.Errorf("limit 200 over memories: %v", err)
	}
}

// TestRecallHitFields: a memory hit carries the memory's fields, and a
// session filter with a memory filter narrows each its own corpus, the
// other corpora staying.
func TestRecallHitFields(t *testing.T) {
	f := newRecallFixture(t)
	_, hits, err := f.recall(&cairn.MemorySearch{Kinds: []string{"decision"}})
	if err != nil || len(hits) != 1 {
		t.Fatalf("decision: %v %v", hits, err)
	}
	m := hits[0].Memory
	want := cairn.MemoryHit{ID: "m-b", Kind: "decision", Title: "Lantern m-b", Status: cairn.StatusActive,
		StartDate: "2023-05-20", EndDate: "2023-07-02", ToldAt: "2026-05-03T10:00:00Z", Scope: "global"}
	if m.ID != want.ID || m.Kind != want.Kind || m.Title != want.Title || m.Status != want.Status || m.StartDate != want.StartDate ||
		m.EndDate != want.EndDate || m.ToldAt != want.ToldAt || m.Scope != want.Scope || m.EventDate != "" {
		t.Errorf("memory hit %+v, want %+v", *m, want)
	}
	if len(m.Sources) != 1 || m.Sources[0].Path != "cairn://sessions/"+f.other {
		t.Errorf("sources %+v", m.Sources)
	}

	// Both filters: session hits only from codex, memory hits only facts;
	// neither corpus is dropped by the other's filter.
	hits, err = f.eng.Search(context.Background(), "lantern OR test OR fence OR units OR migrations", &cairn.SearchOptions{Limit: 50,
		Mode: cairn.ModeLexical, Sessions: &cairn.SessionFilter{Source: cairn.SourceCodex}, Memories: &cairn.MemorySearch{Kinds: []string{"fact"}}})
	if err != nil {
		t.Fatal(err)
	}
	var sessions, memories int
	for _, h := range hits {
		switch h.Corpus {
		case cairn.MemoriesCorpus:
			memories++
			if h.Memory == nil || h.Memory.Kind != "fact" {
				t.Errorf("memory hit %+v", h.Memory)
			}
		case "sessions":
			sessions++
			if h.Session == nil || h.Session.Source != cairn.SourceCodex {
				t.Errorf("session hit %+v", h.Session)
			}
		}
	}
	if sessions == 0 || memories != 1 {
		t.Errorf("%d session hits, %d memory hits; want some and 1", sessions, memories)
	}
	// A memory filter that matches nothing leaves the session hits.
	hits, err = f.eng.Search(context.Background(), "lantern OR test OR fence OR units OR migrations", &cairn.SearchOptions{Limit: 50,
		Mode: cairn.ModeLexical, Memories: &cairn.MemorySearch{From: "1990", To: "1990"}})
	if err != nil || len(hits) == 0 || slices.ContainsFunc(hits, func(h cairn.Hit) bool { return h.Corpus == cairn.MemoriesCorpus }) {
		t.Errorf("memory filter matching none: %d hits, %v", len(hits), err)
	}

	c, err := f.eng.CountMemories(context.Background())
	if err != nil || c.Total != 5 || c.ByStatus[cairn.StatusActive] != 5 || c.ByKind["fact"] != 1 || c.ByKind[cairn.MemoryObservation] != 1 {
		t.Errorf("counts %+v %v", c, err)
	}
}

// TestRecallBeyondHundred: a search of the memories corpus alone returns
// up to 200 memories (lexical lane asked for up to 200 candidates).
func TestRecallBeyondHundred(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{"a.md": "# Notes\n\nNothing here.\n"}, Options{})
	f.sync()
	var ms []cairn.Memory
	var recs []string
	for i := range 150 {
		id := fmt.Sprintf("m-%04d", i)
		ms = append(ms, cairn.Memory{ID: id, Kind: "fact", Title: "Lantern fact " + id, Summary: "The lantern holds fact " + id + ".",
			Thread: "sessions/t.md", Cues: []string{}, Concepts: []string{}, Status: cairn.StatusActive,
			Provenance: []cairn.Provenance{{Record: "r" + id, Corpus: "sessions", Path: "cairn://sessions/t.md"}}})
		recs = append(recs, "r"+id)
	}
	res, err := f.eng.store.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main",
		Records: recs, Hashes: make([]string, len(recs)), Memories: ms})
	if err != nil {
		t.Fatal(err)
	}
	opts := f.eng.opts
	f.eng.Close(ctx)
	eng, err := Open(ctx, opts) // the memories corpus is added now that memories are stored
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(ctx) })
	if err := eng.indexMemories(ctx, ms, res); err != nil {
		t.Fatal(err)
	}
	hits, err := eng.Search(ctx, "lantern", &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}, Limit: cairn.MaxRecallLimit})
	if err != nil || len(hits) != 150 {
		t.Fatalf("%d hits (%v), want all 150 memories", len(hits), err)
	}
	hits, err = eng.Search(ctx, "lantern", &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}, Limit: 120,
		Memories: &cairn.MemorySearch{Kinds: []string{"fact"}}})
	if err != nil || len(hits) != 120 {
		t.Fatalf("%d hits with a filter (%v), want 120", len(hits), err)
	}
}

// TestRememberWithoutMemoriesCorpus: an engine opened with notes alone (no
// sessions corpus, no memories: the memories corpus is not live) searches
// a memory remembered later at once, by name and by default, without a
// reopen; one remembered by another engine on the same data directory (a
// CLI beside a server) too. Before, the search failed with "unknown
// corpus: memories" until a restart.
func TestRememberWithoutMemoriesCorpus(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{"a.md": "# Garden\n\nThe tomatoes need compost.\n"}, Options{})
	f.sync()
	for _, c := range f.eng.SearchCorpora() {
		if c.Kind == cairn.KindMemories {
			t.Fatalf("an engine of notes alone lists %v", f.eng.SearchCorpora())
		}
	}
	// Asked for by name before the first memory, it answers with no hits
	// (it used to be "unknown corpus: memories", a usage error: ux F18);
	// beside another corpus, that one answers.
	if hits, err := f.eng.Search(ctx, "okapi", &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}}); err != nil || len(hits) != 0 {
		t.Fatalf("memories before any memory is stored: %v, %v; want no hits, no error", hits, err)
	}
	if hits, err := f.eng.Search(ctx, "tomatoes", &cairn.SearchOptions{Corpora: []string{"Memories", f.eng.opts.Corpora[0].Name}}); err != nil || len(hits) != 1 {
		t.Fatalf("memories and the notes before any memory is stored: %v, %v; want the note", hits, err)
	}
	if slices.ContainsFunc(f.eng.SearchCorpora(), func(c cairn.Corpus) bool { return c.Kind == cairn.KindMemories }) {
		t.Fatal("the memories corpus is live before any memory is stored")
	}
	res, err := f.eng.Remember(ctx, &cairn.RememberRequest{Agent: "test", Kind: "fact", Title: "Okapi review", Summary: "The okapi review is on Fridays."})
	if err != nil {
		t.Fatal(err)
	}
	if got := memoryIDs(t, f.eng, "okapi review", cairn.ModeLexical); len(got) != 1 || got[0] != res.Memory.ID {
		t.Fatalf("memories found after remember = %v, want %s", got, res.Memory.ID)
	}
	hits, err := f.eng.Search(ctx, "okapi", nil) // every corpus
	if err != nil || len(hits) != 1 || hits[0].Memory == nil {
		t.Fatalf("default search = %+v, %v; want the memory", hits, err)
	}
	if !slices.ContainsFunc(f.eng.SearchCorpora(), func(c cairn.Corpus) bool { return c.Kind == cairn.KindMemories }) {
		t.Errorf("SearchCorpora after remember = %v, want the memories corpus", f.eng.SearchCorpora())
	}

	// Another engine on a second data directory of notes alone, and a
	// third opened on it meanwhile that remembers.
	g := newFixture(t, map[string]string{"b.md": "# Bees\n\nThe hive needs a roof.\n"}, Options{})
	g.sync()
	other, err := Open(ctx, g.eng.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	res, err = other.Remember(ctx, &cairn.RememberRequest{Agent: "cli", Kind: "fact", Title: "Hive roof", Summary: "The hive roof is cedar."})
	if err != nil {
		t.Fatal(err)
	}
	if got := memoryIDs(t, g.eng, "cedar roof", cairn.ModeLexical); len(got) != 1 || got[0] != res.Memory.ID {
		t.Fatalf("memories the first engine finds after another remembered = %v, want %s", got, res.Memory.ID)
	}
}

// TestRecallFillsTwoHundred: a memories-only search asking for
// cairn.MaxRecallLimit results gets them when that many memories match,
// in lexical and hybrid mode. A memory is several chunks (content key,
// body, one per cue), each a candidate of its own in a lane, and the
// lanes asked for at most 200 (lexical) or 100 (hybrid's lexical lane)
// and 300 (vector) chunks: a 200-result search returned about 70 to 170.
func TestRecallFillsTwoHundred(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{"a.md": "# Notes\n\nNothing here.\n"}, Options{Embedder: &conceptEmbedder{model: "v1"},
		Corpora: nil})
	var ms []cairn.Memory
	var recs []string
	for i := range 260 {
		id := fmt.Sprintf("m-fill%04d", i)
		ms = append(ms, cairn.Memory{ID: id, Kind: "fact", Title: fmt.Sprintf("Compost pile %d", i),
			Summary: fmt.Sprintf("The compost pile %d needs turning.", i), Body: "Turn the compost weekly and keep the compost moist.",
			Cues: []string{"compost turning", "compost moisture", "compost pile"}, Concepts: []string{}, Thread: "sessions/t.md",
			ToldAt: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC), Status: cairn.StatusActive,
			Provenance: []cairn.Provenance{{Record: "r" + id, Corpus: "sessions", Path: "cairn://sessions/t.md"}}})
		recs = append(recs, "r"+id)
	}
	if _, err := f.eng.store.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main", Records: recs,
		Hashes: make([]string, len(recs)), Memories: ms}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{cairn.ModeLexical, cairn.ModeHybrid} {
		hits, err := f.eng.Search(ctx, "compost", &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}, Limit: cairn.MaxRecallLimit, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, h := range hits {
			if h.Memory != nil {
				seen[h.Memory.ID] = true
			}
		}
		if len(hits) != cairn.MaxRecallLimit || len(seen) != cairn.MaxRecallLimit {
			t.Errorf("%s: %d hits of %d memories, want %d of as many", mode, len(hits), len(seen), cairn.MaxRecallLimit)
		}
	}
}
