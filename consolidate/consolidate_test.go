package consolidate_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	goldenfile "github.com/cairnmemory/cairn/internal/golden"
	"github.com/google/go-cmp/cmp"
)

// wantDropped is what the gate drops from the fixture threads' answers.
var wantDropped = map[string]int{
	consolidate.DropEmptyTitle: 1, consolidate.DropEmptySummary: 1,
	consolidate.DropLowConfidence: 1, consolidate.DropContested: 1, consolidate.DropAmbiguous: 1,
	consolidate.DropLowImportance: 1, consolidate.DropUnproven: 1,
	consolidate.DropObservationNoText: 1, consolidate.DropObservationNoSource: 1,
	consolidate.DropEpisodeNotKept: 1, // the desk purchase: keep false
}

// wantResult is a complete run over the shop and long threads: the shop's
// main window and observations window, the long record's main window (3
// parts) and observations window (12 parts).
func wantResult() cairn.ConsolidateResult {
	return cairn.ConsolidateResult{Threads: 2, Windows: 4, Episodes: 3, Items: 3, Observations: 3,
		Dropped: wantDropped, Pending: 0, Status: cairn.ConsolidateCompleted}
}

func counts(r *cairn.ConsolidateResult) cairn.ConsolidateResult {
	c := *r
	c.Plan, c.TokensIn, c.TokensOut, c.Error = nil, 0, 0, ""
	return c
}

// TestConsolidateOverWire runs the worker with the real clients against
// httptest fakes of both wire formats and checks the exact memories
// stored (testdata/memories.golden), the gate's drops, the long record's
// parts, the calendar, observations read apart, redaction, and search.
func TestConsolidateOverWire(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			f := newFixture(t, shopSession(), longSession())
			srv := newWireServer(t, format, nil)
			res := f.run(client(format, srv.URL, 10*time.Second), nil)
			if d := cmp.Diff(wantResult(), counts(res)); d != "" {
				t.Errorf("result (-want +got):\n%s", d)
			}
			ms := f.memories()
			checkGoldenMemories(t, ms)
			reqs := srv.requests()
			checkRequests(t, format, reqs)
			checkSearch(t, f)

			// Everything is done: a second run asks nothing and adds nothing.
			again := f.run(client(format, srv.URL, 10*time.Second), nil)
			if again.Windows != 0 || again.Pending != 0 || again.Threads != 0 || len(srv.requests()) != len(reqs) {
				t.Errorf("second run: %+v after %d more requests, want nothing to do", counts(again), len(srv.requests())-len(reqs))
			}
			if n := len(f.memories()); n != len(ms) {
				t.Errorf("second run left %d memories, want %d", n, len(ms))
			}
		})
	}
}

// checkGoldenMemories compares the stored memories (without their created
// time) with testdata/memories.golden; -update rewrites it.
func checkGoldenMemories(t *testing.T, ms []cairn.Memory) {
	t.Helper()
	for i := range ms {
		ms[i].CreatedAt = time.Time{}
	}
	slices.SortFunc(ms, func(a, b cairn.Memory) int { return strings.Compare(a.Kind+a.Title, b.Kind+b.Title) })
	got, _ := json.MarshalIndent(ms, "", "  ")
	goldenfile.Check(t, filepath.Join("testdata", "memories.golden"), append(got, '\n'))
	for _, m := range ms {
		b, _ := json.Marshal(m)
		if strings.Contains(string(b), "sk-ant-api03") || strings.Contains(string(b), plantedToken) {
			t.Errorf("memory %s keeps a secret: %s", m.ID, b)
		}
	}
	ref := find(ms, "Where the shop deploy key lives")
	if ref == nil || !strings.Contains(ref.Body, "[REDACTED:anthropic-key]") {
		t.Errorf("the reference item's echoed key is not redacted: %+v", ref)
	}
	desk := find(ms, "Dana bought a standing desk from Ikea for 349 euros last Friday …")
	if desk == nil || desk.EventDate != "2026-05-01" || desk.ToldAt != at(4, 9, 30) {
		t.Errorf("the desk observation: %+v, want event 2026-05-01 told 2026-05-04 09:30", desk)
	}
	ep := find(ms, "Find why the queue backs up (through part 3)")
	if ep == nil || !slices.Equal(ep.Cues, []string{"queue backs up 1", "queue backs up 2", "queue backs up 3"}) {
		t.Errorf("the long record's episode is not the last part's with every part's cues: %+v", ep)
	}
}

