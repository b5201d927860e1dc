package config

import (
	"fmt"
	"maps"
	"os"
	"slices"
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

// keyFileWarnings says when a file that holds a model's API key can be
// read by other users (group or others may read it), as serve says of its
// token file: anyone on the machine could spend the key (ux U19). One
// warning a file, naming the tables that use it; a missing or unreadable
// file is left to the model's first call.
func keyFileWarnings(c *Config) []string {
	tables := map[string][]string{}
	add := func(file, table string) {
		if file != "" && !slices.Contains(tables[file], table) {
			tables[file] = append(tables[file], table)
		}
	}
	for _, purpose := range slices.Sorted(maps.Keys(c.LLM)) {
		add(c.LLM[purpose].APIKeyFile, "[llm."+purpose+"]")
	}
	if c.Judge.From == "llm.judge" {
		add(c.Judge.APIKeyFile, "[llm.judge]")
	}
	if q := c.MemoryWhisperer.QueryModel; q != nil {
		add(q.APIKeyFile, "[memoryWhisperer.queryModel]")
	}
	var out []string
	for _, file := range slices.Sorted(maps.Keys(tables)) {
		fi, err := os.Stat(file)
		if err != nil || fi.Mode().Perm()&0o044 == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("config %s: %s api_key_file %s can be read by other users (mode %04o): chmod 600 %s",
			c.Path, strings.Join(tables[file], ", "), file, fi.Mode().Perm(), file))
	}
	return out
}
