package consolidate_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/redact/redacttest"
)

var toldAt = time.Date(2026, 12, 1, 13, 20, 5, 0, time.FixedZone("CET", 3600))

func fact(mod func(r *cairn.RememberRequest)) *cairn.RememberRequest {
	r := &cairn.RememberRequest{Kind: "fact", Title: "Staging database", Summary: "Staging runs Postgres 16 on db-stage-2.", Agent: "claude"}
	if mod != nil {
		mod(r)
	}
	return r
}

func obs(mod func(r *cairn.RememberRequest)) *cairn.RememberRequest {
	r := &cairn.RememberRequest{Kind: "observation", Summary: "Maya visited the Louvre.", About: "Maya", Agent: "cli"}
	if mod != nil {
		mod(r)
	}
	return r
}

// TestToldValidation: every rule the gate applies to an item refuses the
// request with an ErrInvalid naming the field and what is allowed.
func TestToldValidation(t *testing.T) {
	long := strings.Repeat("x", consolidate.MaxToldTitle+1)
	cases := []struct {
		name string
		req  *cairn.RememberRequest
		want string // "" : accepted
	}{
		{"item", fact(nil), ""},
		{"observation", obs(nil), ""},
		{"kind upper case", fact(func(r *cairn.RememberRequest) { r.Kind = " Decision " }), ""},
		{"no agent", fact(func(r *cairn.RememberRequest) { r.Agent = " " }), "agent is required"},
		{"no kind", fact(func(r *cairn.RememberRequest) { r.Kind = "" }), "kind is required: allowed decision, procedure"},
		{"episode", fact(func(r *cairn.RememberRequest) { r.Kind = "episode" }), "kind episode: allowed decision"},
		{"profile", fact(func(r *cairn.RememberRequest) { r.Kind = "profile" }), "kind profile: allowed"},
		{"unknown kind", fact(func(r *cairn.RememberRequest) { r.Kind = "gossip" }), `kind "gossip": allowed decision, procedure, snippet, template, pitfall, fact, architecture, preference, reference, observation`},
		{"no summary", fact(func(r *cairn.RememberRequest) { r.Summary = " \n" }), "summary is required"},
		{"item without title", fact(func(r *cairn.RememberRequest) { r.Title = "" }), "title is required for a fact"},
		{"inferred", fact(func(r *cairn.RememberRequest) { r.Confidence = "inferred" }), `confidence "inferred": allowed stated or verified`},
		{"verified", fact(func(r *cairn.RememberRequest) { r.Confidence = "Verified" }), ""},
		{"importance 1", fact(func(r *cairn.RememberRequest) { r.Importance = 1 }), "importance 1: allowed 2 to 5"},
		{"importance 6", fact(func(r *cairn.RememberRequest) { r.Importance = 6 }), "importance 6: allowed 2 to 5"},
		{"importance 5", fact(func(r *cairn.RememberRequest) { r.Importance = 5 }), ""},
		{"scope", fact(func(r *cairn.RememberRequest) { r.Scope = "team" }), `scope "team": allowed project, global, person`},
		{"about on an item", fact(func(r *cairn.RememberRequest) { r.About = "Maya" }), "about is for observations, not kind fact"},
		{"phase on an item", fact(func(r *cairn.RememberRequest) { r.Phase = "done" }), "phase is for observations"},
		{"scope on an observation", obs(func(r *cairn.RememberRequest) { r.Scope = "global" }), "scope is for items, not kind observation"},
		{"title on an observation", obs(func(r *cairn.RememberRequest) { r.Title = "Louvre" }), "title is for items"},
		{"importance on an observation", obs(func(r *cairn.RememberRequest) { r.Importance = 3 }), "importance is for items"},
		{"phase", obs(func(r *cairn.RememberRequest) { r.Phase = "maybe" }), `phase "maybe": allowed done, plan, ongoing, state`},
		{"event date", obs(func(r *cairn.RememberRequest) { r.EventDate = "2023-06" }), ""},
		{"bad event date", obs(func(r *cairn.RememberRequest) { r.EventDate = "2023-13" }), `event_date "2023-13": allowed a real date as YYYY, YYYY-MM or YYYY-MM-DD`},
		{"words as a date", obs(func(r *cairn.RememberRequest) { r.StartDate = "last June" }), `start_date "last June": allowed`},
		{"bad end", obs(func(r *cairn.RememberRequest) { r.EndDate = "2023-02-30" }), `end_date "2023-02-30"`},
		{"event and span", obs(func(r *cairn.RememberRequest) { r.EventDate, r.EndDate = "2023", "2024" }), "event_date with start_date or end_date: allowed an event date or a span, not both"},
		{"span", obs(func(r *cairn.RememberRequest) { r.StartDate, r.EndDate = "2023-06", "2023-06-10" }), ""},
		{"open span", obs(func(r *cairn.RememberRequest) { r.StartDate = "2023" }), ""},
		{"span backwards", obs(func(r *cairn.RememberRequest) { r.StartDate, r.EndDate = "2023-07", "2023-06-15" }), "start_date 2023-07 is after end_date 2023-06-15"},
		{"observation cues", obs(func(r *cairn.RememberRequest) { r.Cues = []string{"a", "b", "c", "d", "e"} }), "5 cues: allowed at most 4"},
		{"repeated cues count once", obs(func(r *cairn.RememberRequest) { r.Cues = []string{"a", "A", "b", " ", "c", "d"} }), ""},
		{"observation concepts", obs(func(r *cairn.RememberRequest) { r.Concepts = []string{"a", "b", "c", "d", "e", "f", "g"} }), "7 concepts: allowed at most 6"},
		{"long title", fact(func(r *cairn.RememberRequest) { r.Title = long }), "title is 301 characters: allowed at most 300"},
		{"long cue", fact(func(r *cairn.RememberRequest) { r.Cues = []string{"ok", long} }), "cues[1] is 301 characters"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := consolidate.Told(c.req, toldAt)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want == "":
			case err == nil:
				t.Fatalf("accepted, want an error with %q", c.want)
			case !errors.Is(err, cairn.ErrInvalid):
				t.Fatalf("error %v does not match ErrInvalid", err)
			case !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q lacks %q", err, c.want)
			}
		})
	}
}

