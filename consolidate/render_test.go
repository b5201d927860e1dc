package consolidate

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/cairnmemory/cairn/internal/golden"
)

// goldenThread is a small thread with real-looking records on two days.
func goldenThread() *Thread {
	th := &Thread{Corpus: "sessions", Path: "claude-code/unknown/default/shop/2026-05-04T09-00-00Z--s1.md"}
	th.Info.Source, th.Info.Title, th.Info.Cwd = "claude-code", "Fix the login flake", "/home/dana/shop"
	at := func(d, h int) time.Time { return time.Date(2026, 5, d, h, 0, 0, 0, time.UTC) }
	th.Records = []Record{
		{UID: "r1", Time: at(4, 9), Text: "## User — Dana — 2026-05-04 09:00:00 UTC\n\nThe login test is flaky again, please fix it.\n\n## Assistant — claude-code — 2026-05-04 09:00:10 UTC\n\nRaised the session timeout to 5s.\n\n- tool Bash: go test ./auth/...\n  > ok auth 0.3s"},
		{UID: "r2", Time: at(5, 10), Text: "## User — Dana — 2026-05-05 10:00:00 UTC\n\nLast Friday I bought a standing desk from Ikea for 349 euros.\n\n## Assistant — claude-code — 2026-05-05 10:00:05 UTC\n\nNoted."},
		{UID: "r3", Time: at(5, 11), Text: "## User — Dana — 2026-05-05 11:00:00 UTC\n\nLine one of a long paste.\nLine two of a long paste.\nLine three of a long paste."},
	}
	return th
}

func TestGoldenPrompts(t *testing.T) {
	th := goldenThread()
	w := New(nil, nil, nil, "sessions")
	recs := func(idx ...int) ([]*Record, []int) {
		var rs []*Record
		var ns []int
		for _, i := range idx {
			rs, ns = append(rs, &th.Records[i]), append(ns, i+1)
		}
		return rs, ns
	}
	r12, n12 := recs(0, 1)
	r2, n2 := recs(1)
	r3, n3 := recs(2)
	long := &window{pass: PassMain, records: r3, nums: n3, parts: splitParts(th.Records[2].Text, 70)}
	tests := []struct {
		name   string
		win    *window
		part   int
		run    *episode
		names  []knownName
		system string
	}{
		{"main-window", &window{pass: PassMain, records: r12, nums: n12}, 0, nil, []knownName{{"Ikea", "Dana bought a bookshelf at Ikea in Lisbon last spring."}, {"Lisbon", "Dana bought a bookshelf at Ikea in Lisbon last spring."}}, PassMain},
		{"main-part-1", long, 0, nil, nil, ""},
		{"main-part-2", long, 1, &episode{Title: "Paste a long log", Summary: "Dana pasted the first lines of a long log."}, nil, ""},
		{"observations-window", &window{pass: PassObservations, records: r2, nums: n2, context: contextBefore(th, 1, 6000)}, 0, nil, nil, PassObservations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := w.prompt(th, tt.win, tt.names, tt.part, tt.run)
			if tt.system != "" {
				got = "SYSTEM:\n" + system(tt.system, !w.apart()) + "\nUSER:\n" + got
			}
			golden(t, filepath.Join("testdata", tt.name+".golden"), got)
		})
	}
}

// golden checks got with the file at path (-update rewrites it).
func golden(t *testing.T, path, got string) {
	t.Helper()
	goldenfile.Check(t, path, []byte(got))
}

func TestPromptsHaveNoTemplateLeftovers(t *testing.T) {
	for _, s := range []string{system(PassMain, true), system(PassMain, false), system(PassObservations, false)} {
		if strings.Contains(s, "{{") || strings.Contains(s, "<no value>") {
			t.Errorf("system prompt has template leftovers:\n%s", s)
		}
	}
	if strings.Contains(system(PassMain, false), "observations:") {
		t.Error("the main prompt asks for observations while they are read apart")
	}
	if !strings.Contains(system(PassMain, true), "event_date") {
		t.Error("the combined main prompt lacks the observation rules")
	}
}
