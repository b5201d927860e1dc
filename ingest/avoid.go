package ingest

import (
	"path/filepath"

	"github.com/cairnmemory/cairn"
)

// ReasonRootExcluded is the failure of a source whose root lies in a
// folder the corpus excludes by absolute path: nothing of it is read.
const ReasonRootExcluded = "corpus root lies in a folder Cairn keeps its own data in; nothing is read"

// ReasonSymlinkAvoided is the failure of a symlinked file whose target lies
// in a folder the corpus excludes by absolute path (Cairn's own data
// folder, see ExcludedFolders). Like a link that leads outside the root, it
// drops what was indexed from the path (DropsDocument).
const ReasonSymlinkAvoided = "symlink points into an excluded folder"

// ExcludedFolders returns the entries of c.Exclude that are absolute
// paths. Such an entry is not a glob: it names a folder that the scan
// never walks into, whichever of the corpus's roots holds it, and whose
// files a symlink cannot bring in (ReasonSymlinkAvoided). The command line
// adds Cairn's data and models folders this way, so a corpus of the home
// folder does not index Cairn's own session and memory copies (each hit
// would show twice). A corpus root inside such a folder yields no files and
// one failure, ReasonRootExcluded.
func ExcludedFolders(c cairn.Corpus) []string {
	var out []string
	for _, e := range c.Exclude {
		if filepath.IsAbs(e) {
			out = append(out, filepath.Clean(e))
		}
	}
	return out
}

// FoldersWithin returns the folders of ExcludedFolders(c) that lie within
// one of c's source roots (or are one), each once: the folders a scan of c
// leaves out. It stats the roots and the folders (symlinks resolved) and
// reads nothing else.
func FoldersWithin(c cairn.Corpus) ([]string, error) {
	folders := ExcludedFolders(c)
	if len(folders) == 0 || c.Kind != cairn.KindFiles {
		return nil, nil
	}
	srcs, err := Resolve(c)
	if err != nil {
		return nil, err
	}
	real := resolveFolders(folders)
	var out []string
	for i, f := range real {
		for _, src := range srcs {
			root, err := filepath.EvalSymlinks(src.Root)
			if err != nil {
				continue
			}
			if within(root, f) || within(f, root) {
				out = append(out, folders[i])
				break
			}
		}
	}
	return out, nil
}

// splitExcludes parts exclude entries into glob patterns, matched against
// paths relative to each source root, and absolute folders (cleaned).
func splitExcludes(patterns []string) (globs []string, folders []string) {
	for _, p := range patterns {
		if filepath.IsAbs(p) {
			folders = append(folders, filepath.Clean(p))
		} else {
			globs = append(globs, p)
		}
	}
	return globs, folders
}

// resolveFolders resolves the symlinks of each folder; one that does not
// exist (yet) is kept as given.
func resolveFolders(folders []string) []string {
	out := make([]string, len(folders))
	for i, f := range folders {
		r, err := filepath.EvalSymlinks(f)
		if err != nil {
			r = f
		}
		out[i] = r
	}
	return out
}

// avoidedIn returns the paths, relative to a source root whose resolved
// path is rootReal, of the resolved folders that lie below it; whole is
// true when the root itself is (or lies inside) one of them.
func avoidedIn(rootReal string, folders []string) (rels map[string]bool, whole bool) {
	for _, f := range folders {
		if within(f, rootReal) {
			return nil, true
		}
		if !within(rootReal, f) {
			continue
		}
		rel, err := filepath.Rel(rootReal, f)
		if err != nil {
			continue
		}
		if rels == nil {
			rels = make(map[string]bool)
		}
		rels[filepath.ToSlash(rel)] = true
	}
	return rels, false
}

// inFolders reports whether the resolved path lies within one of the
// resolved folders.
func inFolders(path string, folders []string) bool {
	for _, f := range folders {
		if within(f, path) {
			return true
		}
	}
	return false
}
