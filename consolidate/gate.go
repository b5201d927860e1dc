package consolidate

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/redact"
)

// Reasons the gate drops a part of an answer, as reported in
// ConsolidateResult.Dropped.
const (
	DropUnknownKind   = "unknown_kind"
	DropEmptyTitle    = "empty_title"
	DropEmptySummary  = "empty_summary"
	DropLowConfidence = "low_confidence" // inferred, or no confidence
	DropContested     = "contested"
	DropAmbiguous     = "ambiguous"
	DropLowImportance = "low_importance"
	DropUnproven      = "unproven" // a "this works" kind whose every source record with an outcome failed or is uncertain
	DropMalformedItem = "malformed_item"
	// DropItemNoSource counts items that name no record of their window
	// in requests (none, or only numbers the window does not have): an
	// item is credited only to the records it names, never to every
	// record of the window.
	DropItemNoSource = "item_no_source"
	// DropRepeated counts an item or observation given again, with the
	// same id (same kind, title or text, and sources), by another part of
	// a long record or twice in one answer: the richer version is kept
	// (see richer) with the cues and concepts of both, the other counted
	// here.
	DropRepeated = "repeated"

	DropObservationNoText    = "observation_empty_text"
	DropObservationNoSource  = "observation_no_source"
	DropObservationMalformed = "malformed_observation"

	DropEpisodeUnknownRequest = "episode_unknown_request"
	DropEpisodeEmpty          = "episode_empty"
	DropEpisodeMalformed      = "malformed_episode"
	// DropEpisodeNotKept counts records whose every part answered keep:
	// false (the model judged the record not worth an episode).
	DropEpisodeNotKept = "episode_not_kept"

	// DropInvalidAnswer counts windows (and sleep groups) whose answer was
	// unusable twice (off the schema, cut at the output limit, not JSON, a
	// rejected request): their records stay pending and the window is
	// listed in the run's Failures.
	DropInvalidAnswer = "invalid_answer"
)

// worksKinds claim that something works: they need a source record that
// did not fail.
var worksKinds = []string{"procedure", "snippet", "template", "pitfall"}