// TestToldMemory: defaults, the provenance text, the id (the same agent
// telling the same thing again gets the same id; another agent another).
func TestToldMemory(t *testing.T) {
	m, err := consolidate.Told(fact(func(r *cairn.RememberRequest) { r.Cues = []string{"staging db", "Staging database"} }), toldAt)
	if err != nil {
		t.Fatal(err)
	}
	want := "told by claude at 2026-12-01T12:20:05Z"
	if len(m.Provenance) != 1 || m.Provenance[0].Record != want || m.Provenance[0].Corpus != consolidate.ToldSource || m.Provenance[0].Path != "" {
		t.Fatalf("provenance %+v, want one entry %q", m.Provenance, want)
	}
	if consolidate.ToldText("claude", toldAt) != want {
		t.Fatalf("ToldText = %q", consolidate.ToldText("claude", toldAt))
	}
	if !m.ToldAt.Equal(toldAt) || m.ToldAt.Location() != time.UTC || m.Thread != "told/claude" || !consolidate.IsTold(&m) {
		t.Fatalf("told at %v thread %q source %q", m.ToldAt, m.Thread, m.Source)
	}
	if m.Confidence != "stated" || m.Importance != 3 || m.Scope != "project" || m.Status != cairn.StatusActive {
		t.Fatalf("defaults: %+v", m)
	}
	if len(m.Cues) != 1 || m.Cues[0] != "staging db" { // the title is no cue
		t.Fatalf("cues %q", m.Cues)
	}
	if !strings.HasPrefix(m.ID, "m-") || len(m.ID) != 18 {
		t.Fatalf("id %q", m.ID)
	}
	again, _ := consolidate.Told(fact(func(r *cairn.RememberRequest) { r.Summary = "  Staging runs Postgres 16\non db-stage-2. " }), toldAt.Add(time.Hour))
	other, _ := consolidate.Told(fact(func(r *cairn.RememberRequest) { r.Agent = "codex" }), toldAt)
	if again.ID != m.ID || other.ID == m.ID {
		t.Fatalf("ids: %s, again %s, other agent %s", m.ID, again.ID, other.ID)
	}
	doc := consolidate.Document(&m)
	if !strings.Contains(doc, "Sources:\n- "+want+"\n") {
		t.Fatalf("document lacks the provenance line:\n%s", doc)
	}
	o, err := consolidate.Told(obs(func(r *cairn.RememberRequest) { r.Summary = "Visited the Louvre on a rainy day." }), toldAt)
	if err != nil {
		t.Fatal(err)
	}
	if o.Title != "Maya: Visited the Louvre on a rainy day." || o.Phase != "done" || o.Confidence != "" || o.Importance != 0 {
		t.Fatalf("observation %+v", o)
	}
}

// TestToldRedacted plants a secret of every kind in every text field; none
// is left in the stored memory.
func TestToldRedacted(t *testing.T) {
	for _, s := range redacttest.Samples() {
		line := strings.ReplaceAll(s.Line, "\n", " ") // one-line fields fold lines anyway
		req := fact(func(r *cairn.RememberRequest) {
			r.Title, r.Summary, r.Body = "Key "+line, "The key: "+line, "Body:\n"+s.Line
			r.AppliesWhen, r.Cues, r.Concepts, r.Agent = line, []string{"cue " + line}, []string{"concept " + line}, "agent "+line
		})
		o := obs(func(r *cairn.RememberRequest) { r.About, r.Summary = "about "+line, "saw "+line })
		for _, r := range []*cairn.RememberRequest{req, o} {
			m, err := consolidate.Told(r, toldAt)
			if err != nil {
				t.Fatalf("%s: %v", s.Kind, err)
			}
			b, _ := json.Marshal(m)
			if leaked := redacttest.Leaked(string(b) + consolidate.Document(&m)); len(leaked) > 0 {
				t.Errorf("%s (%s): leaked %q", s.Kind, r.Kind, leaked)
			}
		}
	}
}

// TestSleepGroupsTold: the sleep pass groups a told observation with the
// observation consolidation made of the same purchase.
func TestSleepGroupsTold(t *testing.T) {
	f := newFixture(t, shopSession())
	srv := newWireServer(t, "openai", nil)
	f.consolidateAt(srv.URL, at(5, 9, 0), 0, nil)
	var desk string
	for _, m := range f.memories() {
		if strings.HasPrefix(m.Summary, "Dana bought a standing desk") {
			desk = m.ID
		}
	}
	if desk == "" {
		t.Fatal("consolidation made no observation of the desk")
	}
	told, err := f.eng.Remember(context.Background(), &cairn.RememberRequest{Kind: "observation", About: "Dana",
		Summary: "Dana bought a standing desk at Ikea, 349 euros.", EventDate: "2026-05-01", Concepts: []string{"standing desk"}, Agent: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	dry := f.sleep("", &cairn.SleepOptions{DryRun: true})
	for _, g := range dry.Plan {
		if slices.Contains(g.Members, desk) && slices.Contains(g.Members, told.Memory.ID) {
			return
		}
	}
	t.Fatalf("no sleep group holds %s (consolidated) and %s (told): %+v", desk, told.Memory.ID, dry.Plan)
}
