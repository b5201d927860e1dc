package consolidate

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// gateMemories: a (fact, told day 1, stated), b (fact, day 2, verified),
// c (fact, day 3), r (reference, day 2), each with one source.
func gateMemories() []cairn.Memory {
	mk := func(id, kind string, day int, conf string) cairn.Memory {
		return cairn.Memory{ID: id, Kind: kind, Title: "title " + id, Summary: "summary " + id, Status: cairn.StatusActive,
			ToldAt: time.Date(2026, 5, day, 9, 0, 0, 0, time.UTC), Confidence: conf, Cues: []string{"cue " + id},
			Concepts: []string{"concept-" + id, "shared"}, Provenance: []cairn.Provenance{{Record: "r-" + id}}}
	}
	return []cairn.Memory{mk("a", "fact", 1, "stated"), mk("b", "fact", 2, "verified"), mk("c", "fact", 3, "stated"), mk("r", "reference", 2, "stated")}
}

func dup(ids ...string) string {
	b, _ := json.Marshal(ids)
	return fmt.Sprintf(`{"duplicates":[{"ids":%s,"reason":"same"}]}`, b)
}

func sup(newer, older string) string {
	return fmt.Sprintf(`{"supersedes":[{"newer":%q,"older":%q,"reason":"changed"}]}`, newer, older)
}

func rel(a, b string) string {
	return fmt.Sprintf(`{"related":[{"a":%q,"b":%q,"reason":"same subject"}]}`, a, b)
}

func answers(parts ...string) *sleepAnswer {
	var all sleepAnswer
	for _, p := range parts {
		var a sleepAnswer
		if err := json.Unmarshal([]byte(p), &a); err != nil {
			panic(err)
		}
		all.Duplicates = append(all.Duplicates, a.Duplicates...)
		all.Supersedes = append(all.Supersedes, a.Supersedes...)
		all.Related = append(all.Related, a.Related...)
	}
	return &all
}

