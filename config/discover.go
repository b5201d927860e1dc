package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
)

// Discovery of the agents installed on this machine, behind `cairn init`.
// It looks only at the transcript homes the sessions corpus already knows
// (DefaultRoots: the tools' environment variables, else their folders in
// the home directory) and, inside a Claude Code home, at CLAUDE.md and
// projects/*/memory/*.md. It stats and lists folders there, by name; it
// never opens a transcript or reads a file's contents, and looks nowhere
// else.

// MemoryCorpus names the notes corpus offered for Claude Code's memory
// files.
const MemoryCorpus = "claude-memory"

// MemoryGlob selects Claude Code's per-project memory files under a
// projects folder: projects/<project>/memory/<name>.md.
const MemoryGlob = "*/memory/*.md"

// FoundSource is a transcript source whose home exists on this machine.
type FoundSource struct {
	ID          string   `json:"id"`
	Roots       []string `json:"roots"`               // the homes that exist, absolute
	Transcripts int      `json:"transcripts"`         // transcript files listed under them
	ListError   string   `json:"listError,omitempty"` // why a home could not be listed (it is still offered)
}

// Discovery is what Discover found: the sources, and Claude Code's memory
// files with the corpus paths that cover them (a home's CLAUDE.md, and
// its projects folder read with MemoryGlob).
type Discovery struct {
	Sources     []FoundSource `json:"sources"`
	MemoryFiles []string      `json:"memoryFiles"`
	MemoryPaths []string      `json:"memoryPaths"`
}

// Empty reports whether nothing was found.
func (d Discovery) Empty() bool { return len(d.Sources) == 0 && len(d.MemoryPaths) == 0 }

// Discover looks for the homes of the sources that have a standard place
// (claude-code, codex, openclaw, gemini) as loading a sessions corpus
// would resolve them with getenv and home, and keeps those that are
// folders. Two roots that are the same folder (a symlink) count once. A
// home that cannot be listed is still found, with ListError set.
func Discover(getenv func(string) string, home string) Discovery {
	d := Discovery{Sources: []FoundSource{}, MemoryFiles: []string{}, MemoryPaths: []string{}}
	seen := map[string]bool{} // real paths of the roots kept so far
	for _, id := range cairn.Sources {
		f := FoundSource{ID: id}
		for _, root := range DefaultRoots(id, getenv, home) {
			root, err := filepath.Abs(root)
			if err != nil || !isDir(root) {
				continue
			}
			real, err := filepath.EvalSymlinks(root)
			if err != nil {
				real = root
			}
			if seen[real] {
				continue
			}
			seen[real] = true
			f.Roots = append(f.Roots, root)
			n, err := countTranscripts(id, root)
			f.Transcripts += n
			if err != nil && f.ListError == "" {
				f.ListError = err.Error()
			}
		}
		if len(f.Roots) == 0 {
			continue
		}
		d.Sources = append(d.Sources, f)
		if id == cairn.SourceClaudeCode {
			for _, root := range f.Roots {
				d.addMemory(root)
			}
		}
	}
	return d
}

// countTranscripts lists, by name, the files a sync would read under root.
func countTranscripts(id, root string) (int, error) {
	if id == cairn.SourceCursor { // one SQLite store, read by another package
		files, err := ingest.FindCursor(root)
		return len(files), err
	}
	r, ok := ingest.Reader(id)
	if !ok {
		return 0, nil
	}
	files, err := r.Find(root)
	if err != nil {
		return len(files), fmt.Errorf("list %s transcripts in %s: %w", id, root, err)
	}
	n := len(files)
	if id == cairn.SourceOpenClaw { // the SQLite-era stores, read by another package
		dbs, _ := ingest.OpenClawDBPaths(root)
		n += len(dbs)
	}
	return n, nil
}

// addMemory adds a Claude Code home's memory files: root/CLAUDE.md, and
// root/projects/*/memory/*.md (then root/projects is the corpus path).
func (d *Discovery) addMemory(root string) {
	if p := filepath.Join(root, "CLAUDE.md"); isFile(p) {
		d.MemoryFiles = append(d.MemoryFiles, p)
		d.MemoryPaths = append(d.MemoryPaths, p)
	}
	projects := filepath.Join(root, "projects")
	dirs, _ := os.ReadDir(projects)
	found := false
	for _, dir := range dirs {
		mem := filepath.Join(projects, dir.Name(), "memory")
		entries, _ := os.ReadDir(mem)
		for _, e := range entries {
			p := filepath.Join(mem, e.Name())
			if strings.HasSuffix(e.Name(), ".md") && isFile(p) {
				d.MemoryFiles = append(d.MemoryFiles, p)
				found = true
			}
		}
	}
	if found {
		d.MemoryPaths = append(d.MemoryPaths, projects)
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Offer returns the part of d that the config at path lacks: the sources
// its sessions corpus does not list yet, and the memory paths unless a
// corpus named MemoryCorpus exists. A missing file lacks everything. Only
// source ids are compared: a source configured with other roots is left
// as it is.
func (d Discovery) Offer(path string) (Discovery, error) {
	abs, err := configFile(path)
	if err != nil {
		return Discovery{}, fmt.Errorf("read config %s: %w", path, err)
	}
	_, cfg, err := readForEdit(abs)
	if err != nil {
		return Discovery{}, err
	}
	o := Discovery{Sources: []FoundSource{}, MemoryFiles: []string{}, MemoryPaths: []string{}}
	var have []string
	memory := false
	for _, k := range cfg.Corpora {
		for _, s := range k.Sources {
			have = append(have, s.ID)
		}
		memory = memory || strings.EqualFold(k.Name, MemoryCorpus)
	}
	for _, s := range d.Sources {
		if !slices.Contains(have, s.ID) {
			o.Sources = append(o.Sources, s)
		}
	}
	if !memory {
		o.MemoryFiles, o.MemoryPaths = d.MemoryFiles, d.MemoryPaths
	}
	return o, nil
}

// AddDiscovered writes an offer (from Offer) into the config at path: its
// sources join the sessions corpus (written when there is none) with the
// roots that were found, spelled out so that a sync started without the
// user's environment (an MCP client) reads the same folders; its memory
// paths become the files corpus MemoryCorpus. Each edit keeps the file's
// text and checks that the result loads. It returns the corpora it wrote
// to.
func AddDiscovered(path string, o Discovery, home string) ([]string, error) {
	var changed []string
	if len(o.Sources) > 0 {
		var ids []string
		roots := map[string][]string{}
		for _, s := range o.Sources {
			ids = append(ids, s.ID)
			roots[s.ID] = s.Roots
		}
		if err := AddSessions(path, ids, roots, home); err != nil {
			return changed, err
		}
		changed = append(changed, cairn.KindSessions)
	}
	if len(o.MemoryPaths) > 0 {
		c := FilesCorpus{Name: MemoryCorpus, Paths: o.MemoryPaths, Home: home}
		if slices.ContainsFunc(o.MemoryPaths, isDir) {
			c.Glob = MemoryGlob
		}
		if err := AddFiles(path, c); err != nil {
			return changed, err
		}
		changed = append(changed, MemoryCorpus)
	}
	return changed, nil
}
