package consolidate

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// Reasons the sleep gate drops a decision, as reported in
// SleepResult.Dropped (with DropInvalidAnswer for a group whose answer was
// unusable twice).
const (
	DropSleepUnknownID    = "unknown_id"         // an id that is not in the group
	DropSleepSelf         = "self_link"          // a memory paired with itself
	DropSleepTooFew       = "too_few"            // a duplicate set of fewer than two memories
	DropSleepKindMismatch = "kind_mismatch"      // duplicates of different kinds, or a supersession across families
	DropSleepNotNewer     = "not_newer"          // the replacing memory was not told after the one it replaces
	DropSleepCycle        = "cycle"              // the pointers would lead back to where they start
	DropSleepConflict     = "conflict"           // a memory already merged or superseded in this group
	DropSleepJudged       = "judged_before"      // every pair it concerns was judged by an earlier pass
	DropSleepRepeat       = "repeat"             // a related pair given twice
	DropSleepMalformed    = "malformed_decision" // not an object of the schema's shape
	// DropSleepStale counts groups whose members changed before the
	// decisions could be applied (a consolidation ran meanwhile).
	DropSleepStale = "stale_group"
)

type sleepAnswer struct {
	Duplicates []json.RawMessage `json:"duplicates"`
	Supersedes []json.RawMessage `json:"supersedes"`
	Related    []json.RawMessage `json:"related"`
}

type duplicateDecision struct {
	IDs    strList `json:"ids"`
	Reason string  `json:"reason"`
}

type supersedeDecision struct {
	Newer  string `json:"newer"`
	Older  string `json:"older"`
	Reason string `json:"reason"`
}

type relatedDecision struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Reason string `json:"reason"`
}

// sleepGate checks a group's decisions one by one and builds the change
// to apply: it works on copies of the members and counts what it drops.
type sleepGate struct {
	members map[string]*cairn.Memory
	order   []string
	judged  map[[2]string]bool // pairs judged by earlier passes
	dropped map[string]int

	ptr     map[string]string // superseded (or merged) → by, decided in this group
	merged  map[string]bool   // absorbed by a merge in this group
	linked  map[[2]string]bool
	changed map[string]bool
	links   []cairn.MemoryLink

	nMerged, nSuperseded, nLinked int
}

func newSleepGate(ms []cairn.Memory, judged map[[2]string]bool, dropped map[string]int) *sleepGate {
	g := &sleepGate{members: map[string]*cairn.Memory{}, judged: judged, dropped: dropped, ptr: map[string]string{},
		merged: map[string]bool{}, linked: map[[2]string]bool{}, changed: map[string]bool{}}
	for i := range ms {
		m := ms[i]
		m.Cues, m.Concepts, m.Provenance = slices.Clone(m.Cues), slices.Clone(m.Concepts), slices.Clone(m.Provenance)
		g.members[m.ID] = &m
		g.order = append(g.order, m.ID)
	}
	return g
}

func (g *sleepGate) drop(reason string) { g.dropped[reason]++ }

// run applies every decision of an answer: duplicates, then supersessions,
// then related pairs.
func (g *sleepGate) run(a *sleepAnswer) cairn.SleepChange {
	for _, raw := range a.Duplicates {
		var d duplicateDecision
		if json.Unmarshal(raw, &d) != nil {
			g.drop(DropSleepMalformed)
			continue
		}
		g.duplicates(d)
	}
	for _, raw := range a.Supersedes {
		var d supersedeDecision
		if json.Unmarshal(raw, &d) != nil {
			g.drop(DropSleepMalformed)
			continue
		}
		g.supersedes(d)
	}
	for _, raw := range a.Related {
		var d relatedDecision
		if json.Unmarshal(raw, &d) != nil {
			g.drop(DropSleepMalformed)
			continue
		}
		g.related(d)
	}
	c := cairn.SleepChange{Members: g.order, Links: g.links}
	for _, id := range g.order {
		if g.changed[id] {
			c.Updates = append(c.Updates, *g.members[id])
		}
	}
	return c
}

// known returns the members named, or false when one is not in the group.
func (g *sleepGate) known(ids ...string) ([]*cairn.Memory, bool) {
	var out []*cairn.Memory
	for _, id := range ids {
		m, ok := g.members[strings.TrimSpace(id)]
		if !ok {
			return nil, false
		}
		out = append(out, m)
	}
	return out, true
}

// allJudged reports whether every pair among ms was judged before.
func (g *sleepGate) allJudged(ms []*cairn.Memory) bool {
	for i, a := range ms {
		for _, b := range ms[i+1:] {
			if !g.judged[pairKey(a.ID, b.ID)] {
				return false
			}
		}
	}
	return true
}

func (g *sleepGate) duplicates(d duplicateDecision) {
	ms, ok := g.known(d.IDs...)
	if !ok {
		g.drop(DropSleepUnknownID)
		return
	}
	ms = slices.CompactFunc(slices.SortedFunc(slices.Values(ms), older), func(a, b *cairn.Memory) bool { return a.ID == b.ID })
	switch {
	case len(ms) < 2:
		g.drop(DropSleepTooFew)
		return
	case slices.ContainsFunc(ms, func(m *cairn.Memory) bool { return m.Kind != ms[0].Kind }):
		g.drop(DropSleepKindMismatch)
		return
	case slices.ContainsFunc(ms, func(m *cairn.Memory) bool { return g.ptr[m.ID] != "" }):
		g.drop(DropSleepConflict)
		return
	case g.allJudged(ms):
		g.drop(DropSleepJudged)
		return
	}
	keep := slices.MaxFunc(ms, supportOrder)
	for _, m := range ms {
		if m == keep {
			continue
		}
		add := absorb(keep, m)
		m.Status, m.SupersededBy = cairn.StatusSuperseded, keep.ID
		g.ptr[m.ID], g.merged[m.ID] = keep.ID, true
		g.changed[m.ID], g.changed[keep.ID] = true, true
		g.links = append(g.links, cairn.MemoryLink{From: keep.ID, To: m.ID, Kind: cairn.LinkMerged, Reason: clean(d.Reason), Added: add})
		g.nMerged++
	}
}

