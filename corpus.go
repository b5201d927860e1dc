package cairn

import (
	"slices"
	"strings"
)

// Corpus kinds.
const (
	KindFiles    = "files"
	KindSessions = "sessions"
	KindSkills   = "skills"
)

// Reserved corpus names that a configuration may not use.
var ReservedCorpusNames = []string{"all", "extracted", "memories"}

// Default limits shared by the CLI, the library and the servers.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 100
	DefaultGetLines    = 120
	MaxGetLines        = 1000
	MaxGetChars        = 12000
	DefaultMaxFileSize = 10 << 20 // 10 MB
	DefaultGlob        = "**/*.md"
)

// Corpus is a named set of documents. For KindFiles, Paths are directories,
// files or glob patterns (absolute; the caller resolves relative ones), Glob
// selects files under a directory path and Exclude lists glob patterns,
// relative to each root, of files to leave out. Secrets in a files corpus
// are replaced with placeholders before anything is stored, searched or
// embedded; NoRedact (the config's redact = false) stores them as written.
//
// For KindSessions, Sources name the transcript sources and their roots,
// ChatTypes the chat types kept for sources that record one (default
// channel and group), MaxExpandedTokens the budget of a hit's turn
// expansion, and DropRemoved deletes the sessions of a transcript that vanished
// (by default they are kept: Cairn keeps its own copy).
type Corpus struct {
	Name     string
	Kind     string
	Paths    []string
	Glob     string
	Exclude  []string
	NoRedact bool
	// NoDefaultExcludes walks into the dependency and tool folders a files
	// corpus skips by default (node_modules, .venv, ...: ingest.DefaultExcludes);
	// the config's defaultExcludes = false.
	NoDefaultExcludes bool

	Sources             []SourceSpec
	ChatTypes           []string
	MaxExpandedTokens   int
	SyncIntervalMinutes int
	DropRemoved         bool
}

// Defaults of a sessions corpus.
const (
	DefaultMaxExpandedTokens   = 500
	DefaultSyncIntervalMinutes = 60
)

// DefaultChatTypes are the chat types a sessions corpus keeps by default;
// direct messages only when listed.
var DefaultChatTypes = []string{"channel", "group"}

// SelectCorpora returns the corpora a selection names, in configuration
// order. nil, empty or ["all"] select every configured corpus;
// names match ignoring case and repeats count once. "all" mixed with names,
// an unknown name (skills included) or a configuration without corpora is an
// ErrInvalid error that lists the known names or says how to add one.
func SelectCorpora(configured []Corpus, names []string) ([]Corpus, error) {
	var all []Corpus
	var known []string
	for _, c := range configured {
		if c.Kind != KindSkills {
			all = append(all, c)
			known = append(known, c.Name)
		}
	}
	if len(all) == 0 {
		return nil, Invalidf("no corpus configured (add one with: cairn corpus add NAME PATH)")
	}
	if len(names) == 0 || len(names) == 1 && names[0] == "all" {
		return all, nil
	}
	want := make(map[int]bool)
	for _, n := range names {
		if n == "all" {
			return nil, Invalidf("unknown corpus: all (\"all\" cannot be combined with corpus names; known: %s)", strings.Join(known, ", "))
		}
		i := slices.IndexFunc(all, func(c Corpus) bool { return strings.EqualFold(c.Name, n) })
		if i < 0 {
			return nil, Invalidf("unknown corpus: %s (known: %s)", n, strings.Join(known, ", "))
		}
		want[i] = true
	}
	var out []Corpus
	for i, c := range all {
		if want[i] {
			out = append(out, c)
		}
	}
	return out, nil
}
