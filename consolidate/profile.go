package consolidate

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/schema"
)

// KindProfile is the kind of a profile memory.
const KindProfile = cairn.MemoryProfile

// Profiles (spec §7): the sleep pass writes a profile memory for each
// subject (an observation's about, compared by its spelling key: "Dana",
// "dana" and "DANA" are one) that at least ProfileMin active observations
// are about. The fast model writes it from those observations (the newest
// ProfileLines of them when there are more): a summary, a body of what is
// known (now, history, what changed) and cues. The profile is stored in
// the memories corpus like any memory, with the sources of every
// observation it was built from, and gather shows it longer than other
// candidates.
//
// The rebuild rule: a profile's id is derived from its subject and from
// the ids of the observations it was built from, and observation ids are
// derived from their content. So a profile whose observations are the
// same (none added, removed, merged away or changed) already exists and
// is left alone, with no model call; when they change, a new profile is
// written and the old one is superseded by it (a supersedes link, read
// with cairn memories show). A subject that falls below ProfileMin
// active observations has its profile superseded with no replacement.
const (
	DefaultProfileMin    = 5
	DefaultProfileLines  = 200
	DefaultProfileTokens = 2000
)

const (
	profilePass       = "profile"
	profileCorpus     = "profile"
	schemaNameProfile = "cairn_profile"
)

var (
	schemaProfile = sync.OnceValue(func() json.RawMessage { return mustRead("prompts/profile.schema.json") })
	checkProfile  = sync.OnceValue(func() *schema.Schema { return schema.MustCompile(schemaProfile()) })
)

// subject is one person or thing with the active observations about it.
type subject struct {
	key, name string
	obs       []cairn.Memory // oldest told first
}

// profileID is the id a subject's profile has when built from obs.
func profileID(key string, obs []cairn.Memory) string {
	parts := []string{profileCorpus, key}
	for _, o := range obs {
		parts = append(parts, o.ID)
	}
	slices.Sort(parts[2:])
	return "m-" + shortHash(parts...)[:16]
}

// subjects groups the active observations by about; those of at least min
// observations come back, by key.
func subjects(all []cairn.Memory, min int) []subject {
	by := map[string]*subject{}
	spellings := map[string]map[string]int{}
	for _, m := range all {
		k := conceptKey(m.About)
		if m.Kind != cairn.MemoryObservation || m.Status != cairn.StatusActive || k == "" {
			continue
		}
		if by[k] == nil {
			by[k], spellings[k] = &subject{key: k}, map[string]int{}
		}
		by[k].obs = append(by[k].obs, m)
		spellings[k][oneLine(m.About)]++
	}
	var out []subject
	for _, k := range slices.Sorted(maps.Keys(by)) {
		s := by[k]
		if len(s.obs) < min {
			continue
		}
		slices.SortFunc(s.obs, func(a, b cairn.Memory) int { return older(&a, &b) })
		s.name = mostUsed(spellings[k])
		out = append(out, *s)
	}
	return out
}

// mostUsed is the spelling used most, the first in order on a tie.
func mostUsed(counts map[string]int) string {
	best := ""
	for _, s := range slices.Sorted(maps.Keys(counts)) {
		if best == "" || counts[s] > counts[best] {
			best = s
		}
	}
	return best
}

// profileWork is what a pass does about profiles: subjects to build (or
// rebuild) and stale profiles to retire.
type profileWork struct {
	build  []subject
	retire map[string]string // stale profile id → the id replacing it ("" for none)
	stale  map[string]cairn.Memory
}

