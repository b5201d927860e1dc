package ingest

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/cairnmemory/cairn"
)

// File is one document found by Scan.
type File struct {
	Source  Source
	Rel     string // exposed path: slash-separated, relative, with Source.Prefix
	InRoot  string // path relative to Source.Root, slash-separated; Read opens it beneath the root
	Abs     string // Source.Root joined with InRoot
	Size    int64
	ModTime int64 // unix nanoseconds
}

// Failure reasons reported by Scan.
const (
	ReasonSymlinkOutside = "symlink points outside the corpus root"
	ReasonBrokenSymlink  = "broken symlink"
	ReasonUnreadableDir  = "unreadable directory" // followed by ": <error>"
)

// DropsDocument reports whether a Scan failure means its path no longer
// names a valid document (a symlink that leads outside the root, a broken
// one, or a path that is now a pipe, socket or device): what was indexed from the path is to be removed, as for a deleted
// file, rather than kept as after a transient failure such as permission
// denied.
func DropsDocument(f cairn.FileFailure) bool {
	return f.Reason == ReasonSymlinkOutside || f.Reason == ReasonBrokenSymlink ||
		strings.HasPrefix(f.Reason, ReasonNotRegular+":")
}

// Scan resolves c (see Resolve) and walks each source root, returning the
// matching regular files sorted by Rel. The walk
//
//   - never enters ".git" directories or symlinked directories, nor the
//     other DefaultExcludes folders unless the corpus asks for them;
//   - matches Pattern and c.Exclude against the path relative to the source
//     root; an exclude pattern that matches a directory's path prunes the
//     whole directory ("drafts", "drafts/**" and "**/drafts/**" all prune
//     "drafts"; an exclude such as "*.md" also prunes a directory named
//     "old.md"), and directories Pattern cannot reach are not read;
//   - accepts a symlinked file only when its resolved target lies inside the
//     root's resolved path, reporting the others as failures (see
//     DropsDocument); Read checks again on the file it opens, since a link
//     can change after the scan;
//   - reports other non-regular files the glob matches (named pipes, sockets,
//     devices, links to them) as failures with ReasonNotRegular, never reading them;
//   - reports a directory it cannot read as a failure and goes on.
//
// A missing root is not an error: it yields no files. When two sources find
// the same file, the earlier source in c.Paths keeps it. err is non-nil only
// for a malformed corpus (cairn.ErrInvalid) or a cancelled ctx.
func Scan(ctx context.Context, c cairn.Corpus) (files []File, failures []cairn.FileFailure, err error) {
	srcs, err := Resolve(c)
	if err != nil {
		return nil, nil, err
	}
	excludes, err := compileExcludes(c.Exclude)
	if err != nil {
		return nil, nil, err
	}
	w := &walker{ctx: ctx, excludes: excludes, corpus: c}
	if len(srcs) > 1 {
		w.seen = make(map[string]bool)
	}
	for _, src := range srcs {
		if err := w.scanSource(src); err != nil {
			return nil, nil, err
		}
	}
	slices.SortFunc(w.files, func(a, b File) int { return strings.Compare(a.Rel, b.Rel) })
	slices.SortFunc(w.failures, func(a, b cairn.FileFailure) int { return cmp.Compare(a.Path, b.Path) })
	return w.files, w.failures, nil
}

type walker struct {
	ctx      context.Context
	excludes []*Glob
	seen     map[string]bool // Abs paths already taken, with several sources

	corpus   cairn.Corpus
	src      Source
	glob     *Glob
	skipDirs map[string]bool // folder names never entered (skippedDirs)
	rootReal string          // Root with symlinks resolved

	files    []File
	failures []cairn.FileFailure
	pending  []pendingFile // regular files of the current source, not yet stat'ed
}

// pendingFile is a regular file found by ReadDir whose stat is deferred, so
// the stats of a source run in parallel (they dominate a rescan).
type pendingFile struct {
	e        os.DirEntry
	dir, rel string
	info     fs.FileInfo
	err      error
}

// statWorkers stat files in parallel; stat is a syscall, so more workers
// than cores still help.
const statWorkers = 8

func (w *walker) scanSource(src Source) error {
	g, err := CompileGlob(src.Pattern)
	if err != nil {
		return err
	}
	w.src, w.glob, w.skipDirs = src, g, skippedDirs(w.corpus, src.Pattern)
	w.rootReal, err = filepath.EvalSymlinks(src.Root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		w.fail(src.Root, ReasonUnreadableDir+": "+errText(err))
		return nil
	}
	if err := w.walkDir(src.Root, ""); err != nil {
		return err
	}
	w.statPending()
	return nil
}

// statGroupFiles bounds the files of one directory that one stat worker
// takes at a time, so a single large folder still spreads over the workers.
const statGroupFiles = 256

