package consolidate

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Passes: the main pass asks for episodes, items (and observations, unless
// they are read apart); the observations pass reads small windows for
// dated observations only.
const (
	PassMain         = "main"
	PassObservations = "observations"
)

// window is one ask of the model, or one long record read in parts (then
// committed together).
type window struct {
	pass    string
	records []*Record // the records read; one when parts is set
	nums    []int     // their numbers in the thread, 1-based
	parts   []string  // the parts of a long record, in order
	context string    // observations pass: the text just before the window
	// replaces names earlier windows whose records are all gone from the
	// thread: committing this window removes their memories. A window with
	// no records only does that.
	replaces []int64
}

// recordBlock renders one record as the model sees it.
func recordBlock(num int, r *Record, part, parts int) string {
	var b strings.Builder
	b.WriteString("=== Record ")
	b.WriteString(itoa(num))
	if !r.Time.IsZero() {
		b.WriteString(" · ")
		b.WriteString(r.Time.Format("Mon 2006-01-02 15:04"))
	}
	if parts > 1 {
		b.WriteString(" · part ")
		b.WriteString(itoa(part))
		b.WriteString(" of ")
		b.WriteString(itoa(parts))
	}
	b.WriteString(" ===\n")
	return b.String()
}

func chars(s string) int { return utf8.RuneCountInString(s) }

// plan groups the pending records of a pass into windows of whole records
// of at most limit characters as rendered; a longer record sits alone and
// is read in parts of at most partLimit characters. For the observations
// pass each window also carries up to contextChars characters of the text
// just before it.
func plan(th *Thread, done map[string]bool, pass string, limit, partLimit, contextChars int) []window {
	var out []window
	var cur window
	size := 0
	flush := func() {
		if len(cur.records) > 0 {
			out = append(out, cur)
		}
		cur, size = window{pass: pass}, 0
	}
	cur.pass = pass
	for i := range th.Records {
		r := &th.Records[i]
		if done[r.UID] {
			continue
		}
		n := chars(recordBlock(i+1, r, 0, 0)) + chars(r.Text) + 2
		if n > limit {
			flush()
			w := window{pass: pass, records: []*Record{r}, nums: []int{i + 1}, parts: splitParts(r.Text, partLimit)}
			if contextChars > 0 {
				w.context = contextBefore(th, i, contextChars)
			}
			out = append(out, w)
			continue
		}
		if size+n > limit {
			flush()
		}
		if len(cur.records) == 0 && contextChars > 0 {
			cur.context = contextBefore(th, i, contextChars)
		}
		cur.records = append(cur.records, r)
		cur.nums = append(cur.nums, i+1)
		size += n
	}
	flush()
	return out
}

// splitParts cuts text into parts of at most limit characters at line
// ends; a longer line is cut at the limit. Every character is in exactly
// one part, in order.
func splitParts(text string, limit int) []string {
	var parts []string
	var b strings.Builder
	n := 0
	flush := func() {
		if b.Len() > 0 {
			parts = append(parts, b.String())
			b.Reset()
			n = 0
		}
	}
	for rest := text; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		ln := chars(line)
		if n+ln > limit {
			flush()
		}
		for ln > limit { // a line longer than a part
			cut := byteIndex(line, limit)
			parts = append(parts, line[:cut])
			line = line[cut:]
			ln -= limit
		}
		b.WriteString(line)
		n += ln
	}
	flush()
	return parts
}

// byteIndex returns the byte offset of the n-th character of s.
func byteIndex(s string, n int) int {
	i := 0
	for j := range s {
		if i == n {
			return j
		}
		i++
	}
	return len(s)
}

// contextBefore returns up to max characters of the records just before
// record i, whole lines, nearest last.
func contextBefore(th *Thread, i, max int) string {
	var blocks []string
	total := 0
	for j := i - 1; j >= 0 && total < max; j-- {
		r := &th.Records[j]
		blk := recordBlock(j+1, r, 0, 0) + r.Text + "\n\n"
		blocks = append(blocks, blk)
		total += chars(blk)
	}
	var b strings.Builder
	for j := len(blocks) - 1; j >= 0; j-- {
		b.WriteString(blocks[j])
	}
	return tail(strings.TrimRight(b.String(), "\n"), max)
}

// tail returns the last max characters of s, from a line start when one
// is in reach, marked "[…]" when cut.
func tail(s string, max int) string {
	const mark = "[…]\n"
	if chars(s) <= max {
		return s
	}
	s = s[byteIndex(s, chars(s)-(max-chars(mark))):]
	if k := strings.IndexByte(s, '\n'); k >= 0 && k < len(s)-1 {
		s = s[k+1:]
	}
	return mark + s
}

func itoa(n int) string { return strconv.Itoa(n) }
