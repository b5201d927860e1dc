package consolidate

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
)

// Told memories are written directly by an agent or a person (remember)
// instead of being read from a session. Their Thread is
// "told/<agent>", their Source ToldSource, and their one provenance entry
// has ToldSource as its corpus, no path and lines, and Record reading
// "told by <agent> at <time>". Sleep groups them with consolidated
// memories like any other: a merge carries that provenance entry into the
// memory kept.
const (
	ToldSource = "told"
	ToldPass   = "told" // the pass of the window that commits a told memory
)

// Limits of a told memory's fields, in characters (runes) and entries.
// Consolidation's items have no such limits: a model's output is bounded by
// its token budget, a request is not.
const (
	MaxToldTitle   = 300
	MaxToldSummary = 4000
	MaxToldBody    = 32000
	MaxToldLine    = 300 // about, applies_when, each cue and concept, the agent name
	MaxToldList    = 20  // cues, concepts of an item
)

// ToldText is the provenance of a told memory: "told by <agent> at
// <time>", the time in UTC as RFC 3339 to the second.
func ToldText(agent string, at time.Time) string {
	return "told by " + agent + " at " + at.UTC().Format(time.RFC3339)
}

// IsTold reports whether a memory was told directly rather than
// consolidated.
func IsTold(m *cairn.Memory) bool { return m.Source == ToldSource }

// Told validates a remember request like the gate validates a
// consolidated item and returns the memory to store, told at at. Every
// text is redacted and folded as the gate does. What the gate would drop
// or silently change is refused here with an error matching
// cairn.ErrInvalid that names the field and the allowed values, since a
// caller can fix its request:
//
//   - kind: an item kind or observation (episodes are one request of a
//     session, profiles are built by sleep);
//   - summary is required, and for items the title;
//   - confidence stated (default) or verified (the gate drops inferred);
//   - importance 2 to 5 (default 3; the gate drops 1);
//   - scope project (default), global or person; phase done (default),
//     plan, ongoing or state;
//   - fields of the other family (an item's scope on an observation, an
//     observation's about on an item) are refused;
//   - dates YYYY, YYYY-MM or YYYY-MM-DD naming real dates, an event date
//     or a span, not both, the span's start not after its end;
//   - at most 4 cues and 6 concepts on an observation (the gate's limits),
//     MaxToldList on an item; the lengths above.
//
// The id is derived from the agent, the kind, the title and the summary:
// the same agent telling the same thing again replaces it (told again
// now) instead of adding a copy.
func Told(r *cairn.RememberRequest, at time.Time) (cairn.Memory, error) {
	if r == nil {
		return cairn.Memory{}, cairn.Invalidf("remember: a memory is required")
	}
	agent := clean(r.Agent)
	rr := *r // the fields redacted as one memory; the caller's request is left as given
	rr.Cues, rr.Concepts = slices.Clone(r.Cues), slices.Clone(r.Concepts)
	redactTogether([]*string{&rr.Title, &rr.Summary, &rr.Body, &rr.AppliesWhen, &rr.About}, rr.Cues, rr.Concepts)
	r = &rr
	kind := strings.ToLower(strings.TrimSpace(r.Kind))
	if err := checkToldBasics(r, agent, kind); err != nil {
		return cairn.Memory{}, err
	}
	at = at.UTC().Truncate(time.Second)
	m := cairn.Memory{Kind: kind, Summary: clean(r.Summary), Body: cleanBody(r.Body), Thread: ToldSource + "/" + agent,
		Source: ToldSource, Status: cairn.StatusActive, ToldAt: at,
		Provenance: []cairn.Provenance{{Record: ToldText(agent, at), Corpus: ToldSource, ToldAt: at.Format(time.RFC3339)}}}
	var err error
	if kind == cairn.MemoryObservation {
		err = toldObservation(r, &m)
	} else {
		err = toldItem(r, &m)
	}
	if err != nil {
		return cairn.Memory{}, err
	}
	if err := toldDates(r, &m); err != nil {
		return cairn.Memory{}, err
	}
	m.ID = "m-" + shortHash(ToldSource, agent, kind, normalize(m.Title), normalize(m.Summary))[:16]
	return m, nil
}