// statPending stats the pending files in parallel, a run of one
// directory's files per task (statGroup), then adds them in order.
func (w *walker) statPending() {
	type group struct{ start, end int }
	var groups []group
	for i := 0; i < len(w.pending); {
		j := i + 1
		for j < len(w.pending) && j-i < statGroupFiles && w.pending[j].dir == w.pending[i].dir {
			j++
		}
		groups = append(groups, group{i, j})
		i = j
	}
	var wg sync.WaitGroup
	next := make(chan group, len(groups))
	for _, g := range groups {
		next <- g
	}
	close(next)
	for range min(statWorkers, len(groups)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range next {
				statGroup(w.pending[g.start].dir, w.pending[g.start:g.end])
			}
		}()
	}
	wg.Wait()
	for _, p := range w.pending {
		w.addRegular(p)
	}
	w.pending = w.pending[:0]
}

// walkDir reads one directory and recurses into its subdirectories. rel is
// the directory's path relative to the source root, "" for the root.
func (w *walker) walkDir(dir, rel string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := readDir(dir)
	if err != nil {
		w.fail(w.exposed(rel), ReasonUnreadableDir+": "+errText(err))
	}
	for _, e := range entries {
		name, typ := e.Name(), e.Type()
		childRel := joinRel(rel, name)
		switch {
		case typ.IsDir():
			if w.skipDirs[name] || w.excluded(childRel) || !w.glob.CanDescend(childRel) {
				continue
			}
			if err := w.walkDir(joinPath(dir, name), childRel); err != nil {
				return err
			}
		case typ.IsRegular():
			if w.wanted(childRel) {
				w.pending = append(w.pending, pendingFile{e: e, dir: dir, rel: childRel})
			}
		case typ&fs.ModeSymlink != 0:
			if w.wanted(childRel) {
				w.addSymlink(joinPath(dir, name), childRel)
			}
		default: // a named pipe, socket or device the glob matches: listed, never read
			if w.wanted(childRel) {
				w.fail(w.exposed(childRel), ReasonNotRegular+": "+fileKind(typ))
			}
		}
	}
	return nil
}

// readDir lists a directory without sorting it (Scan sorts its output once).
// On a partial failure it returns what it read along with the error.
func readDir(dir string) ([]os.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (w *walker) wanted(rel string) bool {
	return w.glob.Match(rel) && !w.excluded(rel)
}

func (w *walker) excluded(rel string) bool {
	for _, g := range w.excludes {
		if g.Match(rel) {
			return true
		}
	}
	return false
}

func (w *walker) addRegular(p pendingFile) {
	info, err, rel := p.info, p.err, p.rel // Info is the only stat of a regular file
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) { // vanished since ReadDir: not a failure
			w.fail(w.exposed(rel), "unreadable: "+errText(err))
		}
		return
	}
	if info.Mode().IsRegular() {
		w.add(joinPath(p.dir, p.e.Name()), rel, info)
	}
}

func (w *walker) addSymlink(abs, rel string) {
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		w.fail(w.exposed(rel), ReasonBrokenSymlink)
		return
	}
	info, err := os.Stat(target)
	if err != nil {
		w.fail(w.exposed(rel), "unreadable: "+errText(err))
		return
	}
	if info.IsDir() { // directories are never followed
		return
	}
	if !info.Mode().IsRegular() { // a link to a pipe or a device (/dev/zero)
		w.fail(w.exposed(rel), ReasonNotRegular+": "+fileKind(info.Mode()))
		return
	}
	if !within(w.rootReal, target) {
		w.fail(w.exposed(rel), ReasonSymlinkOutside)
		return
	}
	w.add(abs, rel, info)
}

func (w *walker) add(abs, rel string, info fs.FileInfo) {
	if w.seen != nil {
		if w.seen[abs] {
			return
		}
		w.seen[abs] = true
	}
	w.files = append(w.files, File{
		Source:  w.src,
		Rel:     w.exposed(rel),
		InRoot:  rel,
		Abs:     abs,
		Size:    info.Size(),
		ModTime: info.ModTime().UnixNano(),
	})
}

func (w *walker) fail(path, reason string) {
	w.failures = append(w.failures, cairn.FileFailure{Path: path, Reason: reason})
}

// exposed returns the exposed path of a root-relative path; the root itself
// is named by its absolute path.
func (w *walker) exposed(rel string) string {
	if rel == "" {
		return w.src.Root
	}
	return w.src.rel(rel)
}

// within reports whether path is root or lies below it (both resolved).
func within(root, path string) bool {
	if path == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(path, root)
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// errText drops the operation and path of a *fs.PathError, which the
// failure's Path already names: "permission denied".
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
