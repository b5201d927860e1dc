package consolidate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// longGate is the gate of one long record read in parts.
func longGate() *gate {
	th := testThread(100)
	return &gate{th: th, win: &window{pass: PassMain, records: []*Record{&th.Records[0]}, nums: []int{1}, parts: []string{"a", "b"}},
		dropped: map[string]int{}}
}

func partItem(summary, body string, cues, concepts []string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"kind": "fact", "title": "Worker pool shrinks every 97 jobs", "summary": summary, "body": body,
		"applies_when": "When the queue backs up.", "scope": "project", "requests": []int{1}, "confidence": "verified", "importance": 3,
		"contested": false, "ambiguous": false, "cues": cues, "concepts": concepts})
	return b
}

// TestGateRepeatedItemRicher: the parts of a long record state one item
// twice (same kind, title and record, so the same id). The richer version
// is stored whichever part gave it, with the cues and concepts of both,
// and the repeat is counted. Before, the first part's version was kept
// and the later, richer one dropped without a count.
func TestGateRepeatedItemRicher(t *testing.T) {
	short := partItem("The pool shrinks.", "", []string{"queue backlog"}, []string{"POOL_MIN"})
	rich := partItem("The queue worker pool in /srv/queue shrinks to 2 workers every 97 jobs.",
		"Pin POOL_MIN=8 in queue.toml; the log shows the shrink at jobs 97, 194 and 291.", []string{"why does the queue back up", "queue backlog"}, []string{"queue.toml"})
	tests := []struct {
		name         string
		first, later json.RawMessage
	}{
		{"later part richer", short, rich},
		{"earlier part richer", rich, short},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := longGate()
			ms := g.run([]*answer{{Items: []json.RawMessage{tt.first}}, {Items: []json.RawMessage{tt.later}}})
			if len(ms) != 1 {
				t.Fatalf("%d memories, want 1", len(ms))
			}
			m := ms[0]
			got := []string{m.Summary, m.Body, strings.Join(m.Cues, "|"), strings.Join(m.Concepts, "|")}
			want := []string{"The queue worker pool in /srv/queue shrinks to 2 workers every 97 jobs.",
				"Pin POOL_MIN=8 in queue.toml; the log shows the shrink at jobs 97, 194 and 291.",
				"why does the queue back up|queue backlog", "queue.toml|POOL_MIN"}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("stored item (-want +got):\n%s", d)
			}
			if d := cmp.Diff(map[string]int{DropRepeated: 1}, g.dropped); d != "" {
				t.Errorf("dropped (-want +got):\n%s", d)
			}
		})
	}
}

// TestGateRepeatedObservation: one observation given by two parts keeps
// the gate's limits on the merged lists.
func TestGateRepeatedObservation(t *testing.T) {
	g := longGate()
	obs := func(cues, concepts []string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"text": "Dana moved to Lisbon in 2024.", "about": "Dana", "requests": []int{1}, "cues": cues, "concepts": concepts})
		return b
	}
	ms := g.run([]*answer{{Observations: []json.RawMessage{obs([]string{"a", "b", "c"}, []string{"1", "2", "3", "4"})}},
		{Observations: []json.RawMessage{obs([]string{"d", "e"}, []string{"5", "6", "7"})}}})
	if len(ms) != 1 || len(ms[0].Cues) != maxObservationCues || len(ms[0].Concepts) != maxObservationConcepts || g.dropped[DropRepeated] != 1 {
		t.Fatalf("memories %+v dropped %v: want one observation with 4 cues and 6 concepts", ms, g.dropped)
	}
}

// TestGateNoSourceCounted: items and observations without a request
// number of the window are dropped and counted apart, and the rest of the
// window's answer is kept. Before, such an item was credited to every
// record of the window.
func TestGateNoSourceCounted(t *testing.T) {
	g, _ := gateFixture()
	a := &answer{Items: []json.RawMessage{
		json.RawMessage(`{"kind":"fact","requests":[42],` + goodItem + `}`),
		json.RawMessage(`{"kind":"decision","requests":[],` + strings.Replace(goodItem, "Raise the session timeout", "Keep the 5s timeout", 1) + `}`),
		json.RawMessage(`{"kind":"fact","requests":[2],` + strings.Replace(goodItem, "Raise the session timeout", "Session timeout is 5s", 1) + `}`),
	}, Observations: []json.RawMessage{json.RawMessage(`{"text":"Dana moved to Lisbon in 2024.","requests":[0]}`)}}
	ms := g.run([]*answer{a})
	if len(ms) != 1 || ms[0].Title != "Session timeout is 5s" || len(ms[0].Provenance) != 1 || ms[0].Provenance[0].Record != g.win.records[1].UID {
		t.Fatalf("memories %+v, want the one item of record 2, credited to it alone", ms)
	}
	if d := cmp.Diff(map[string]int{DropItemNoSource: 2, DropObservationNoSource: 1}, g.dropped); d != "" {
		t.Errorf("dropped (-want +got):\n%s", d)
	}
}