// supportOrder ranks the text to keep of duplicates: verified over stated,
// more sources, more important, told later, then the smaller id.
func supportOrder(a, b *cairn.Memory) int {
	conf := func(m *cairn.Memory) int { return map[string]int{"verified": 2, "stated": 1}[m.Confidence] }
	return cmp.Or(cmp.Compare(conf(a), conf(b)), cmp.Compare(len(a.Provenance), len(b.Provenance)),
		cmp.Compare(a.Importance, b.Importance), a.ToldAt.Compare(b.ToldAt), strings.Compare(b.ID, a.ID))
}

// absorb adds to keep the cues, concepts and sources of dup it lacks, and
// returns what it added.
func absorb(keep, dup *cairn.Memory) *cairn.MemoryAddition {
	add := &cairn.MemoryAddition{}
	cues := map[string]bool{normalize(keep.Title): true}
	for _, c := range keep.Cues {
		cues[normalize(c)] = true
	}
	for _, c := range append([]string{dup.Title}, dup.Cues...) {
		if k := normalize(c); c != "" && !cues[k] {
			cues[k] = true
			add.Cues = append(add.Cues, c)
		}
	}
	concepts := map[string]bool{}
	for _, c := range keep.Concepts {
		concepts[conceptKey(c)] = true
	}
	for _, c := range dup.Concepts {
		if k := conceptKey(c); k != "" && !concepts[k] {
			concepts[k] = true
			add.Concepts = append(add.Concepts, c)
		}
	}
	for _, p := range dup.Provenance {
		if !slices.Contains(keep.Provenance, p) && !slices.Contains(add.Provenance, p) {
			add.Provenance = append(add.Provenance, p)
		}
	}
	keep.Cues = append(keep.Cues, add.Cues...)
	keep.Concepts = append(keep.Concepts, add.Concepts...)
	keep.Provenance = append(keep.Provenance, add.Provenance...)
	return add
}

func (g *sleepGate) supersedes(d supersedeDecision) {
	ms, ok := g.known(d.Newer, d.Older)
	if !ok {
		g.drop(DropSleepUnknownID)
		return
	}
	newer, old := ms[0], ms[1]
	switch {
	case newer == old:
		g.drop(DropSleepSelf)
	case familyOf(newer.Kind) != familyOf(old.Kind):
		g.drop(DropSleepKindMismatch)
	case !newer.ToldAt.After(old.ToldAt):
		g.drop(DropSleepNotNewer)
	case g.reaches(newer.ID, old.ID):
		g.drop(DropSleepCycle)
	case g.ptr[old.ID] != "" || g.merged[newer.ID]:
		g.drop(DropSleepConflict)
	case g.judged[pairKey(newer.ID, old.ID)]:
		g.drop(DropSleepJudged)
	default:
		note := "Before (" + old.ID + ", told " + old.ToldAt.Format(time.DateOnly) + "): " + oneLine(old.Summary)
		if newer.Body != "" {
			note = "\n\n" + note
		}
		newer.Body += note
		old.Status, old.SupersededBy = cairn.StatusSuperseded, newer.ID
		g.ptr[old.ID] = newer.ID
		g.changed[old.ID], g.changed[newer.ID] = true, true
		g.links = append(g.links, cairn.MemoryLink{From: newer.ID, To: old.ID, Kind: cairn.LinkSupersedes, Reason: clean(d.Reason),
			Added: &cairn.MemoryAddition{Body: note}})
		g.nSuperseded++
	}
}

// reaches reports whether following superseded-by pointers from id leads
// to target.
func (g *sleepGate) reaches(id, target string) bool {
	for steps := 0; id != "" && steps <= len(g.order); steps++ {
		if id == target {
			return true
		}
		id = g.ptr[id]
	}
	return false
}

func (g *sleepGate) related(d relatedDecision) {
	ms, ok := g.known(d.A, d.B)
	if !ok {
		g.drop(DropSleepUnknownID)
		return
	}
	a, b := ms[0], ms[1]
	key := pairKey(a.ID, b.ID)
	switch {
	case a == b:
		g.drop(DropSleepSelf)
	case g.ptr[a.ID] != "" || g.ptr[b.ID] != "":
		g.drop(DropSleepConflict)
	case g.judged[key]:
		g.drop(DropSleepJudged)
	case g.linked[key]:
		g.drop(DropSleepRepeat)
	default:
		g.linked[key] = true
		reason := clean(d.Reason)
		g.links = append(g.links, cairn.MemoryLink{From: a.ID, To: b.ID, Kind: cairn.LinkRelated, Reason: reason},
			cairn.MemoryLink{From: b.ID, To: a.ID, Kind: cairn.LinkRelated, Reason: reason})
		g.nLinked++
	}
}
