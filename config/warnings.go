package config

import (
	"fmt"

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
