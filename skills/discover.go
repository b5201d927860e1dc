package skills

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
	"github.com/cairnmemory/cairn/redact"
)

// FileName is a skill's file name; matched in any case.
const FileName = "SKILL.md"

// Pattern is the pattern a configured directory is searched with.
const Pattern = "**/" + FileName

// Limits of discovery.
const (
	// MaxFrontmatterBytes is how much of a SKILL.md is read: frontmatter
	// that does not close within it is none (the name defaults, the
	// description is empty).
	MaxFrontmatterBytes = 64 << 10
	// MaxDirs bounds the directories one discovery enters, so a path such
	// as "/" ends.
	MaxDirs = 100000
)

// Skill is one discovered SKILL.md.
type Skill struct {
	Name        string
	Description string
	// Path is the absolute path of the file as found under its configured
	// path (symlinks kept), the path the whisperer names.
	Path string
	// Real is Path with symlinks resolved, to recognize a read of it by
	// another name.
	Real string
	// Source is the index of the configured path it came from.
	Source int
}

// Report says what a discovery left out.
type Report struct {
	Duplicates []Skill             // a name already taken by an earlier skill
	Failures   []cairn.FileFailure // unreadable folders and files; the rest goes on
	Truncated  bool                // MaxDirs reached
}

// Discover finds the skills under paths (absolute, as config resolves
// them), in path order. A malformed path (relative, a bad glob) is an
// error matching cairn.ErrInvalid; a missing one finds nothing.
func Discover(ctx context.Context, paths []string) ([]Skill, Report, error) {
	var rep Report
	if len(paths) == 0 {
		return nil, rep, nil
	}
	srcs, err := ingest.Resolve(cairn.Corpus{Name: cairn.KindSkills, Kind: cairn.KindFiles, Paths: paths, Glob: Pattern})
	if err != nil {
		return nil, rep, err
	}
	d := &discoverer{ctx: ctx, rep: &rep}
	var out []Skill
	taken := make(map[string]bool) // lower-cased names
	files := make(map[string]bool) // real paths taken
	for i, src := range srcs {
		d.visited = make(map[string]bool) // a folder one source's pattern skips, another's may take
		found, err := d.source(src)
		if err != nil {
			return nil, rep, err
		}
		sort.Slice(found, func(a, b int) bool { return found[a].Path < found[b].Path })
		for _, s := range found {
			s.Source = i
			if files[s.Real] {
				continue // the same file through two paths
			}
			files[s.Real] = true
			if key := strings.ToLower(s.Name); taken[key] {
				rep.Duplicates = append(rep.Duplicates, s)
			} else {
				taken[key] = true
				out = append(out, s)
			}
		}
	}
	return out, rep, nil
}

type discoverer struct {
	ctx     context.Context
	visited map[string]bool // real directories the current source entered
	dirs    int
	rep     *Report
}

// source walks one resolved source.
func (d *discoverer) source(src ingest.Source) ([]Skill, error) {
	g, err := ingest.CompileGlob(src.Pattern)
	if err != nil {
		return nil, err
	}
	w := &sourceWalk{d: d, glob: g}
	if _, err := os.Stat(src.Root); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err := w.dir(src.Root, "", false); err != nil {
		return nil, err
	}
	return w.found, nil
}

type sourceWalk struct {
	d     *discoverer
	glob  *ingest.Glob
	found []Skill
}

// dir reads one directory. under: an ancestor (or the directory itself)
// matched the pattern, so every SKILL.md beneath is taken.
func (w *sourceWalk) dir(dir, rel string, under bool) error {
	if err := w.d.ctx.Err(); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		w.d.fail(dir, "unreadable directory: "+err.Error())
		return nil
	}
	if w.d.visited[real] {
		return nil
	}
	if w.d.dirs >= MaxDirs {
		w.d.rep.Truncated = true
		return nil
	}
	w.d.visited[real] = true
	w.d.dirs++
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.d.fail(dir, "unreadable directory: "+errText(err))
	}
	for _, e := range entries {
		name := e.Name()
		child, childRel := filepath.Join(dir, name), joinRel(rel, name)
		info, err := os.Stat(child) // follows a symlink
		if err != nil {
			if e.Type()&fs.ModeSymlink != 0 {
				w.d.fail(child, "broken symlink")
			}
			continue
		}
		switch {
		case info.IsDir():
			if name == ".git" || name == "node_modules" {
				continue
			}
			deeper := under || w.glob.Match(childRel)
			if deeper || w.glob.CanDescend(childRel) {
				if err := w.dir(child, childRel, deeper); err != nil {
					return err
				}
			}
		case info.Mode().IsRegular() && strings.EqualFold(name, FileName):
			canon := joinRel(rel, FileName)
			if under || w.glob.Match(childRel) || w.glob.Match(canon) {
				w.file(child)
			}
		}
	}
	return nil
}

// file reads one SKILL.md.
func (w *sourceWalk) file(path string) {
	head, err := readHead(path)
	if err != nil {
		w.d.fail(path, "unreadable: "+errText(err))
		return
	}
	fm := parseFrontmatter(head)
	name := strings.TrimSpace(fm["name"])
	if name == "" {
		name = filepath.Base(filepath.Dir(path))
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	// The description is redacted here, once, so that nothing downstream
	// (skills list, the index's embedded text, a remote embedder, the
	// whisperer's judge prompt) sees a secret written into it. The name is
	// the skill's key and is kept as written.
	desc, _ := redact.Redact(strings.TrimSpace(fm["description"]))
	w.found = append(w.found, Skill{Name: name, Description: desc, Path: path, Real: real})
}

func readHead(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, MaxFrontmatterBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", err
	}
	return string(buf[:n]), nil
}

func (d *discoverer) fail(path, reason string) {
	d.rep.Failures = append(d.rep.Failures, cairn.FileFailure{Path: path, Reason: reason})
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