var (
	outcomes = []string{"success", "partial", "fail", "uncertain"}
	scopes   = []string{"project", "global", "person"}
	phases   = []string{"done", "plan", "ongoing", "state"}
	dateRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}(-\d{2}(-\d{2})?)?$`) })
)

// Limits the gate applies to observations.
const (
	maxObservationCues     = 4
	maxObservationConcepts = 6
)

// gate turns a window's answers (one, or one per part of a long record)
// into the memories to store, counting what it drops and why.
type gate struct {
	th      *Thread
	win     *window
	dropped map[string]int
}

func (g *gate) drop(reason string) { g.dropped[reason]++ }

// num maps the window's record numbers to its records.
func (g *gate) record(num int) (*Record, bool) {
	i := slices.Index(g.win.nums, num)
	if i < 0 {
		return nil, false
	}
	return g.win.records[i], true
}

// run applies every rule and returns the memories in a stable order:
// episodes, items, observations, each in answer order. A memory given
// again with the same id (a later part of a long record restating an
// item, usually with more detail) takes the place of the earlier one
// when it is richer; either way the cues and concepts of both are kept
// and the repeat is counted as DropRepeated.
func (g *gate) run(answers []*answer) []cairn.Memory {
	eps, outcome := g.episodes(answers)
	var out []cairn.Memory
	at := map[string]int{}
	add := func(m cairn.Memory) {
		i, ok := at[m.ID]
		if !ok {
			at[m.ID] = len(out)
			out = append(out, m)
			return
		}
		g.drop(DropRepeated)
		out[i] = mergeRepeat(out[i], m)
	}
	for _, m := range eps {
		add(m)
	}
	for _, a := range answers {
		for _, raw := range a.Items {
			if m, ok := g.item(raw, outcome); ok {
				add(m)
			}
		}
	}
	for _, a := range answers {
		for _, raw := range a.Observations {
			if m, ok := g.observation(raw); ok {
				add(m)
			}
		}
	}
	return out
}

// mergeRepeat keeps the richer of two versions of one memory (the later
// on a tie: a later part has read more of the record), with the cues and
// concepts of both.
func mergeRepeat(earlier, later cairn.Memory) cairn.Memory {
	keep, other := later, earlier
	if richer(earlier, later) {
		keep, other = earlier, later
	}
	keep.Cues = cleanCues(append(slices.Clone(keep.Cues), other.Cues...), keep.Title, 0)
	max := 0
	if keep.Kind == cairn.MemoryObservation {
		keep.Cues = keep.Cues[:min(len(keep.Cues), maxObservationCues)]
		max = maxObservationConcepts
	}
	keep.Concepts = cleanConcepts(append(slices.Clone(keep.Concepts), other.Concepts...), max)
	return keep
}

// richer reports whether a says strictly more than b: more characters of
// summary, body and applies_when together.
func richer(a, b cairn.Memory) bool {
	size := func(m cairn.Memory) int { return chars(m.Summary) + chars(m.Body) + chars(m.AppliesWhen) }
	return size(a) > size(b)
}

// episodes keeps one episode per record. A long record is answered part
// by part: its episode is kept when any part said keep (a last part that
// only says keep: false with nothing to add does not undo what the parts
// before it wrote), and its title, summary and outcome come from the last
// part that gave them, with the cues and concepts of all parts. A record
// no part kept is counted as DropEpisodeNotKept, so the drop shows in the
// run's report. It also returns every record's outcome, kept or not.
func (g *gate) episodes(answers []*answer) ([]cairn.Memory, map[int]string) {
	merged := map[int]*episodeParts{}
	var order []int
	for _, a := range answers {
		for _, raw := range a.Episodes {
			var e episode
			if json.Unmarshal(raw, &e) != nil {
				g.drop(DropEpisodeMalformed)
				continue
			}
			n := e.Request.Int()
			if _, ok := g.record(n); !ok {
				g.drop(DropEpisodeUnknownRequest)
				continue
			}
			if merged[n] == nil {
				merged[n] = &episodeParts{}
				order = append(order, n)
			}
			merged[n].add(&e)
		}
	}
	outcome := map[int]string{}
	var out []cairn.Memory
	for _, n := range order {
		e := merged[n]
		outcome[n] = e.outcome
		if !e.keep {
			g.drop(DropEpisodeNotKept)
			continue
		}
		if e.title == "" || e.summary == "" {
			g.drop(DropEpisodeEmpty)
			continue
		}
		r, _ := g.record(n)
		m := g.memory(cairn.MemoryEpisode, []*Record{r}, "episode", r.UID)
		m.Title, m.Summary, m.Outcome = e.title, e.summary, e.outcome
		if !r.Time.IsZero() {
			// A record without a timestamp (a source that records none)
			// leaves the episode undated: never 0001-01-01.
			m.EventDate = r.Time.Format(time.DateOnly)
		}
		m.Cues = cleanCues(e.cues, e.title, 0)
		m.Concepts = cleanConcepts(e.concepts, 0)
		out = append(out, m)
	}
	return out, outcome
}

// episodeParts is one record's episode as the parts of its window gave it.
type episodeParts struct {
	keep           bool
	title, summary string // cleaned; from the last part that gave one
	outcome        string // the last valid outcome given; uncertain when none
	cues, concepts []string
}

func (p *episodeParts) add(e *episode) {
	redactTogether([]*string{&e.Title, &e.Summary}, e.Cues, e.Concepts)
	p.keep = p.keep || bool(e.Keep)
	if t := clean(e.Title); t != "" {
		p.title = t
	}
	if s := clean(e.Summary); s != "" {
		p.summary = s
	}
	if o := strings.ToLower(strings.TrimSpace(e.Outcome)); slices.Contains(outcomes, o) {
		p.outcome = o
	} else if p.outcome == "" {
		p.outcome = "uncertain"
	}
	p.cues = append(p.cues, e.Cues...)
	p.concepts = append(p.concepts, e.Concepts...)
}

func (g *gate) item(raw json.RawMessage, outcome map[int]string) (cairn.Memory, bool) {
	var it item
	if json.Unmarshal(raw, &it) != nil {
		g.drop(DropMalformedItem)
		return cairn.Memory{}, false
	}
	redactTogether([]*string{&it.Title, &it.Summary, &it.Body, &it.AppliesWhen}, it.Cues, it.Concepts)
	kind := strings.ToLower(strings.TrimSpace(it.Kind))
	conf := strings.ToLower(strings.TrimSpace(it.Confidence))
	imp := it.Importance.Int()
	srcs, nums := g.sources(it.Requests)
	reason := ""
	switch {
	case len(srcs) == 0:
		reason = DropItemNoSource
	case !slices.Contains(cairn.ItemKinds, kind):
		reason = DropUnknownKind
	case strings.TrimSpace(it.Title) == "":
		reason = DropEmptyTitle
	case strings.TrimSpace(it.Summary) == "":
		reason = DropEmptySummary
	case conf != "verified" && conf != "stated":
		reason = DropLowConfidence
	case bool(it.Contested):
		reason = DropContested
	case bool(it.Ambiguous):
		reason = DropAmbiguous
	case imp < 2:
		reason = DropLowImportance
	case slices.Contains(worksKinds, kind) && unproven(nums, outcome):
		reason = DropUnproven
	}
	if reason != "" {
		g.drop(reason)
		return cairn.Memory{}, false
	}
	title := clean(it.Title)
	m := g.memory(kind, srcs, "item", kind, normalize(title))
	m.Title, m.Summary, m.Body, m.AppliesWhen = title, clean(it.Summary), cleanBody(it.Body), clean(it.AppliesWhen)
	m.Scope = strings.ToLower(strings.TrimSpace(it.Scope))
	if !slices.Contains(scopes, m.Scope) {
		m.Scope = "project"
	}
	m.Confidence, m.Importance = conf, min(imp, 5)
	m.Cues = cleanCues(it.Cues, title, 0)
	m.Concepts = cleanConcepts(it.Concepts, 0)
	return m, true
}

// unproven reports whether every source record with a known outcome failed
// or is uncertain (and at least one has a known outcome).
func unproven(nums []int, outcome map[int]string) bool {
	known := 0
	for _, n := range nums {
		switch outcome[n] {
		case "":
		case "fail", "uncertain":
			known++
		default:
			return false
		}
	}
	return known > 0
}

func (g *gate) observation(raw json.RawMessage) (cairn.Memory, bool) {
	var o observation
	if json.Unmarshal(raw, &o) != nil {
		g.drop(DropObservationMalformed)
		return cairn.Memory{}, false
	}
	redactTogether([]*string{&o.Text, &o.About}, o.Cues, o.Concepts)
	text := clean(o.Text)
	if text == "" {
		g.drop(DropObservationNoText)
		return cairn.Memory{}, false
	}
	srcs, _ := g.sources(o.Requests)
	if len(srcs) == 0 {
		g.drop(DropObservationNoSource)
		return cairn.Memory{}, false
	}
	m := g.memory(cairn.MemoryObservation, srcs, "observation", normalize(text))
	m.About = clean(o.About)
	m.Title = observationTitle(m.About, text)
	m.Summary = text
	m.EventDate, m.StartDate, m.EndDate = validDate(o.EventDate), validDate(o.StartDate), validDate(o.EndDate)
	m.Phase = strings.ToLower(strings.TrimSpace(o.Phase))
	if !slices.Contains(phases, m.Phase) {
		m.Phase = "done"
	}
	m.Cues = cleanCues(o.Cues, "", maxObservationCues)
	m.Concepts = cleanConcepts(o.Concepts, maxObservationConcepts)
	return m, true
}

// sources returns the window's records among the numbers given; none
// when no number names one (the caller drops what has no source).
func (g *gate) sources(reqs numList) ([]*Record, []int) {
	var recs []*Record
	var nums []int
	for _, q := range reqs {
		n := q.Int()
		if r, ok := g.record(n); ok && !slices.Contains(nums, n) {
			recs, nums = append(recs, r), append(nums, n)
		}
	}
	return recs, nums
}

// memory starts a memory of kind from its source records, with an id
// derived from the thread, the sources and the given key parts.
func (g *gate) memory(kind string, srcs []*Record, key ...string) cairn.Memory {
	parts := append([]string{g.th.Key()}, key...)
	m := cairn.Memory{Kind: kind, Thread: g.th.Key(), Source: g.th.Info.Source, Status: cairn.StatusActive,
		Cues: []string{}, Concepts: []string{}}
	for _, r := range srcs {
		parts = append(parts, r.UID)
		if m.ToldAt.IsZero() || !r.Time.IsZero() && r.Time.Before(m.ToldAt) {
			m.ToldAt = r.Time
		}
		m.Provenance = append(m.Provenance, cairn.Provenance{Record: r.UID, Corpus: g.th.Corpus,
			Path: "cairn://" + g.th.Corpus + "/" + g.th.Path, StartLine: r.StartLine, EndLine: r.EndLine,
			SessionID: g.th.Info.SessionID, Transcript: g.th.Transcript, ToldAt: r.Stamp})
	}
	if kind != cairn.MemoryEpisode {
		slices.Sort(parts[len(key)+1:])
	}
	m.ID = "m-" + shortHash(parts...)[:16]
	return m
}

func observationTitle(about, text string) string {
	words := strings.Fields(text)
	if len(words) > 12 {
		words = append(words[:12], "…")
	}
	t := strings.Join(words, " ")
	if about != "" && !strings.Contains(strings.ToLower(text), strings.ToLower(about)) {
		return about + ": " + t
	}
	return t
}

// clean redacts secrets and folds a one-line field's whitespace.
func clean(s string) string { return oneLine(redacted(s)) }

// cleanBody redacts and trims, keeping lines (commands, code).
func cleanBody(s string) string { return strings.TrimSpace(redacted(s)) }

func redacted(s string) string {
	out, _ := redact.Redact(s)
	return out
}

// cleanCues redacts, drops empty ones and repeats (the title counts as
// seen), and keeps at most max (0: all).
func cleanCues(cues []string, title string, max int) []string {
	return cleanUnique(cues, normalize, map[string]bool{normalize(title): true}, max)
}

// cleanConcepts keeps one concept per spelling key (letters and digits,
// lowercased: parse_config, parseConfig and parse-config are one).
func cleanConcepts(cs []string, max int) []string {
	return cleanUnique(cs, conceptKey, map[string]bool{}, max)
}

// cleanUnique cleans each item and keeps the first of each key (an empty
// key or item is dropped; keys in seen count as taken), at most max (0:
// all).
func cleanUnique(items []string, key func(string) string, seen map[string]bool, max int) []string {
	out := []string{}
	for _, c := range items {
		c = clean(c)
		k := key(c)
		if c == "" || k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, c)
		if max > 0 && len(out) == max {
			break
		}
	}
	return out
}

func conceptKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func normalize(s string) string { return strings.ToLower(oneLine(s)) }

// validDate keeps YYYY, YYYY-MM and YYYY-MM-DD when they name a real date.
func validDate(s string) string {
	s = strings.TrimSpace(s)
	if !dateRe().MatchString(s) {
		return ""
	}
	layout := []string{"2006", "2006-01", "2006-01-02"}[strings.Count(s, "-")]
	if _, err := time.Parse(layout, s); err != nil {
		return ""
	}
	return s
}
