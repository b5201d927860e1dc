package redact

import "strings"

// Markdown tables (ux F13): people keep credentials in a note as a table,
// "| service | user | password |" then a row a service, or as key and
// value cells, "| password | hunter2 |". A cell is judged as the value of
// an assignment to the name of the cell before it in its row, or to its
// column's header: a bare value after a colon or a flag (classify, weak),
// so words and stand-ins in the cells of a documentation table stay.

// findTableSecrets finds the values in the Markdown table rows of s.
func findTableSecrets(s string, hits []hit) []hit {
	var header []string // names of the current table's columns
	prevRow := false    // the line before was a table row
	for i := 0; i < len(s); {
		end := strings.IndexByte(s[i:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += i
		}
		ls := i
		i = end + 1
		line := strings.TrimRight(s[ls:end], "\r")
		t := strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(t, "|") {
			header, prevRow = nil, false
			continue
		}
		cells := tableCells(s, ls+len(line)-len(t), ls+len(line))
		if isSeparatorRow(s, cells) {
			prevRow = true
			continue // the header was the row before
		}
		if !prevRow {
			header = header[:0]
			for _, c := range cells {
				header = append(header, cellText(s, c))
			}
			// the first row is the header when a separator follows; its cells
			// are judged like any row's below, so "| password | hunter2 |"
			// alone counts too
		}
		prevRow = true
		for j, c := range cells {
			v := cellText(s, c)
			if v == "" || strings.ContainsAny(v, " \t|") || plainWord(v) {
				continue // a word ("Overview", "yes") is the table's prose
			}
			var kind string
			if j > 0 {
				kind = tableKind(cellName(cellText(s, cells[j-1])), v)
			}
			if kind == "" && j < len(header) && header[j] != v {
				kind = tableKind(cellName(header[j]), v)
			}
			if kind != "" {
				a, b := valueSpan(s, c)
				hits = append(hits, hit{a, b, kind})
			}
		}
	}
	return hits
}

// tableCells returns the spans of the cells of the row s[a:b] (which
// starts with '|'); an escaped \| does not end a cell.
func tableCells(s string, a, b int) [][2]int {
	var cells [][2]int
	start := a + 1
	for k := a + 1; k < b; k++ {
		switch s[k] {
		case '\\':
			k++
		case '|':
			cells = append(cells, [2]int{start, k})
			start = k + 1
		}
	}
	if strings.TrimSpace(s[start:b]) != "" {
		cells = append(cells, [2]int{start, b})
	}
	return cells
}

// isSeparatorRow reports the |---|:--:| row under a header.
func isSeparatorRow(s string, cells [][2]int) bool {
	if len(cells) == 0 {
		return false
	}
	for _, c := range cells {
		t := strings.TrimSpace(s[c[0]:c[1]])
		if t == "" || strings.Trim(t, "-:") != "" || !strings.Contains(t, "-") {
			return false
		}
	}
	return true
}

// cellText is a cell's text without blanks and the marks around a code
// span or bold text.
func cellText(s string, c [2]int) string {
	return strings.Trim(strings.TrimSpace(s[c[0]:c[1]]), "`*_")
}

// valueSpan is the span of a cell's value in s: cellText's, as offsets.
func valueSpan(s string, c [2]int) (int, int) {
	a, b := c[0], c[1]
	for a < b && strings.IndexByte(" \t`*_", s[a]) >= 0 {
		a++
	}
	for b > a && strings.IndexByte(" \t`*_", s[b-1]) >= 0 {
		b--
	}
	return a, b
}

// cellName turns a name cell ("API key", "Password:") into a key name.
func cellName(t string) string {
	t = strings.TrimSuffix(strings.TrimSpace(t), ":")
	return strings.Join(strings.Fields(t), "_")
}

// tableKind classifies a cell's value v under the name of a cell or a
// header. A password must look like one in prose (proseSecret: six or
// more characters, not words and numbers alone); a column named "pass" or
// "pw" numbers passes, not passwords.
func tableKind(name, v string) string {
	switch strings.ToLower(name) {
	case "pass", "pw", "pwd":
		return ""
	}
	k := classify(name, v, true)
	if k == kindPassword && !proseSecret(v) {
		return ""
	}
	return k
}
