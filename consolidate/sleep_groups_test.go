package consolidate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

func TestWordsAndSimilarity(t *testing.T) {
	if d := cmp.Diff([]string{"14", "db1", "postgresql", "runs", "shop"}, words("The shop's DB1 runs PostgreSQL 14 on it, and the shop")); d != "" {
		t.Errorf("words (-want +got):\n%s", d)
	}
	mk := func(kind, title, about string, concepts ...string) *profile {
		p := profileOf(&cairn.Memory{Kind: kind, Title: title, About: about, Concepts: concepts})
		return &p
	}
	tests := []struct {
		a, b *profile
		want float64
	}{
		{mk("fact", "shop database runs postgresql", ""), mk("fact", "shop database runs postgresql", ""), 1},
		{mk("fact", "shop database runs postgresql", ""), mk("fact", "shop database backups", ""), 0.4},
		{mk("fact", "alpha beta", "", "Shop-DB"), mk("fact", "gamma delta", "", "shop_db"), 0.2},
		{mk("observation", "Dana lives in Berlin", "Dana"), mk("observation", "Dana moved to Munich", "dana"), 0.4},
		{mk("fact", "alpha beta", "Dana"), mk("fact", "gamma delta", "Dana"), 0}, // about counts for observations only
	}
	for i, tt := range tests {
		if got := similarity(tt.a, tt.b); got != tt.want {
			t.Errorf("%d: similarity = %v, want %v", i, got, tt.want)
		}
	}
}

// TestSleepGroups: groups stay within a family, leave out episodes,
// superseded memories and judged pairs, and respect the size cap.
func TestSleepGroups(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 5, d, 9, 0, 0, 0, time.UTC) }
	mem := func(id, kind string, d int, title string) cairn.Memory {
		return cairn.Memory{ID: id, Kind: kind, Title: title, Status: cairn.StatusActive, ToldAt: day(d)}
	}
	base := []cairn.Memory{
		mem("f1", "fact", 1, "shop database runs postgresql"),
		mem("f2", "decision", 2, "shop database runs postgresql"),
		mem("p1", "procedure", 3, "shop database runs postgresql"), // another family
		mem("e1", "episode", 4, "shop database runs postgresql"),   // never grouped
		mem("o1", "observation", 5, "shop database runs postgresql"),
		mem("o2", "observation", 6, "shop database runs postgresql"),
		mem("x1", "fact", 7, "nothing alike here"),
	}
	superseded := mem("f3", "fact", 8, "shop database runs postgresql")
	superseded.Status = cairn.StatusSuperseded
	var many []cairn.Memory
	for i := range 10 {
		many = append(many, mem(fmt.Sprintf("n%02d", i), "fact", i+1, "nightly restic backup of the photo archive"))
	}
	tests := []struct {
		name     string
		ms       []cairn.Memory
		skip     [][2]string
		maxGroup int
		posting  int
		want     [][]string
	}{
		{name: "families", ms: append(base, superseded), maxGroup: 8, posting: 200, want: [][]string{{"f1", "f2"}, {"o1", "o2"}}},
		{name: "judged pairs", ms: base, skip: [][2]string{{"f1", "f2"}}, maxGroup: 8, posting: 200, want: [][]string{{"o1", "o2"}}},
		{name: "cap", ms: many, maxGroup: 4, posting: 200,
			want: [][]string{{"n00", "n01", "n02", "n03"}, {"n04", "n05", "n06", "n07"}, {"n08", "n09"}}},
		{name: "words too common pair nothing", ms: many, maxGroup: 8, posting: 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skip := map[[2]string]bool{}
			for _, p := range tt.skip {
				skip[pairKey(p[0], p[1])] = true
			}
			var got [][]string
			for _, g := range sleepGroups(tt.ms, skip, DefaultSleepMinScore, tt.maxGroup, tt.posting) {
				got = append(got, g.Members)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("groups (-want +got):\n%s", d)
			}
		})
	}
}

// TestGoldenSleepPrompt pins the sleep pass's system prompt and a rendered
// group (go test ./consolidate -run TestGoldenSleepPrompt -update).
func TestGoldenSleepPrompt(t *testing.T) {
	told := func(d int) time.Time { return time.Date(2026, 5, d, 9, 30, 0, 0, time.UTC) }
	ms := []cairn.Memory{
		{ID: "m-0000000000000001", Kind: "fact", Title: "Shop database runs PostgreSQL 14", Summary: "The shop database runs PostgreSQL 14 on db1.",
			Confidence: "stated", Importance: 3, ToldAt: told(1), Concepts: []string{"PostgreSQL", "db1"}, Thread: "sessions/claude-code/shop.md",
			Provenance: []cairn.Provenance{{Record: "r1"}}},
		{ID: "m-0000000000000002", Kind: "fact", Title: "Shop database upgraded to PostgreSQL 16", Summary: "The shop database on db1 was upgraded from PostgreSQL 14 to 16.",
			Body: "Ran pg_upgrade --link on db1.\n" + "Checked with SELECT version();", Confidence: "verified", Importance: 4,
			ToldAt: told(10), Concepts: []string{"pg_upgrade"}, Thread: "sessions/claude-code/shop.md", Provenance: []cairn.Provenance{{Record: "r2"}, {Record: "r3"}}},
		{ID: "m-0000000000000003", Kind: "observation", Title: "Dana: moved to Munich", About: "Dana", Summary: "Dana moved from Berlin to Munich in March 2026.",
			Phase: "done", EventDate: "2026-03", ToldAt: told(20), Thread: "sessions/codex/chat.md", Provenance: []cairn.Provenance{{Record: "r4"}}},
	}
	got := "SYSTEM:\n" + sleepSystem() + "\nUSER:\n" + sleepPrompt(FamilyKnowledge, ms, 40)
	golden(t, "testdata/sleep-group.golden", got)
}

// BenchmarkSleepGroups finds the candidate groups among 10,000 memories
// with a vocabulary of 3,000 words (12 words each, 8 concepts of 2,000).
func BenchmarkSleepGroups(b *testing.B) {
	var ms []cairn.Memory
	for i := range 10000 {
		var w []string
		for j := range 12 {
			w = append(w, fmt.Sprintf("word%d", (i*7+j*j*31+j*i)%3000))
		}
		kind := []string{"fact", "decision", "procedure", "observation"}[i%4]
		ms = append(ms, cairn.Memory{ID: fmt.Sprintf("m-%016d", i), Kind: kind, Status: cairn.StatusActive,
			Title: strings.Join(w[:6], " "), Summary: strings.Join(w[6:], " "), Concepts: []string{fmt.Sprintf("c%d", i%2000)},
			ToldAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)})
	}
	b.ResetTimer()
	for b.Loop() {
		groups := sleepGroups(ms, map[[2]string]bool{}, DefaultSleepMinScore, DefaultSleepGroup, DefaultSleepPosting)
		b.ReportMetric(float64(len(groups)), "groups")
	}
}
