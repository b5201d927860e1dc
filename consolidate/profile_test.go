package consolidate_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/engine"
)

// caroline is observation i about Caroline, told on May i+1 from record
// r-c<i>.
func caroline(i int, text string) cairn.Memory {
	m := sleepMemory(fmt.Sprintf("m-c%015d", i), cairn.MemoryObservation, i+1, text, text, []string{"Caroline", "LGBTQ support group"}, fmt.Sprintf("r-c%d", i))
	m.About, m.Confidence, m.Importance, m.Scope, m.EventDate = "Caroline", "", 0, "", fmt.Sprintf("2026-05-%02d", i+1)
	return m
}

var carolineFacts = []string{
	"Caroline went to an LGBTQ support group meeting on Tuesday.",
	"Caroline is researching adoption agencies.",
	"Caroline moved from Sweden four years ago.",
	"Caroline plans to study counseling.",
	"Caroline painted a sunrise over a lake.",
	"Caroline ran a charity race for mental health.",
}

// profileModel answers sleep groups with no decisions and profiles with
// a summary naming how many observations it read; it records every
// profile request.
type profileModel struct {
	profiles []*cairn.LLMRequest
}

func (p *profileModel) Complete(_ context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	if req.SchemaName != "cairn_profile" {
		return &cairn.LLMResponse{Text: `{"duplicates":[],"supersedes":[],"related":[]}`}, nil
	}
	p.profiles = append(p.profiles, req)
	n := strings.Count(req.Prompt, "\n- [")
	return &cairn.LLMResponse{Text: fmt.Sprintf(`{"summary":"Caroline is a counseling student from Sweden; profile of %d observations.","body":"Now:\n- plans to study counseling\nHistory:\n- 2026-05-01 went to an LGBTQ support group","cues":["who is Caroline?","what do I know about Caroline"]}`, n)}, nil
}

