package ingest

import (
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
)

// DefaultExcludes are the folders a files corpus does not walk into unless
// it asks for them: version-control metadata and the dependency and
// tool folders that package managers fill with other people's Markdown
// (one node_modules brought 106 dependency READMEs into an index, and they
// took the top hits of unrelated queries). The list is kept short and to
// names that hold no notes of their own; "vendor", "dist" and "build" are
// left out on purpose, since people also keep their own documents under
// those names.
//
// A corpus asks for a folder by naming it in its glob or in a path's glob
// ("node_modules/**/*.md", "**/.venv/**"), or for all of them with
// NoDefaultExcludes (the config's defaultExcludes = false). ".git" is
// never walked into, whatever the corpus says.
//
// ".loggie" is a Loggie home: its meeting transcripts are read by the
// sessions source (loggie.go) and its raw/ folder holds the recorder's
// archives, neither of them notes.
var DefaultExcludes = []string{".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".loggie"}

// skippedDirs returns the folder names the walk of a source skips: the
// default excludes its corpus did not ask for.
func skippedDirs(c cairn.Corpus, pattern string) map[string]bool {
	skip := map[string]bool{".git": true}
	if c.NoDefaultExcludes {
		return skip
	}
	segs := strings.Split(pattern, "/")
	for _, name := range DefaultExcludes {
		if !slices.Contains(segs, name) {
			skip[name] = true
		}
	}
	return skip
}