// checkToldBasics checks what every told memory needs: who tells it, a
// kind it may have, a summary, and the lengths.
func checkToldBasics(r *cairn.RememberRequest, agent, kind string) error {
	allowed := strings.Join(append(slices.Clone(cairn.ItemKinds), cairn.MemoryObservation), ", ")
	switch {
	case agent == "":
		return cairn.Invalidf("remember: agent is required: who tells the memory")
	case kind == "":
		return cairn.Invalidf("remember: kind is required: allowed %s", allowed)
	case kind == cairn.MemoryEpisode:
		return cairn.Invalidf("remember: kind episode: allowed %s (episodes are one request of a session, written by consolidation)", allowed)
	case kind == "profile":
		return cairn.Invalidf("remember: kind profile: allowed %s (profiles are built by sleep from observations)", allowed)
	case kind != cairn.MemoryObservation && !slices.Contains(cairn.ItemKinds, kind):
		return cairn.Invalidf("remember: kind %q: allowed %s", r.Kind, allowed)
	case clean(r.Summary) == "":
		return cairn.Invalidf("remember: summary is required: the memory's text")
	}
	for _, f := range []struct {
		name, v string
		max     int
	}{{"agent", r.Agent, MaxToldLine}, {"title", r.Title, MaxToldTitle}, {"summary", r.Summary, MaxToldSummary},
		{"body", r.Body, MaxToldBody}, {"applies_when", r.AppliesWhen, MaxToldLine}, {"about", r.About, MaxToldLine}} {
		if n := utf8.RuneCountInString(strings.TrimSpace(f.v)); n > f.max {
			return cairn.Invalidf("remember: %s is %d characters: allowed at most %d", f.name, n, f.max)
		}
	}
	for _, l := range []struct {
		name string
		v    []string
	}{{"cues", r.Cues}, {"concepts", r.Concepts}} {
		for i, s := range l.v {
			if n := utf8.RuneCountInString(strings.TrimSpace(s)); n > MaxToldLine {
				return cairn.Invalidf("remember: %s[%d] is %d characters: allowed at most %d", l.name, i, n, MaxToldLine)
			}
		}
	}
	return nil
}

// toldItem applies an item's rules: title required, confidence, importance,
// scope, no observation fields.
func toldItem(r *cairn.RememberRequest, m *cairn.Memory) error {
	if err := refuse(m.Kind, map[string]string{"about": r.About, "phase": r.Phase}); err != nil {
		return err
	}
	m.Title = clean(r.Title)
	if m.Title == "" {
		return cairn.Invalidf("remember: title is required for a %s: a short line naming it", m.Kind)
	}
	m.Confidence = strings.ToLower(strings.TrimSpace(r.Confidence))
	switch m.Confidence {
	case "":
		m.Confidence = "stated"
	case "stated", "verified":
	default:
		return cairn.Invalidf("remember: confidence %q: allowed stated or verified (inferred knowledge is not kept)", r.Confidence)
	}
	switch imp := r.Importance; {
	case imp == 0:
		m.Importance = 3
	case imp >= 2 && imp <= 5:
		m.Importance = imp
	default:
		return cairn.Invalidf("remember: importance %d: allowed 2 to 5 (default 3; importance 1 is not kept)", imp)
	}
	m.Scope = strings.ToLower(strings.TrimSpace(r.Scope))
	switch {
	case m.Scope == "":
		m.Scope = "project"
	case !slices.Contains(scopes, m.Scope):
		return cairn.Invalidf("remember: scope %q: allowed %s", r.Scope, strings.Join(scopes, ", "))
	}
	m.AppliesWhen = clean(r.AppliesWhen)
	var err error
	if m.Cues, err = toldList("cues", r.Cues, MaxToldList, func(cs []string) []string { return cleanCues(cs, m.Title, 0) }); err != nil {
		return err
	}
	m.Concepts, err = toldList("concepts", r.Concepts, MaxToldList, func(cs []string) []string { return cleanConcepts(cs, 0) })
	return err
}