// TestSleepGate exercises every rule of the sleep gate: what it keeps
// (statuses, pointers, links) and what it drops, with the reason.
func TestSleepGate(t *testing.T) {
	tests := []struct {
		name    string
		answer  *sleepAnswer
		judged  [][2]string
		dropped map[string]int
		status  map[string]string // id → "superseded by X" for those changed
		links   []string
	}{
		{name: "duplicates: the verified one is kept", answer: answers(dup("a", "b")),
			status: map[string]string{"a": "b"}, links: []string{"b merged a"}},
		{name: "supersedes", answer: answers(sup("c", "a")), status: map[string]string{"a": "c"}, links: []string{"c supersedes a"}},
		{name: "a chain", answer: answers(sup("c", "b"), sup("b", "a")), status: map[string]string{"a": "b", "b": "c"},
			links: []string{"c supersedes b", "b supersedes a"}},
		{name: "related both ways", answer: answers(rel("a", "r")), links: []string{"a related r", "r related a"}},
		{name: "unknown id", answer: answers(dup("a", "zz"), sup("zz", "a"), rel("a", "zz")), dropped: map[string]int{DropSleepUnknownID: 3}},
		{name: "self", answer: answers(sup("a", "a"), rel("b", "b")), dropped: map[string]int{DropSleepSelf: 2}},
		{name: "too few", answer: answers(dup("a"), dup("a", "a")), dropped: map[string]int{DropSleepTooFew: 2}},
		{name: "kinds differ", answer: answers(dup("a", "r")), dropped: map[string]int{DropSleepKindMismatch: 1}},
		{name: "not newer", answer: answers(sup("a", "c"), sup("b", "r")), dropped: map[string]int{DropSleepNotNewer: 2}},
		{name: "cycle: merged into an older one, then said to replace it", answer: answers(dup("b", "c"), sup("c", "b")),
			status: map[string]string{"c": "b"}, links: []string{"b merged c"}, dropped: map[string]int{DropSleepCycle: 1}},
		{name: "conflict: merged away (duplicates come first), then superseded and linked", answer: answers(sup("b", "a"), sup("c", "a"), dup("a", "c"), rel("a", "r")),
			status: map[string]string{"a": "c"}, links: []string{"c merged a"}, dropped: map[string]int{DropSleepConflict: 3}},
		{name: "conflict: superseded twice", answer: answers(sup("b", "a"), sup("c", "a")),
			status: map[string]string{"a": "b"}, links: []string{"b supersedes a"}, dropped: map[string]int{DropSleepConflict: 1}},
		{name: "judged before", answer: answers(dup("a", "b"), sup("c", "a"), rel("a", "r")), judged: [][2]string{{"a", "b"}, {"a", "c"}, {"a", "r"}},
			dropped: map[string]int{DropSleepJudged: 3}},
		{name: "a set with one new pair is judged", answer: answers(dup("a", "b", "c")), judged: [][2]string{{"a", "b"}, {"a", "c"}},
			status: map[string]string{"a": "b", "c": "b"}, links: []string{"b merged a", "b merged c"}},
		{name: "repeat", answer: answers(rel("a", "r"), rel("r", "a")), links: []string{"a related r", "r related a"},
			dropped: map[string]int{DropSleepRepeat: 1}},
		{name: "malformed", answer: answers(`{"duplicates":[{"ids":"a","reason":3}],"supersedes":[[]],"related":["x"]}`),
			dropped: map[string]int{DropSleepMalformed: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			judged := map[[2]string]bool{}
			for _, p := range tt.judged {
				judged[pairKey(p[0], p[1])] = true
			}
			dropped := map[string]int{}
			c := newSleepGate(gateMemories(), judged, dropped).run(tt.answer)
			if tt.dropped == nil {
				tt.dropped = map[string]int{}
			}
			if d := cmp.Diff(tt.dropped, dropped); d != "" {
				t.Errorf("dropped (-want +got):\n%s", d)
			}
			status := map[string]string{}
			for _, m := range c.Updates {
				if m.Status == cairn.StatusSuperseded {
					status[m.ID] = m.SupersededBy
				}
			}
			if tt.status == nil {
				tt.status = map[string]string{}
			}
			if d := cmp.Diff(tt.status, status); d != "" {
				t.Errorf("superseded (-want +got):\n%s", d)
			}
			var links []string
			for _, l := range c.Links {
				links = append(links, l.From+" "+l.Kind+" "+l.To)
			}
			if d := cmp.Diff(tt.links, links); d != "" {
				t.Errorf("links (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]string{"a", "b", "c", "r"}, c.Members); d != "" {
				t.Errorf("members (-want +got):\n%s", d)
			}
		})
	}
}

// TestSleepMerge: the kept memory gains the cues (and title), concepts and
// sources of the duplicate it lacks, and the link records exactly that, so
// Subtract gives the kept memory back as it was.
func TestSleepMerge(t *testing.T) {
	ms := gateMemories()
	c := newSleepGate(ms, map[[2]string]bool{}, map[string]int{}).run(answers(dup("a", "b")))
	var kept cairn.Memory
	for _, m := range c.Updates {
		if m.ID == "b" {
			kept = m
		}
	}
	want := cairn.MemoryAddition{Cues: []string{"title a", "cue a"}, Concepts: []string{"concept-a"}, Provenance: []cairn.Provenance{{Record: "r-a"}}}
	if d := cmp.Diff(&want, c.Links[0].Added); d != "" {
		t.Errorf("addition (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"cue b", "title a", "cue a"}, kept.Cues); d != "" {
		t.Errorf("kept cues (-want +got):\n%s", d)
	}
	kept.Subtract(c.Links[0].Added)
	if d := cmp.Diff(ms[1], kept); d != "" {
		t.Errorf("kept memory after Subtract (-want +got):\n%s", d)
	}
	if ms[0].Status != cairn.StatusActive {
		t.Errorf("the gate changed its input")
	}
}
