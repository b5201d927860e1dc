package skills

import "strings"

// parseFrontmatter reads the first "---" block at the top of text (a byte
// order mark and blank lines before it allowed) as "key: value" lines.
// Quotes around a value are stripped; a value of ">" or "|" (with an
// optional "-" or "+") takes the indented lines after it, joined by spaces
// for ">" and newlines for "|". A block that never closes is none.
func parseFrontmatter(text string) map[string]string {
	text = strings.TrimPrefix(text, "\ufeff")
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i >= len(lines) || strings.TrimRight(lines[i], " \t") != "---" {
		return nil
	}
	end := -1
	for j := i + 1; j < len(lines); j++ {
		if t := strings.TrimRight(lines[j], " \t"); t == "---" || t == "..." {
			end = j
			break
		}
	}
	if end < 0 {
		return nil
	}
	return parseBlock(lines[i+1 : end])
}

func parseBlock(lines []string) map[string]string {
	out := make(map[string]string)
	for k := 0; k < len(lines); k++ {
		line := lines[k]
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue // a nested or continued value, or a comment
		}
		key, val, ok := strings.Cut(line, ":")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			continue
		}
		if _, dup := out[key]; dup {
			continue // the first wins
		}
		val = strings.TrimSpace(val)
		if block := strings.TrimRight(val, "-+"); block == ">" || block == "|" {
			var parts []string
			for k+1 < len(lines) && (lines[k+1] == "" || lines[k+1][0] == ' ' || lines[k+1][0] == '\t') {
				k++
				if t := strings.TrimSpace(lines[k]); t != "" || block == "|" {
					parts = append(parts, t)
				}
			}
			sep := " "
			if block == "|" {
				sep = "\n"
			}
			out[key] = strings.TrimSpace(strings.Join(parts, sep))
			continue
		}
		out[key] = unquote(val)
	}
	return out
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}
