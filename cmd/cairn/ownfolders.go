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

// ownFolders are the folders Cairn writes for this invocation: the agents'
// folder of the data folder (every agent's index, memories and session
// copies), its cache folder and the models folder. Not the data folder
// itself: with CAIRN_HOME it also holds config.toml, and people keep
// their notes beside it ($CAIRN_HOME/notes; ux U24, a regression of the
// first fix, which left such notes unindexed).
func (e *env) ownFolders() []ownFolder {
	home, _ := os.UserHomeDir()
	_, dataDir := e.paths()
	data := filepath.Clean(dataDir)
	return []ownFolder{
		{filepath.Join(data, "agents"), "data folder"},
		{filepath.Join(data, "cache"), "cache folder"},
		{filepath.Clean(config.ModelsDir(os.Getenv, home)), "models folder"},
	}
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
			if rootsIn(c, dir) {
				continue // the scan fails the root (ingest.ReasonRootExcluded): sync and doctor say so
			}
			notes = append(notes, fmt.Sprintf("corpus %s: Cairn's %s %s lies under its root and is not scanned", c.Name, what, visible(dir)))
		}
	}
	return notes
}

// rootsIn reports whether every root of c lies in dir (no folder of it to
// leave out: the corpus reads nothing).
func rootsIn(c cairn.Corpus, dir string) bool {
	srcs, err := ingest.Resolve(c)
	if err != nil || len(srcs) == 0 {
		return false
	}
	for _, s := range srcs {
		if rel, err := filepath.Rel(dir, s.Root); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return false
		}
	}
	return true
}

// ownRootProblem says that a files corpus's root lies in one of Cairn's own
// folders, whose files a scan never reads, or "".
func (e *env) ownRootProblem(root string) string {
	for _, f := range e.ownFolders() {
		if rel, err := filepath.Rel(f.path, filepath.Clean(root)); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Sprintf("lies in Cairn's %s %s, which is never scanned: nothing is read", f.what, visible(f.path))
		}
	}
	return ""
}