// toldObservation applies an observation's rules: its title made from
// about and text as the gate makes it, phase, the gate's list limits, no
// item fields.
func toldObservation(r *cairn.RememberRequest, m *cairn.Memory) error {
	imp := ""
	if r.Importance != 0 {
		imp = fmt.Sprint(r.Importance)
	}
	if err := refuse(m.Kind, map[string]string{"title": r.Title, "scope": r.Scope, "confidence": r.Confidence,
		"importance": imp, "applies_when": r.AppliesWhen}); err != nil {
		return err
	}
	m.About = clean(r.About)
	m.Title = observationTitle(m.About, m.Summary)
	m.Phase = strings.ToLower(strings.TrimSpace(r.Phase))
	switch {
	case m.Phase == "":
		m.Phase = "done"
	case !slices.Contains(phases, m.Phase):
		return cairn.Invalidf("remember: phase %q: allowed %s", r.Phase, strings.Join(phases, ", "))
	}
	var err error
	if m.Cues, err = toldList("cues", r.Cues, maxObservationCues, func(cs []string) []string { return cleanCues(cs, "", 0) }); err != nil {
		return err
	}
	m.Concepts, err = toldList("concepts", r.Concepts, maxObservationConcepts, func(cs []string) []string { return cleanConcepts(cs, 0) })
	return err
}

// refuse fails on the first set field that the kind does not have.
func refuse(kind string, fields map[string]string) error {
	for _, name := range []string{"title", "scope", "confidence", "importance", "applies_when", "about", "phase"} {
		if strings.TrimSpace(fields[name]) != "" {
			family := "observations"
			if kind == cairn.MemoryObservation {
				family = "items"
			}
			return cairn.Invalidf("remember: %s is for %s, not kind %s: leave it out", name, family, kind)
		}
	}
	return nil
}

// toldList cleans a list (redacted, empty entries and repeats dropped) and
// refuses more than max entries after cleaning.
func toldList(name string, in []string, max int, clean func([]string) []string) ([]string, error) {
	out := clean(in)
	if len(out) > max {
		return nil, cairn.Invalidf("remember: %d %s: allowed at most %d", len(out), name, max)
	}
	return out, nil
}

// toldDates checks the dates: each valid, an event date or a span.
func toldDates(r *cairn.RememberRequest, m *cairn.Memory) error {
	for _, f := range []struct {
		name string
		v    string
		dst  *string
	}{{"event_date", r.EventDate, &m.EventDate}, {"start_date", r.StartDate, &m.StartDate}, {"end_date", r.EndDate, &m.EndDate}} {
		v := strings.TrimSpace(f.v)
		if v == "" {
			continue
		}
		if *f.dst = validDate(v); *f.dst == "" {
			return cairn.Invalidf("remember: %s %q: allowed a real date as YYYY, YYYY-MM or YYYY-MM-DD", f.name, f.v)
		}
	}
	if m.EventDate != "" && (m.StartDate != "" || m.EndDate != "") {
		return cairn.Invalidf("remember: event_date with start_date or end_date: allowed an event date or a span, not both")
	}
	if m.StartDate != "" && m.EndDate != "" && firstDay(m.StartDate).After(lastDay(m.EndDate)) {
		return cairn.Invalidf("remember: start_date %s is after end_date %s: allowed a span whose start is not after its end", m.StartDate, m.EndDate)
	}
	return nil
}

// firstDay and lastDay are the first and last day a date of any precision
// covers ("2023-06": June 1 and June 30).
func firstDay(d string) time.Time {
	layout := []string{"2006", "2006-01", "2006-01-02"}[strings.Count(d, "-")]
	t, _ := time.Parse(layout, d)
	return t
}

func lastDay(d string) time.Time {
	t := firstDay(d)
	switch strings.Count(d, "-") {
	case 0:
		return t.AddDate(1, 0, -1)
	case 1:
		return t.AddDate(0, 1, -1)
	}
	return t
}