func find(ms []cairn.Memory, title string) *cairn.Memory {
	for i := range ms {
		if ms[i].Title == title {
			return &ms[i]
		}
	}
	return nil
}

// checkRequests looks at what was sent: no planted secret, the calendar,
// the long record in three parts carrying the episode, observations apart.
func checkRequests(t *testing.T, format string, reqs []string) {
	t.Helper()
	if len(reqs) != 1+1+3+12 {
		t.Errorf("%d requests, want 17 (shop main and observations, 3 main parts and 12 observation parts of the long record)", len(reqs))
	}
	var sys, prompts []string
	srv := &wireServer{format: format}
	for _, b := range reqs {
		if strings.Contains(b, plantedToken) {
			t.Errorf("a request carries the planted token")
		}
		s, p := srv.read([]byte(b))
		sys, prompts = append(sys, s), append(prompts, p)
	}
	if !strings.Contains(prompts[0], "Fri 2026-05-01") || !strings.Contains(prompts[0], "Mon 2026-05-04*") {
		t.Errorf("the shop window has no calendar to resolve last Friday:\n%.600s", prompts[0])
	}
	if !strings.Contains(reqs[0], `"cairn_window"`) || strings.Contains(reqs[0], `"event_date"`) {
		t.Errorf("the main window's schema should leave observations to their own pass")
	}
	if !strings.HasPrefix(sys[1], "You read one small window") || !strings.Contains(reqs[1], `"cairn_observations"`) {
		t.Errorf("request 2 is not the shop's observations window")
	}
	for i, want := range []string{"this is part 1.", "this is part 2.", "this is part 3."} {
		p := prompts[2+i]
		if !strings.Contains(p, want) || chars(p) > 62000 {
			t.Errorf("long record part %d: %d chars, has %q: %v", i+1, chars(p), want, strings.Contains(p, want))
		}
		if i > 0 && !strings.Contains(p, "Title: Find why the queue backs up (through part "+string(rune('0'+i))+")") {
			t.Errorf("part %d does not carry the episode so far", i+1)
		}
	}
	for _, p := range prompts[5:] {
		if chars(p) > 12000+6000+2000 {
			t.Errorf("an observations part of %d chars", chars(p))
		}
	}
}

func chars(s string) int { return len([]rune(s)) }

