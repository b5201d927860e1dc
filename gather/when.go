package gather

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// span is one time a question names: its first and last day, and how
// each end is written (at the precision the question gives).
type span struct {
	start, end       time.Time
	startStr, endStr string
}

var (
	isoDay   = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	isoMonth = regexp.MustCompile(`\b(\d{4})-(\d{2})\b`)
	monthRe  = `(jan|january|feb|february|mar|march|apr|april|may|jun|june|jul|july|aug|august|sep|sept|september|oct|october|nov|november|dec|december)`
	dayMonth = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRe + `,?\s+(\d{4})\b`)
	monthDay = regexp.MustCompile(`(?i)\b` + monthRe + `\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	monthYr  = regexp.MustCompile(`(?i)\b` + monthRe + `\s+(?:of\s+)?(\d{4})\b`)
	yearRe   = regexp.MustCompile(`\b(19\d{2}|20\d{2})\b`)
	relRe    = regexp.MustCompile(`(?i)\b(yesterday|today|(?:last|this|past) (?:week|month|year))\b`)
)

var months = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
	"sep": 9, "oct": 10, "nov": 11, "dec": 12}

func month(s string) time.Month { return months[strings.ToLower(s)[:3]] }

// NamedTime finds the time a question names and returns it as an
// event-time range (YYYY, YYYY-MM or YYYY-MM-DD, as precise as the
// question is): "in June 2023" is 2023-06 to 2023-06, "between March 2023
// and 2024-01-15" 2023-03 to 2024-01-15. It knows ISO dates and months,
// day-month-year and month-day-year with month names, month and year,
// and years from 1900 to 2099; with now set also yesterday, today, and
// last, this or past week (Monday to Sunday), month and year. A month
// name without a year is not taken ("may" is also a verb). Several times
// make one range from the earliest to the latest.
func NamedTime(question string, now time.Time) (from, to string, ok bool) {
	text := question
	var spans []span
	take := func(re *regexp.Regexp, f func(m []string) (span, bool)) {
		text = re.ReplaceAllStringFunc(text, func(s string) string {
			if sp, ok := f(re.FindStringSubmatch(s)); ok {
				spans = append(spans, sp)
			}
			return strings.Repeat(" ", len(s)) // a year inside a date is not a year of its own
		})
	}
	take(isoDay, func(m []string) (span, bool) { return daySpan(atoi(m[1]), time.Month(atoi(m[2])), atoi(m[3])) })
	take(isoMonth, func(m []string) (span, bool) { return monthSpan(atoi(m[1]), time.Month(atoi(m[2]))) })
	take(dayMonth, func(m []string) (span, bool) { return daySpan(atoi(m[3]), month(m[2]), atoi(m[1])) })
	take(monthDay, func(m []string) (span, bool) { return daySpan(atoi(m[3]), month(m[1]), atoi(m[2])) })
	take(monthYr, func(m []string) (span, bool) { return monthSpan(atoi(m[2]), month(m[1])) })
	take(yearRe, func(m []string) (span, bool) { return yearSpan(atoi(m[1])) })
	if !now.IsZero() {
		take(relRe, func(m []string) (span, bool) { return relative(strings.ToLower(m[1]), now) })
	}
	if len(spans) == 0 {
		return "", "", false
	}
	first, last := spans[0], spans[0]
	for _, s := range spans[1:] {
		if s.start.Before(first.start) {
			first = s
		}
		if s.end.After(last.end) {
			last = s
		}
	}
	return first.startStr, last.endStr, true
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func daySpan(y int, m time.Month, d int) (span, bool) {
	t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if m < 1 || m > 12 || t.Day() != d || t.Month() != m {
		return span{}, false // no such day
	}
	s := t.Format("2006-01-02")
	return span{t, t, s, s}, true
}

func monthSpan(y int, m time.Month) (span, bool) {
	if m < 1 || m > 12 || y < 1900 || y > 2099 {
		return span{}, false
	}
	t := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	s := t.Format("2006-01")
	return span{t, t.AddDate(0, 1, -1), s, s}, true
}

func yearSpan(y int) (span, bool) {
	t := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	s := fmt.Sprint(y)
	return span{t, t.AddDate(1, 0, -1), s, s}, true
}

// relative resolves a relative time against now (its calendar day);
// weeks start on Monday.
func relative(phrase string, now time.Time) (span, bool) {
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	monday := day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	days := func(a, b time.Time) (span, bool) {
		return span{a, b, a.Format("2006-01-02"), b.Format("2006-01-02")}, true
	}
	switch phrase {
	case "today":
		return days(day, day)
	case "yesterday":
		y := day.AddDate(0, 0, -1)
		return days(y, y)
	case "this week":
		return days(monday, monday.AddDate(0, 0, 6))
	case "last week", "past week":
		return days(monday.AddDate(0, 0, -7), monday.AddDate(0, 0, -1))
	case "this month":
		return monthSpan(day.Year(), day.Month())
	case "last month", "past month":
		p := day.AddDate(0, 0, -day.Day()) // the last day of the month before
		return monthSpan(p.Year(), p.Month())
	case "this year":
		return yearSpan(day.Year())
	case "last year", "past year":
		return yearSpan(day.Year() - 1)
	}
	return span{}, false
}

// validDate says whether s is a real date written YYYY, YYYY-MM or
// YYYY-MM-DD.
func validDate(s string) bool {
	layout := map[int]string{4: "2006", 7: "2006-01", 10: "2006-01-02"}[len(s)]
	if layout == "" {
		return false
	}
	_, err := time.Parse(layout, s)
	return err == nil
}