// planProfiles compares the profiles stored with what the observations
// call for.
func (s *Sleeper) planProfiles(ctx context.Context) (*profileWork, error) {
	obs, err := s.Store.Memories(ctx, cairn.MemoryFilter{Kind: cairn.MemoryObservation, Status: cairn.StatusActive})
	if err != nil {
		return nil, err
	}
	have, err := s.Store.Memories(ctx, cairn.MemoryFilter{Kind: KindProfile, Status: cairn.StatusActive})
	if err != nil {
		return nil, err
	}
	w := &profileWork{retire: map[string]string{}, stale: map[string]cairn.Memory{}}
	want := map[string]string{} // subject key → wanted id
	for _, sub := range subjects(obs, max(1, s.ProfileMin)) {
		id := profileID(sub.key, sub.obs)
		want[sub.key] = id
		if slices.ContainsFunc(have, func(p cairn.Memory) bool { return p.ID == id }) {
			continue
		}
		// A missing profile is built unless it was forgotten (forget.go); the
		// store is asked only then, not once a subject on every pass.
		gone, err := Forgotten(ctx, s.Store, profileCorpus, sub.key)
		if err != nil {
			return nil, err
		}
		if !gone[id] {
			w.build = append(w.build, sub)
		}
	}
	for _, p := range have {
		k := strings.TrimPrefix(p.Thread, profileCorpus+"/")
		if id := want[k]; id != p.ID {
			w.retire[p.ID], w.stale[p.ID] = id, p
		}
	}
	return w, nil
}

// profiles builds the profiles planned, then retires the stale ones
// (a rebuilt profile's predecessor once the new one is stored). A pause
// stops it with what was stored so far kept; a rebuilt subject whose new
// profile could not be written keeps its old one.
func (s *Sleeper) profiles(ctx context.Context, w *profileWork, res *cairn.SleepResult) error {
	built := map[string]bool{}
	for _, sub := range w.build {
		p, t, err := s.buildProfile(ctx, sub, res)
		var u *unusable
		switch {
		case errors.As(err, &u):
			res.Dropped[DropInvalidAnswer]++
			res.Failed++
			res.Error = err.Error()
			continue
		case err != nil:
			return err
		}
		if _, err := s.Store.CommitWindow(ctx, cairn.WindowCommit{Corpus: profileCorpus, Thread: sub.key, Pass: profilePass,
			Memories: []cairn.Memory{p}, TokensIn: t.in, TokensOut: t.out}); err != nil {
			return err
		}
		built[p.ID] = true
		res.Profiles++
	}
	for _, id := range slices.Sorted(maps.Keys(w.retire)) {
		by := w.retire[id]
		if by != "" && !built[by] {
			continue // its successor was not written: keep it
		}
		if err := s.retireProfile(ctx, w.stale[id], by); err != nil && !errors.Is(err, cairn.ErrNotFound) {
			return err
		}
	}
	return nil
}

// retireProfile supersedes a stale profile: by the profile rebuilt for
// its subject, or by none when the subject has too few observations now.
func (s *Sleeper) retireProfile(ctx context.Context, old cairn.Memory, by string) error {
	seen := cairn.MemoryFingerprint(old)
	old.Status, old.SupersededBy = cairn.StatusSuperseded, by
	c := cairn.SleepChange{Members: []string{old.ID}, Updates: []cairn.Memory{old}, Seen: map[string]string{old.ID: seen}}
	if by != "" {
		c.Links = []cairn.MemoryLink{{From: by, To: old.ID, Kind: cairn.LinkSupersedes, Reason: "profile rebuilt: its observations changed"}}
	}
	return s.Store.ApplySleep(ctx, c)
}

// profileAnswer is the fast model's profile.
type profileAnswer struct {
	Summary string  `json:"summary"`
	Body    string  `json:"body"`
	Cues    strList `json:"cues"`
}

// buildProfile asks the fast model for a subject's profile and returns
// the memory to store and what the calls cost (also added to res).
func (s *Sleeper) buildProfile(ctx context.Context, sub subject, res *cairn.SleepResult) (cairn.Memory, tally, error) {
	req := &cairn.LLMRequest{System: profileSystem(), Prompt: redacted(profilePrompt(sub, s.ProfileLines)), Purpose: cairn.PurposeFast,
		MaxTokens: s.ProfileTokens, Schema: schemaProfile(), SchemaName: schemaNameProfile}
	var t tally
	var a *profileAnswer
	err := askTwice(ctx, s.call, req, "write profile", checked(checkProfile(), decodeProfile, &a), &t)
	res.TokensIn, res.TokensOut, res.InvalidAnswers = res.TokensIn+t.in, res.TokensOut+t.out, res.InvalidAnswers+t.invalid
	if err != nil {
		return cairn.Memory{}, t, err
	}
	if clean(a.Summary) == "" {
		return cairn.Memory{}, t, &unusable{op: "write profile", reason: "the summary is empty"}
	}
	return profileMemory(sub, a), t, nil
}

