package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/ingest"
)

// ownFolder is one of Cairn's own folders and what it holds.
type ownFolder struct{ path, what string }

// ownFolders are the folders Cairn writes for this invocation: the data
// folder (every agent's index, memories and session copies) and the
// models folder, when it is not inside the data folder (with CAIRN_HOME
// both are under it).
func (e *env) ownFolders() []ownFolder {
	home, _ := os.UserHomeDir()
	_, dataDir := e.paths()
	data := filepath.Clean(dataDir)
	own := []ownFolder{{data, "data folder"}}
	models := filepath.Clean(config.ModelsDir(os.Getenv, home))
	if rel, err := filepath.Rel(data, models); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		own = append(own, ownFolder{models, "models folder"})
	}
	return own
}

// corpora is cfg.ToCorpora with Cairn's own folders excluded from every
// files corpus by absolute path (ingest.ExcludedFolders): a corpus of the
// home folder must not index the session and memory copies Cairn keeps
// under it, which the sessions and memories corpora already search (each
// hit showed twice; ux F21). The folders are added whether or not a root
// holds them, so opening costs no stat; a scan prunes the ones under its
// roots, and sync names those (ownFoldersNote).
func (e *env) corpora(cfg *config.Config) []cairn.Corpus {
	out := cfg.ToCorpora()
	own := e.ownFolders()
	for i := range out {
		if out[i].Kind != cairn.KindFiles {
			continue
		}
		for _, f := range own {
			out[i].Exclude = append(out[i].Exclude, f.path)
		}
	}
	return out
}

// ownFoldersNotes says, for each files corpus of corpora whose roots hold
// one of Cairn's own folders, that the folder is not scanned: one line a
// folder, for sync's output and doctor's corpora line.
func (e *env) ownFoldersNotes(corpora []cairn.Corpus) []string {
	own := e.ownFolders()
	var notes []string
	for _, c := range corpora {
		within, err := ingest.FoldersWithin(c)
		if err != nil {
			continue // sync and doctor report a malformed corpus themselves
		}
		for _, dir := range within {
			what := "folder"
			for _, f := range own {
				if f.path == dir {
					what = f.what
				}
			}
			notes = append(notes, fmt.Sprintf("corpus %s: Cairn's %s %s lies under its root and is not scanned", c.Name, what, visible(dir)))
		}
	}
	return notes
}
