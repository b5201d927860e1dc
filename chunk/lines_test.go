package chunk

import "testing"

func TestIsMarker(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"Decision: x", true},
		{"Preference: y", true},
		{"Task: z", true},
		{"Outcome:", true},
		{"Observation: w", true},
		{"Decisions: plural", false},
		{" Decision: indented", false},
		{"decision: lower case", false},
		{"Session:", true},
		{"Session 3:", true},
		{"Session 12 : spaced", true},
		{"Session ID: abc", true},
		{"Session ID#4", true},
		{"Session #4", true},
		{"Conversation #2", true},
		{"Conversation: x", true},
		{"Session management: prose", false},
		{"Sessions: prose", false},
		{"Session.md", false},
		{"Session", false},
		{"2024-05-01 10:30", true},
		{"2024-05-01T10:30:15Z entry", true},
		{"2024-05-01 10:30:15.123+02:00 entry", true},
		{"2024-05-01 10:30.md", false},
		{"2024-05-01 10:30_notes", false},
		{"2024-05-01", false},
		{"2024-05-01 note", false},
		{"[10:30] entry", true},
		{"[10:30:15]", true},
		{"[10:30", false},
		{"[1:30] short hour", false},
		{"Alice: hi", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := isMarker(tt.line); got != tt.want {
			t.Errorf("isMarker(%q) = %t, want %t", tt.line, got, tt.want)
		}
	}
}

func TestBlockLines(t *testing.T) {
	tests := []struct {
		line                     string
		heading                  int
		rule, fence, list, first bool
		noise                    bool
	}{
		{line: "# H", heading: 1},
		{line: "###### H", heading: 6},
		{line: "####### H"},
		{line: "#H"},
		{line: "   ## H", heading: 2},
		{line: "    # code"},
		{line: "#", heading: 1, noise: true},
		{line: "---", rule: true, noise: true},
		{line: " * * *", rule: true, list: true, first: true, noise: true}, // rule wins: checked first
		{line: "--", noise: true},
		{line: "```go", fence: true, noise: true},
		{line: "~~~~", fence: true, noise: true},
		{line: "``` a`b"},
		{line: "```js title=x", fence: true},
		{line: "- item", list: true, first: true},
		{line: "-", list: true, first: true, noise: true},
		{line: "-item"},
		{line: "1. one", list: true, first: true},
		{line: "2) two", list: true},
		{line: "1234567890. too long"},
		{line: "| --- | :-: |", noise: true},
		{line: "<!-- marker -->", noise: true},
		{line: "<!-- a --> b <!-- c -->"},
		{line: "   ", noise: true},
	}
	for _, tt := range tests {
		l := tt.line
		_, _, fence := fenceOpen(l)
		list, first := listItem(l)
		if headingLevel(l) != tt.heading || isRule(l) != tt.rule || fence != tt.fence ||
			list != tt.list || first != tt.first || isNoiseLine(l) != tt.noise {
			t.Errorf("%q: heading %d rule %t fence %t list %t first %t noise %t, want %d %t %t %t %t %t",
				l, headingLevel(l), isRule(l), fence, list, first, isNoiseLine(l),
				tt.heading, tt.rule, tt.fence, tt.list, tt.first, tt.noise)
		}
	}
}