// checkSearch finds memories through the engine's search, each hit linked
// to the transcript lines it came from.
func checkSearch(t *testing.T, f *fixture) {
	t.Helper()
	hits, err := f.eng.Search(context.Background(), "standing desk Ikea", &cairn.SearchOptions{Corpora: []string{"memories"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Memory == nil || len(hits[0].Memory.Sources) == 0 {
		t.Fatalf("search found no memory hit with sources: %+v", hits)
	}
	src := hits[0].Memory.Sources[0]
	if !strings.HasPrefix(src.Path, "cairn://sessions/") || src.StartLine < 1 || src.EndLine < src.StartLine {
		t.Errorf("hit source %+v: want a transcript path and lines", src)
	}
	got, err := f.eng.Get(context.Background(), src.Path, &cairn.GetOptions{From: src.StartLine, Lines: src.EndLine - src.StartLine + 1})
	if err != nil || !strings.Contains(got.Text, "standing desk") {
		t.Errorf("the source lines do not hold the record: %v %q", err, got.Text)
	}
	if all, _ := f.eng.Search(context.Background(), "standing desk", nil); !slices.ContainsFunc(all, func(h cairn.Hit) bool { return h.Corpus == "memories" }) {
		t.Errorf("a search of every corpus misses the memories")
	}
}

// TestFaults: the model fails in each way the spec names; afterwards
// nothing is lost, nothing duplicated and pending is right.
func TestFaults(t *testing.T) {
	refused := func() string { // a port nobody listens on
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr
	}
	truncate := func(s *wireServer, w http.ResponseWriter, r *http.Request) {
		sys, prompt := s.read(mustRead(r))
		a := script(sys, prompt)
		w.Write([]byte(s.wrap(a[:len(a)/2], "length")))
	}
	tests := []struct {
		name    string
		fault   func(s *wireServer) fault
		url     func(s *wireServer) string
		timeout time.Duration
		first   cairn.ConsolidateResult // the faulty run
	}{
		{name: "429 then success", fault: func(*wireServer) fault {
			return func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n == 1 {
					w.Header().Set("Retry-After", "0")
					http.Error(w, `{"error":{"message":"rate limited"}}`, http.StatusTooManyRequests)
					return true
				}
				return false
			}
		}, first: wantResult()},
		{name: "timeout", timeout: 300 * time.Millisecond, fault: func(*wireServer) fault {
			return func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n == 1 {
					<-r.Context().Done() // never answers; the client gives up
					return true
				}
				return false
			}
		}, first: cairn.ConsolidateResult{Threads: 2, Dropped: map[string]int{}, Pending: 4, Status: cairn.ConsolidatePausedBusy}},
		{name: "connection refused", url: func(*wireServer) string { return refused() },
			first: cairn.ConsolidateResult{Threads: 2, Dropped: map[string]int{}, Pending: 4, Status: cairn.ConsolidatePausedUnavailable}},
		{name: "truncated JSON once", fault: func(s *wireServer) fault {
			return func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n == 1 {
					truncate(s, w, r)
					return true
				}
				return false
			}
		}, first: func() cairn.ConsolidateResult { r := wantResult(); r.InvalidAnswers = 1; return r }()},
		{name: "truncated JSON every time for one window", fault: func(s *wireServer) fault {
			return func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n <= 2 { // the shop's main window and its one retry
					truncate(s, w, r)
					return true
				}
				return false
			}
		}, first: cairn.ConsolidateResult{Threads: 2, Windows: 3, Episodes: 1, Items: 1, Observations: 3,
			Dropped: map[string]int{consolidate.DropInvalidAnswer: 1, consolidate.DropObservationNoText: 1, consolidate.DropObservationNoSource: 1},
			Pending: 3, Status: cairn.ConsolidateCompletedWithFailures, InvalidAnswers: 2, Failed: 1,
			Failures: []cairn.WindowFailure{{Thread: shopThread, Pass: "main", Records: 3, Tries: 1, Reason: "answer cut at the output limit (max_tokens 32000)"}}}},
	}
	for _, format := range formats {
		for _, tt := range tests {
			t.Run(format+"/"+tt.name, func(t *testing.T) {
				f := newFixture(t, shopSession(), longSession())
				var fl fault
				srv := newWireServer(t, format, nil)
				if tt.fault != nil {
					fl = tt.fault(srv)
				}
				srv.setFault(fl)
				url := srv.URL
				if tt.url != nil {
					url = tt.url(srv)
				}
				timeout := tt.timeout
				if timeout == 0 {
					timeout = 10 * time.Second
				}
				res := f.run(client(format, url, timeout), nil)
				if d := cmp.Diff(tt.first, counts(res)); d != "" {
					t.Errorf("faulty run (-want +got):\n%s", d)
				}
				if res.Status != cairn.ConsolidateCompleted && res.Status != cairn.ConsolidateCompletedWithFailures && res.Error == "" {
					t.Errorf("a paused run says no why")
				}
				// The next run with a working model finishes the rest.
				good := newWireServer(t, format, nil)
				f.run(client(format, good.URL, 10*time.Second), nil)
				checkComplete(t, f)
			})
		}
	}
}

func mustRead(r *http.Request) []byte {
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := r.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return []byte(b.String())
}

// checkComplete: every record is done and the stored memories are exactly
// the golden ones, each once, each indexed once.
func checkComplete(t *testing.T, f *fixture) {
	t.Helper()
	dry := f.run(nil, &cairn.ConsolidateOptions{DryRun: true})
	if dry.Pending != 0 || dry.Windows != 0 {
		t.Errorf("after the rerun: %d records pending in %d windows, want none", dry.Pending, dry.Windows)
	}
	ms := f.memories()
	ids := map[string]bool{}
	for _, m := range ms {
		if ids[m.ID] {
			t.Errorf("memory %s stored twice", m.ID)
		}
		ids[m.ID] = true
	}
	checkGoldenMemories(t, ms)
	docs, err := f.eng.Store().DocStates(context.Background(), "memories")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(ms) {
		t.Errorf("%d memory documents indexed for %d memories", len(docs), len(ms))
	}
}

// shopThread is the shop session's thread key.
const shopThread = "sessions/claude-code/unknown/default/shop/2026-05-04T09-00-00Z--s-shop.md"