func activeProfiles(t *testing.T, f *fixture) []cairn.Memory {
	t.Helper()
	ms, err := f.eng.Memories(context.Background(), cairn.MemoryFilter{Kind: cairn.MemoryProfile, Status: cairn.StatusActive})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func (f *fixture) sleepWith(model cairn.LLM, tune func(*consolidate.Sleeper)) *cairn.SleepResult {
	f.t.Helper()
	res, err := f.eng.Sleep(context.Background(), model, nil, &engine.SleepOptions{Tune: tune})
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

// TestProfiles: a subject with ProfileMin (5) active observations gets a
// profile written by the fast model from all of them, with their sources,
// searchable in the memories corpus; one with fewer (Bob) gets none. A
// second pass with nothing changed asks nothing; a new observation makes
// the next pass rebuild it, the old profile superseded by the new one;
// a subject that falls under the threshold has its profile superseded.
func TestProfiles(t *testing.T) {
	f := newFixture(t)
	var ms []cairn.Memory
	for i, text := range carolineFacts[:5] {
		ms = append(ms, caroline(i, text))
	}
	bob := sleepMemory("m-b000000000000001", cairn.MemoryObservation, 3, "Bob grows tomatoes.", "Bob grows tomatoes.", nil, "r-b1")
	bob.About = "Bob"
	f.storeMemories(append(ms, bob))

	model := &profileModel{}
	res := f.sleepWith(model, nil)
	profs := activeProfiles(t, f)
	if res.Profiles != 1 || len(model.profiles) != 1 || len(profs) != 1 {
		t.Fatalf("profiles written %d, asked %d, stored %d: want one, for Caroline", res.Profiles, len(model.profiles), len(profs))
	}
	p := profs[0]
	req := model.profiles[0]
	for _, text := range carolineFacts[:5] {
		if !strings.Contains(req.Prompt, text) {
			t.Errorf("profile prompt lacks the observation %q:\n%s", text, req.Prompt)
		}
	}
	if !strings.Contains(req.Prompt, "- [happened 2026-05-01 · told 2026-05-01] Caroline went") || req.Purpose != cairn.PurposeFast || req.MaxTokens != consolidate.DefaultProfileTokens {
		t.Errorf("profile request: purpose %q, budget %d, prompt:\n%s", req.Purpose, req.MaxTokens, req.Prompt)
	}
	if p.Title != "Caroline" || p.About != "Caroline" || !strings.Contains(p.Summary, "profile of 5 observations") || !strings.HasPrefix(p.Body, "Now:") ||
		len(p.Provenance) != 5 || len(p.Cues) != 2 || p.Concepts[0] != "LGBTQ support group" {
		t.Errorf("profile %+v", p)
	}
	hits, err := f.eng.Search(context.Background(), "Caroline counseling student Sweden", &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus},
		Memories: &cairn.MemorySearch{Kinds: []string{cairn.MemoryProfile}}})
	if err != nil || len(hits) == 0 || hits[0].Memory == nil || hits[0].Memory.ID != p.ID {
		t.Fatalf("search for the profile: %v %+v", err, hits)
	}
	// Gather reads profiles among the other memories, shown with their
	// body (longer than other candidates: gather/prompt.go).
	g, err := f.eng.Gather(context.Background(), "What do I know about Caroline?", nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range g.Memories {
		found = found || m.ID == p.ID && strings.Contains(m.Text, "History:\n- 2026-05-01 went to an LGBTQ support group")
	}
	if !found {
		t.Errorf("gather does not show the profile with its body: %+v", g.Memories)
	}

	// Nothing changed: no model call, the same profile.
	if res := f.sleepWith(model, nil); res.Profiles != 0 || len(model.profiles) != 1 {
		t.Fatalf("second pass wrote %d profiles, asked %d times: want nothing", res.Profiles, len(model.profiles))
	}

	// A new observation: rebuilt, the old one superseded by the new.
	f.storeMore(caroline(5, carolineFacts[5]))
	if res := f.sleepWith(model, nil); res.Profiles != 1 || len(model.profiles) != 2 {
		t.Fatalf("after a new observation: wrote %d, asked %d times: want one rebuild", res.Profiles, len(model.profiles))
	}
	profs = activeProfiles(t, f)
	if len(profs) != 1 || profs[0].ID == p.ID || !strings.Contains(profs[0].Summary, "profile of 6 observations") {
		t.Fatalf("active profiles after the rebuild: %+v", profs)
	}
	old, err := f.eng.Memory(context.Background(), p.ID)
	if err != nil || old.Status != cairn.StatusSuperseded || old.SupersededBy != profs[0].ID {
		t.Fatalf("old profile %+v (%v): want superseded by %s", old, err, profs[0].ID)
	}
	links, _ := f.eng.MemoryLinks(context.Background(), profs[0].ID)
	if len(links) != 1 || links[0].Kind != cairn.LinkSupersedes || links[0].To != p.ID {
		t.Errorf("links of the new profile: %+v", links)
	}

	// Under the threshold: superseded with no replacement.
	f.sleepWith(model, func(s *consolidate.Sleeper) { s.ProfileMin = 7 })
	if profs := activeProfiles(t, f); len(profs) != 0 || len(model.profiles) != 2 {
		t.Fatalf("with ProfileMin 7: active profiles %+v, asked %d times", profs, len(model.profiles))
	}
}

// storeMore commits memories as a window of a thread of their own.
func (f *fixture) storeMore(ms ...cairn.Memory) {
	f.t.Helper()
	if _, err := f.eng.Store().CommitWindow(context.Background(), cairn.WindowCommit{Corpus: "sessions", Thread: "more-" + ms[0].ID + ".md",
		Pass: consolidate.PassObservations, Memories: ms}); err != nil {
		f.t.Fatal(err)
	}
}

// TestProfilesPauseWithoutModel: with no fast model the pass pauses and
// writes nothing.
func TestProfilesPauseWithoutModel(t *testing.T) {
	f := newFixture(t)
	var ms []cairn.Memory
	for i, text := range carolineFacts {
		ms = append(ms, caroline(i, text))
	}
	f.storeMemories(ms)
	dry, err := f.eng.Sleep(context.Background(), nil, &cairn.SleepOptions{DryRun: true}, nil)
	if err != nil || dry.Profiles != 1 {
		t.Fatalf("dry run: %v %+v, want one profile planned", err, dry)
	}
	res := f.sleepWith(nil, nil)
	if res.Status != cairn.ConsolidatePausedUnavailable || res.Profiles != 0 || len(activeProfiles(t, f)) != 0 {
		t.Fatalf("sleep without a model: %+v", res)
	}
}
