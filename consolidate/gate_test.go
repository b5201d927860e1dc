package consolidate

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/schema"
	"github.com/google/go-cmp/cmp"
)

// gateFixture is a window of records 1 to 3; record 1 succeeded, record 2
// failed and record 3 is uncertain.
func gateFixture() (*gate, map[int]string) {
	th := testThread(100, 100, 100)
	win := &window{pass: PassMain, nums: []int{1, 2, 3}}
	for i := range th.Records {
		win.records = append(win.records, &th.Records[i])
	}
	return &gate{th: th, win: win, dropped: map[string]int{}}, map[int]string{1: "success", 2: "fail", 3: "uncertain"}
}

const goodItem = `"title":"Raise the session timeout","summary":"The shop's TestLogin flakes because auth/session.go times out after 1s.","body":"Set SessionTimeout = 5 * time.Second in auth/session.go.","applies_when":"TestLogin fails with a timeout.","scope":"project","confidence":"verified","importance":3,"contested":false,"ambiguous":false,"cues":["login test flaky"],"concepts":["auth/session.go"]`

func TestGateItems(t *testing.T) {
	tests := []struct {
		name string
		item string // JSON object
		drop string // expected reason; empty: kept
	}{
		{"kept", `{"kind":"fact","requests":[1],` + goodItem + `}`, ""},
		{"unknown kind", `{"kind":"gossip","requests":[1],` + goodItem + `}`, DropUnknownKind},
		{"empty title", `{"kind":"fact","requests":[1],` + strings.Replace(goodItem, `"title":"Raise the session timeout"`, `"title":"  "`, 1) + `}`, DropEmptyTitle},
		{"empty summary", `{"kind":"fact","requests":[1],` + strings.Replace(goodItem, `"summary":"The shop's TestLogin flakes because auth/session.go times out after 1s."`, `"summary":""`, 1) + `}`, DropEmptySummary},
		{"inferred", `{"kind":"fact","requests":[1],` + strings.Replace(goodItem, `"verified"`, `"inferred"`, 1) + `}`, DropLowConfidence},
		{"no confidence", `{"kind":"fact","requests":[1],` + strings.Replace(goodItem, `"confidence":"verified",`, ``, 1) + `}`, DropLowConfidence},
		{"contested", `{"kind":"decision","requests":[1],` + strings.Replace(goodItem, `"contested":false`, `"contested":true`, 1) + `}`, DropContested},
		{"ambiguous", `{"kind":"decision","requests":[1],` + strings.Replace(goodItem, `"ambiguous":false`, `"ambiguous":true`, 1) + `}`, DropAmbiguous},
		{"importance 1", `{"kind":"fact","requests":[1],` + strings.Replace(goodItem, `"importance":3`, `"importance":1`, 1) + `}`, DropLowImportance},
		{"importance 1.4 rounds to 1", `{"kind":"fact","requests":[1],` + strings.Replace(goodItem, `"importance":3`, `"importance":1.4`, 1) + `}`, DropLowImportance},
		{"procedure from a failed record", `{"kind":"procedure","requests":[2],` + goodItem + `}`, DropUnproven},
		{"snippet from failed and uncertain records", `{"kind":"snippet","requests":[2,3],` + goodItem + `}`, DropUnproven},
		{"pitfall with one success among its records", `{"kind":"pitfall","requests":[2,1],` + goodItem + `}`, ""},
		{"a decision from a failed record is no claim that it works", `{"kind":"decision","requests":[2],` + goodItem + `}`, ""},
		{"template without a valid request number: dropped, not credited to every record", `{"kind":"template","requests":[42],` + goodItem + `}`, DropItemNoSource},
		{"no requests at all", `{"kind":"fact","requests":[],` + goodItem + `}`, DropItemNoSource},
		{"importance not a number", `{"kind":"fact","requests":[1],` + strings.Replace(goodItem, `"importance":3`, `"importance":"high"`, 1) + `}`, DropMalformedItem},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, outcome := gateFixture()
			m, ok := g.item(json.RawMessage(tt.item), outcome)
			if tt.drop == "" {
				if !ok {
					t.Fatalf("dropped %v, want kept", g.dropped)
				}
				return
			}
			if ok || g.dropped[tt.drop] != 1 || len(g.dropped) != 1 {
				t.Fatalf("kept=%v dropped=%v (memory %q), want dropped for %s", ok, g.dropped, m.Title, tt.drop)
			}
		})
	}
}