// profileMemory is a subject's profile as stored: the model's text,
// redacted, with the sources of every observation it was built from and
// the concepts they name most.
func profileMemory(sub subject, a *profileAnswer) cairn.Memory {
	m := cairn.Memory{ID: profileID(sub.key, sub.obs), Kind: KindProfile, Title: sub.name, About: sub.name,
		Summary: clean(a.Summary), Body: cleanBody(a.Body), Thread: profileCorpus + "/" + sub.key, Source: profileCorpus,
		Status: cairn.StatusActive, Concepts: []string{}}
	m.Cues = cleanCues(a.Cues, m.Title, maxObservationCues)
	count := map[string]int{}
	spelled := map[string]string{}
	seen := map[cairn.Provenance]bool{}
	for _, o := range sub.obs {
		if o.ToldAt.After(m.ToldAt) {
			m.ToldAt = o.ToldAt // when the newest thing known was told
		}
		for _, p := range o.Provenance {
			if !seen[p] {
				seen[p] = true
				m.Provenance = append(m.Provenance, p)
			}
		}
		for _, c := range o.Concepts {
			if k := conceptKey(c); k != "" && k != sub.key {
				count[k]++
				if spelled[k] == "" {
					spelled[k] = c
				}
			}
		}
	}
	keys := slices.Collect(maps.Keys(count))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), strings.Compare(a, b)) })
	for _, k := range keys[:min(len(keys), 12)] {
		m.Concepts = append(m.Concepts, spelled[k])
	}
	return m
}

func decodeProfile(s string) (*profileAnswer, error) {
	var a profileAnswer
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// profileSystem is the profile prompt's system part (prompts/profile.md).
func profileSystem() string {
	var b strings.Builder
	if err := prompts().ExecuteTemplate(&b, "profile.md", nil); err != nil {
		panic(fmt.Sprintf("render profile.md: %v", err))
	}
	return strings.TrimSpace(b.String()) + "\n"
}

// profilePrompt renders a subject's observations (prompts/profile.tmpl),
// the newest lines of them, oldest told first, each with when it happened
// and when it was told.
func profilePrompt(sub subject, lines int) string {
	obs := sub.obs
	if lines > 0 && len(obs) > lines {
		obs = obs[len(obs)-lines:]
	}
	d := struct {
		Subject string
		Lines   []string
		Cut     bool
		Total   int
	}{Subject: sub.name, Cut: len(obs) < len(sub.obs), Total: len(sub.obs)}
	for i := range obs {
		o := &obs[i]
		when := "told unknown"
		if !o.ToldAt.IsZero() {
			when = "told " + o.ToldAt.UTC().Format(time.DateOnly)
		}
		if ev := spanText(o); ev != "" {
			when = "happened " + ev + " · " + when
		}
		if o.Phase != "" {
			when += " · " + o.Phase
		}
		d.Lines = append(d.Lines, "["+when+"] "+oneLine(o.Summary))
	}
	var b strings.Builder
	if err := prompts().ExecuteTemplate(&b, "profile.tmpl", d); err != nil {
		panic(fmt.Sprintf("render profile: %v", err))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// spanText is when a memory happened, as a profile prompt shows it: its
// event date, "A to B", "since A" or "until B".
func spanText(m *cairn.Memory) string {
	switch {
	case m.StartDate != "" && m.EndDate != "":
		return m.StartDate + " to " + m.EndDate
	case m.StartDate != "":
		return "since " + m.StartDate
	case m.EndDate != "":
		return "until " + m.EndDate
	}
	return m.EventDate
}
