package config

import (
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// tableLines maps the dotted names of the tables that want picks, and of
// their keys ("llm.fast", "llm.fast.model"), to the line where each is
// written, for error messages. (The scan in parse.go admits only header
// tables for these, so a key's table is the last header above it.)
func tableLines(data []byte, want func(table []string) bool) map[string]int {
	out := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		expr := p.Expression()
		switch expr.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(expr)
			if want(table) {
				out[strings.Join(table, ".")] = keyLine(&p, expr)
			}
		case unstable.KeyValue:
			if len(table) > 0 && want(table) {
				out[strings.Join(append(append([]string(nil), table...), keyParts(expr)...), ".")] = keyLine(&p, expr)
			}
		}
	}
	return out
}

// lineOf is the line of key in table, else of the table, else 1.
func lineOf(lines map[string]int, table, key string) int {
	if l, ok := lines[table+"."+key]; ok && key != "" {
		return l
	}
	return max(lines[table], 1)
}