func TestGateKeptItem(t *testing.T) {
	g, outcome := gateFixture()
	raw := `{"kind":" Pitfall ","title":"Raise   the session timeout","summary":"TestLogin flakes; key sk-ant-api03-` + strings.Repeat("a", 93) + `AA was in the log.","body":"export SHOP_TOKEN=ghp_` + strings.Repeat("b", 36) + `\nmake test","applies_when":"when TestLogin fails","scope":"team","requests":[1,1,3],"confidence":"Stated","importance":7.2,"contested":false,"ambiguous":false,
		"cues":["login test flaky","", "Login  test flaky","raise the session timeout","why does TestLogin time out?"],
		"concepts":["auth/session.go","parse_config","parseConfig","parse-config","Auth/Session.go","TestLogin",""]}`
	m, ok := g.item(json.RawMessage(raw), outcome)
	if !ok {
		t.Fatalf("dropped: %v", g.dropped)
	}
	got := map[string]any{"kind": m.Kind, "title": m.Title, "summary": m.Summary, "body": m.Body, "scope": m.Scope,
		"confidence": m.Confidence, "importance": m.Importance, "cues": m.Cues, "concepts": m.Concepts, "sources": len(m.Provenance)}
	want := map[string]any{"kind": "pitfall", "title": "Raise the session timeout",
		"summary": "TestLogin flakes; key [REDACTED:anthropic-key] was in the log.", "body": "export SHOP_TOKEN=[REDACTED:github-token]\nmake test",
		"scope": "project", "confidence": "stated", "importance": 5,
		"cues":     []string{"login test flaky", "why does TestLogin time out?"},
		"concepts": []string{"auth/session.go", "parse_config", "TestLogin"}, "sources": 2}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("kept item (-want +got):\n%s", d)
	}
	again, _ := g.item(json.RawMessage(raw), outcome)
	if again.ID != m.ID || !strings.HasPrefix(m.ID, "m-") {
		t.Errorf("ids %q and %q: want one content-derived id", m.ID, again.ID)
	}
}

