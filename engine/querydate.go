package engine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// queryDates finds the calendar dates a query names in words ("October
// 13, 2023", "13 October 2023", "June 2023", "Oct 2023") and returns each
// as a quoted phrase of its numbers as an ISO date splits into words:
// "2023 10 13" for a day, "2023 06" for a month. The index's tokenizer
// splits 2023-10-13 into those words in that order, so the phrase matches
// a chunk holding the date in ISO form: a session turn's heading
// ("## User — Caroline — 2023-10-13 …"), a note's date line. A month or
// weekday without a year names no date (every year has a June) and is
// left out; so is a date the query already writes as numbers, which the
// lexical lane matches as it is.
func queryDates(query string) []string {
	low := strings.ToLower(query)
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, `"`+p+`"`)
		}
	}
	taken := make([]bool, len(low)) // bytes a day form used, so its month and year are not read again
	for _, re := range []*regexp.Regexp{monthDayYear, dayMonthYear} {
		for _, m := range re.FindAllStringSubmatchIndex(low, -1) {
			g := func(i int) string { return low[m[2*i]:m[2*i+1]] }
			var month, day, year string
			if re == monthDayYear {
				month, day, year = g(1), g(2), g(3)
			} else {
				day, month, year = g(1), g(2), g(3)
			}
			mo, d := monthNumber(month), atoi(day)
			if mo == 0 || d < 1 || d > 31 {
				continue
			}
			add(fmt.Sprintf("%s %02d %02d", year, mo, d))
			for i := m[0]; i < m[1]; i++ {
				taken[i] = true
			}
		}
	}
	for _, m := range monthYear.FindAllStringSubmatchIndex(low, -1) {
		if taken[m[0]] {
			continue
		}
		if mo := monthNumber(low[m[2]:m[3]]); mo != 0 {
			add(fmt.Sprintf("%s %02d", low[m[4]:m[5]], mo))
		}
	}
	return out
}

const monthWord = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`

var (
	monthDayYear = regexp.MustCompile(`\b` + monthWord + `\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+((?:19|20)\d\d)\b`)
	dayMonthYear = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthWord + `,?\s+((?:19|20)\d\d)\b`)
	monthYear    = regexp.MustCompile(`\b` + monthWord + `,?\s+(?:of\s+)?((?:19|20)\d\d)\b`)
)

// monthNumber is 1 to 12 for a month's name or its short form, else 0.
func monthNumber(w string) int {
	w = strings.TrimSuffix(w, ".")
	for i, name := range []string{"january", "february", "march", "april", "may", "june", "july",
		"august", "september", "october", "november", "december"} {
		if w == name || len(w) >= 3 && strings.HasPrefix(name, w) {
			return i + 1
		}
	}
	return 0
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}
