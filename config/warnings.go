package config

import (
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn/ingest"
)

// overlapWarnings says where two files corpora cover the same files: such
// a file is indexed once per corpus and a search returns it twice
// (ingest.Overlap). Loading goes on; the CLI prints each warning on
// stderr. One warning per pair of corpora.
func overlapWarnings(c *Config) []string {
	var out []string
	for i := range c.Corpora {
		for j := i + 1; j < len(c.Corpora); j++ {
			a, b := c.Corpora[i], c.Corpora[j]
			dir, ok := ingest.Overlap(a.toCairn(), b.toCairn())
			if !ok {
				continue
			}
			out = append(out, fmt.Sprintf("config %s: corpora %q (line %d) and %q (line %d) both cover %s: its files are indexed and returned twice; "+
				"give one an exclude, or narrow its paths or glob", c.Path, a.Name, a.Line, b.Name, b.Line, dir))
		}
	}
	return out
}

// whispererWarnings says when the memory whisperer is on but lacks a model
// it needs: the judge ([llm.judge], else [llm.fast]) decides what is
// useful, and the query model ([memoryWhisperer.queryModel], else
// [llm.fast]) writes the searches; without either it whispers nothing.
func whispererWarnings(c *Config) []string {
	w := c.MemoryWhisperer
	if !w.Enabled {
		return nil
	}
	var missing []string
	if c.Judge.Disabled {
		missing = append(missing, "the judge is disabled ([llm.judge] enabled = false)")
	} else if !c.Judge.Configured() {
		missing = append(missing, "no judge model ([llm.judge] with base_url and model, or [llm.fast])")
	}
	if _, fast := c.LLM["fast"]; w.QueryModel == nil && !fast {
		missing = append(missing, "no query model ([memoryWhisperer.queryModel], or [llm.fast])")
	}
	if len(missing) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("config %s: [memoryWhisperer] is enabled but %s: it whispers nothing until one is configured", c.Path, strings.Join(missing, " and "))}
}