func TestGateObservations(t *testing.T) {
	tests := []struct {
		name string
		obs  string
		drop string
		want func(m cairn.Memory) string // "" when as expected
	}{
		{"kept", `{"text":"Dana bought a standing desk from Ikea for 349 euros last Friday (2026-05-01).","about":"Dana","event_date":"2026-05-01","start_date":"","end_date":"","phase":"done","requests":[2],"concepts":["Ikea"],"cues":["what furniture did I buy?"]}`, "", nil},
		{"empty text", `{"text":"  ","about":"Dana","requests":[2]}`, DropObservationNoText, nil},
		{"no source in the window", `{"text":"Dana moved to Lisbon in 2024.","requests":[9]}`, DropObservationNoSource, nil},
		{"no requests", `{"text":"Dana moved to Lisbon in 2024."}`, DropObservationNoSource, nil},
		{"malformed", `{"text":["not","a","string"],"requests":[1]}`, DropObservationMalformed, nil},
		{"dates and phase cleaned", `{"text":"Dana plans to assemble the desk on Saturday (2026-05-09).","event_date":"2026-5-9","start_date":"2026-13","end_date":"2027","phase":"someday","requests":[2],
			"concepts":["a","b","c","d","e","f","g","h"],"cues":["1","2","3","4","5","6"]}`, "", func(m cairn.Memory) string {
			if m.EventDate != "" || m.StartDate != "" || m.EndDate != "2027" || m.Phase != "done" || len(m.Cues) != 4 || len(m.Concepts) != 6 {
				return "event " + m.EventDate + " start " + m.StartDate + " end " + m.EndDate + " phase " + m.Phase + " cues " + itoa(len(m.Cues)) + " concepts " + itoa(len(m.Concepts))
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, _ := gateFixture()
			m, ok := g.observation(json.RawMessage(tt.obs))
			if tt.drop != "" {
				if ok || g.dropped[tt.drop] != 1 {
					t.Fatalf("kept=%v dropped=%v, want dropped for %s", ok, g.dropped, tt.drop)
				}
				return
			}
			if !ok {
				t.Fatalf("dropped %v", g.dropped)
			}
			if tt.want != nil {
				if msg := tt.want(m); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

func TestGateEpisodes(t *testing.T) {
	g, _ := gateFixture()
	part1 := &answer{Episodes: []json.RawMessage{json.RawMessage(`{"request":1,"outcome":"partial","keep":true,"title":"Fix the login flake","summary":"Started.","cues":["flaky login"],"concepts":["TestLogin"]}`)}}
	part2 := &answer{Episodes: []json.RawMessage{
		json.RawMessage(`{"request":1,"outcome":"success","keep":true,"title":"Fix the login flake in auth","summary":"Raised the timeout; tests pass.","cues":["login test timeout","flaky login"],"concepts":["auth/session.go"]}`),
		json.RawMessage(`{"request":2,"outcome":"fail","keep":false,"title":"","summary":"","cues":[],"concepts":[]}`),
		json.RawMessage(`{"request":3,"outcome":"weird","keep":true,"title":"","summary":"","cues":[],"concepts":[]}`),
		json.RawMessage(`{"request":7,"outcome":"success","keep":true,"title":"x","summary":"y","cues":[],"concepts":[]}`),
	}}
	eps, outcome := g.episodes([]*answer{part1, part2})
	if len(eps) != 1 {
		t.Fatalf("%d episodes, want 1", len(eps))
	}
	e := eps[0]
	got := []string{e.Title, e.Summary, e.Outcome, strings.Join(e.Cues, "|"), strings.Join(e.Concepts, "|"), e.EventDate}
	want := []string{"Fix the login flake in auth", "Raised the timeout; tests pass.", "success", "flaky login|login test timeout", "TestLogin|auth/session.go", "2026-05-04"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("episode (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[int]string{1: "success", 2: "fail", 3: "uncertain"}, outcome); d != "" {
		t.Errorf("outcomes (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int{DropEpisodeEmpty: 1, DropEpisodeUnknownRequest: 1, DropEpisodeNotKept: 1}, g.dropped); d != "" {
		t.Errorf("dropped (-want +got):\n%s", d)
	}
}

func TestValidDate(t *testing.T) {
	for in, want := range map[string]string{"2026": "2026", "2026-05": "2026-05", "2026-05-01": "2026-05-01", " 2026-05-01 ": "2026-05-01",
		"2026-02-30": "", "2026-13": "", "26-05-01": "", "last Friday": "", "2026-5-1": "", "": ""} {
		if got := validDate(in); got != want {
			t.Errorf("validDate(%q) = %q, want %q", in, got, want)
		}
	}
}

// The schemas must compile with the validator the model clients use.
func TestSchemasCompile(t *testing.T) {
	for name, s := range map[string]json.RawMessage{"main": schemaMain(), "main apart": schemaMainApart(), "observations": schemaObservations(), "sleep": schemaSleep} {
		if _, err := schema.Compile(s); err != nil {
			t.Errorf("%s schema: %v", name, err)
		}
	}
	if strings.Contains(string(schemaMainApart()), "observations") {
		t.Error("the main schema used with observations apart still names observations")
	}
}

// TestGateEpisodeKeptByAnyPart: a long record's last part answering keep:
// false with an empty summary keeps the episode the earlier parts wrote
// (title and summary from the last part that gave them); a record no part
// kept is counted.
func TestGateEpisodeKeptByAnyPart(t *testing.T) {
	g, _ := gateFixture()
	parts := []*answer{
		{Episodes: []json.RawMessage{json.RawMessage(`{"request":1,"outcome":"partial","keep":true,"title":"Fix the login flake","summary":"Read the first half of the log.","cues":["flaky login"],"concepts":[]}`)}},
		{Episodes: []json.RawMessage{json.RawMessage(`{"request":1,"outcome":"success","keep":true,"title":"Fix the login flake in auth","summary":"","cues":[],"concepts":["auth"]}`)}},
		{Episodes: []json.RawMessage{
			json.RawMessage(`{"request":1,"outcome":"success","keep":false,"title":"","summary":"","cues":[],"concepts":[]}`),
			json.RawMessage(`{"request":2,"outcome":"fail","keep":false,"title":"","summary":"","cues":[],"concepts":[]}`),
		}},
	}
	eps, _ := g.episodes(parts)
	if len(eps) != 1 {
		t.Fatalf("%d episodes, want the long record's 1", len(eps))
	}
	got := []string{eps[0].Title, eps[0].Summary, eps[0].Outcome}
	want := []string{"Fix the login flake in auth", "Read the first half of the log.", "success"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("episode (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int{DropEpisodeNotKept: 1}, g.dropped); d != "" {
		t.Errorf("dropped (-want +got):\n%s", d)
	}
}

// TestGateEpisodeUndated: a record without a timestamp (the OpenAI chat
// export keeps none) gives an episode without an event date, not
// 0001-01-01.
func TestGateEpisodeUndated(t *testing.T) {
	g, _ := gateFixture()
	g.win.records[0].Time = time.Time{}
	eps, _ := g.episodes([]*answer{{Episodes: []json.RawMessage{json.RawMessage(`{"request":1,"outcome":"success","keep":true,"title":"Fix the login flake","summary":"Raised the timeout.","cues":[],"concepts":[]}`)}}})
	if len(eps) != 1 || eps[0].EventDate != "" {
		t.Fatalf("episodes %+v: want one without an event date", eps)
	}
}
