package consolidate

import (
	"strings"
	"testing"
	"time"
)

func TestSplitParts(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		limit int
		want  []string
	}{
		{"fits", "ab\ncd\n", 10, []string{"ab\ncd\n"}},
		{"at line ends", "aaaa\nbbbb\ncccc\n", 10, []string{"aaaa\nbbbb\n", "cccc\n"}},
		{"long line cut at the limit", "xxxxxxxxxxxxxxxxxxxxxxxxx\nyy", 10, []string{"xxxxxxxxxx", "xxxxxxxxxx", "xxxxx\nyy"}},
		{"characters, not bytes", "ééééé\néé", 6, []string{"ééééé\n", "éé"}},
		{"no final newline", "aaaa\nbb", 5, []string{"aaaa\n", "bb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitParts(tt.text, tt.limit)
			if strings.Join(got, "") != tt.text {
				t.Fatalf("parts do not rebuild the text: %q", got)
			}
			for _, p := range got {
				if chars(p) > tt.limit {
					t.Errorf("part of %d chars over the limit %d: %q", chars(p), tt.limit, p)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("parts = %q, want %q", got, tt.want)
			}
		})
	}
}

// testThread builds a thread of records with the given text sizes, one
// record an hour from Monday 2026-05-04 09:00 UTC.
func testThread(sizes ...int) *Thread {
	th := &Thread{Corpus: "sessions", Path: "claude-code/unknown/default/shop/t.md"}
	th.Info.Source, th.Info.Title, th.Info.Cwd = "claude-code", "Fix the login flake", "/home/dana/shop"
	start := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	for i, n := range sizes {
		text := "## User — Dana — x\n\n" + strings.Repeat("w", max(0, n-20))
		th.Records = append(th.Records, Record{UID: itoa(i + 1), Text: text, Time: start.Add(time.Duration(i) * time.Hour)})
	}
	return th
}

func TestPlanWindows(t *testing.T) {
	th := testThread(300, 300, 300, 2500, 300)
	wins := plan(th, map[string]bool{"2": true}, PassMain, 1000, 900, 0)
	var got []string
	for _, w := range wins {
		got = append(got, joinNums(w.nums)+"/"+itoa(len(w.parts)))
	}
	// record 2 is done; 1 and 3 share a window; 4 is read alone in parts; 5 alone.
	want := []string{"1,3/0", "4/4", "5/0"} // record 4: its heading lines, then its long line cut at 900

	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("windows = %v, want %v", got, want)
	}
	for _, w := range wins {
		size := 0
		for k, r := range w.records {
			size += chars(recordBlock(w.nums[k], r, 0, 0)) + chars(r.Text) + 2
		}
		if w.parts == nil && size > 1000 {
			t.Errorf("window %v renders %d chars, over 1000", w.nums, size)
		}
	}
}

func joinNums(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, itoa(n))
	}
	return strings.Join(s, ",")
}

func TestPlanObservationContext(t *testing.T) {
	th := testThread(400, 400, 400)
	wins := plan(th, nil, PassObservations, 500, 450, 250)
	if len(wins) != 3 {
		t.Fatalf("%d windows, want one per record", len(wins))
	}
	if wins[0].context != "" {
		t.Errorf("first window has context %q", wins[0].context)
	}
	for _, w := range wins[1:] {
		if w.context == "" || chars(w.context) > 250 {
			t.Errorf("window %v: context of %d chars, want 1..250", w.nums, chars(w.context))
		}
		if !strings.HasSuffix(th.Records[w.nums[0]-2].Text, strings.TrimPrefix(w.context, "[…]\n")) {
			t.Errorf("window %v: context does not end with the record before it", w.nums)
		}
	}
}

func TestCalendar(t *testing.T) {
	th := testThread(10, 10)
	th.Records[1].Time = time.Date(2026, 5, 13, 8, 0, 0, 0, time.UTC) // a Wednesday, next week
	got := calendar([]*Record{&th.Records[0], &th.Records[1]})
	want := []string{
		"2026-W18: Mon 2026-04-27 Tue 2026-04-28 Wed 2026-04-29 Thu 2026-04-30 Fri 2026-05-01 Sat 2026-05-02 Sun 2026-05-03",
		"2026-W19: Mon 2026-05-04* Tue 2026-05-05 Wed 2026-05-06 Thu 2026-05-07 Fri 2026-05-08 Sat 2026-05-09 Sun 2026-05-10",
		"2026-W20: Mon 2026-05-11 Tue 2026-05-12 Wed 2026-05-13* Thu 2026-05-14 Fri 2026-05-15 Sat 2026-05-16 Sun 2026-05-17",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calendar:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestChangedAndHeld: when a record counts as changed since its
// checkpoint, and when a thread's last record is held back.
func TestChangedAndHeld(t *testing.T) {
	for _, tt := range []struct {
		kept, now  string
		last, want bool
	}{
		{"h1", "h1", false, false},
		{"h1", "h2", false, true},
		{"h1", "h2", true, true},
		{"", "h2", false, false}, // checkpointed before hashes were kept: trusted
		{"", "h2", true, true},   // ... except the last record, which may have grown
	} {
		if got := changed(tt.kept, tt.now, tt.last); got != tt.want {
			t.Errorf("changed(%q, %q, last %v) = %v, want %v", tt.kept, tt.now, tt.last, got, tt.want)
		}
	}
	now := time.Date(2026, 5, 11, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		last time.Time
		idle time.Duration
		want bool
	}{
		{"quiet long enough", now.Add(-30 * time.Minute), DefaultIdleAfter, false},
		{"still going", now.Add(-29 * time.Minute), DefaultIdleAfter, true},
		{"no hold-back", now.Add(-time.Minute), 0, false},
		{"no time to measure", time.Time{}, DefaultIdleAfter, false},
	} {
		w := &Worker{IdleAfter: tt.idle, Now: func() time.Time { return now }}
		th := &Thread{Records: []Record{{UID: "a"}, {UID: "b", Last: tt.last}}}
		if got := w.held(th); got != tt.want {
			t.Errorf("%s: held = %v, want %v", tt.name, got, tt.want)
		}
	}
}
