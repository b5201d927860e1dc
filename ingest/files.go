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
	"sync/atomic"
	"unsafe"

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
	return f.Reason == ReasonSymlinkOutside || f.Reason == ReasonBrokenSymlink || f.Reason == ReasonSymlinkAvoided ||
		strings.HasPrefix(f.Reason, ReasonNotRegular+":") || strings.HasPrefix(f.Reason, ReasonSecretName) || f.Reason == ReasonNameNotUTF8
}

// Scan resolves c (see Resolve) and walks each source root, returning the
// matching regular files sorted by Rel. The walk
//
//   - never enters ".git" directories or symlinked directories, nor the
//     other DefaultExcludes folders unless the corpus asks for them;
//   - never enters a folder that c.Exclude names by absolute path
//     (ExcludedFolders), nor lists a symlinked file whose target lies in one;
//   - matches Pattern and the other c.Exclude entries against the path relative to the source
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
//   - reports a directory it cannot read as a failure and goes on;
//   - reports a listed file whose path is not valid UTF-8 as a failure
//     (badname.go), never listing it: no JSON answer could name it;
//   - in a corpus that redacts, reports a listed file whose path holds a
//     secret as a failure under the redacted path, never listing it
//     (secretname.go): a path is the document's key and would be stored
//     and shown as written.
//
// A missing root is not an error: it yields no files. When two sources find
// the same file, the earlier source in c.Paths keeps it. err is non-nil only
// for a malformed corpus (cairn.ErrInvalid) or a cancelled ctx.
func Scan(ctx context.Context, c cairn.Corpus) (files []File, failures []cairn.FileFailure, err error) {
	return ScanWith(ctx, c, nil)
}

// ScanOptions tune ScanWith; a nil *ScanOptions lists every file, as Scan.
type ScanOptions struct {
	// Skip, when set, is asked about each file the scan finds, with the
	// path, size and mtime its File would have (Rel, Size, ModTime; for a
	// symlinked file its target's size and mtime), before that File is
	// built: a file it returns true for is left out of the list. The path
	// comes in two parts, the exposed path of the file's folder and the
	// file's name: Rel is dir + "/" + name, or name when dir is "" (a file
	// at the root of a source without a prefix). Both are shared, not
	// built for the file (dir is one string a folder, name a substring
	// of its listing), so a skipped file costs no allocation. A re-index
	// that keeps unchanged files passes one that compares with the indexed
	// states, so a no-op sync of 480,000 files builds no File and no path
	// at all (their records were about a fifth of its user CPU). Skip is
	// called from one goroutine, once a source's walk and stats are done,
	// in path order within a source; the sources of a corpus follow one
	// another, so with several roots the prefixed paths may come out of
	// order. JoinRel gives the whole path.
	Skip func(dir, name string, size, mtime int64) bool
}

// JoinRel is the exposed path of the file name in the folder of exposed
// path dir, as ScanOptions.Skip is given them.
func JoinRel(dir, name string) string { return joinRel(dir, name) }

// ScanWith is Scan with options: files Skip accepts are found, filtered
// and stat'ed like every other, but not listed.
func ScanWith(ctx context.Context, c cairn.Corpus, opts *ScanOptions) (files []File, failures []cairn.FileFailure, err error) {
	srcs, err := Resolve(c)
	if err != nil {
		return nil, nil, err
	}
	globs, folders := splitExcludes(c.Exclude)
	excludes, err := compileExcludes(globs)
	if err != nil {
		return nil, nil, err
	}
	w := &walker{ctx: ctx, excludes: excludes, corpus: c, folders: resolveFolders(folders)}
	if opts != nil {
		w.skip = opts.Skip
	}
	if len(srcs) > 1 {
		w.seen = make(map[string]bool)
	}
	for _, src := range srcs {
		if err := w.scanSource(src); err != nil {
			return nil, nil, err
		}
	}
	// Each source's files come in path order; sources with prefixes may
	// interleave.
	if byRel := func(a, b File) int { return strings.Compare(a.Rel, b.Rel) }; !slices.IsSortedFunc(w.files, byRel) {
		slices.SortFunc(w.files, byRel)
	}
	slices.SortFunc(w.failures, func(a, b cairn.FileFailure) int { return cmp.Compare(a.Path, b.Path) })
	return w.files, w.failures, nil
}

type walker struct {
	ctx      context.Context
	excludes []*Glob
	seen     map[string]bool // Abs paths already taken, with several sources
	// skip is ScanOptions.Skip.
	skip func(dir, name string, size, mtime int64) bool

	corpus   cairn.Corpus
	src      Source
	glob     *Glob
	skipDirs map[string]bool // folder names never entered (skippedDirs)
	rootReal string          // Root with symlinks resolved
	folders  []string        // the folders excluded by absolute path, resolved
	avoid    map[string]bool // those below the current root, relative to it

	files    []File
	failures []cairn.FileFailure
	runs     []*dirRun    // the current source's files in path order, in runs the workers stat
	jobs     chan *dirRun // runs for the stat workers (scanSource)
	buf      []byte       // listDir's buffer for the kernel's directory records
	relBuf   []byte       // childRel's buffer
}

// dirRun is a run of files of one directory, next to each other in path
// order, that one stat worker takes at a time (statRun).
type dirRun struct {
	dir   *dirRef
	files []pendingFile
}

// dirEntry is one entry of a directory listing: its name and type bits.
type dirEntry struct {
	name string
	typ  fs.FileMode
}

// dirRef is a listed directory: its path and, where listDir keeps it
// open, its descriptor (else -1), closed when the walk and every run of
// its files are done with it. walkDir sets rel and exposed, from which
// the paths of its files are built when they are listed (addFile).
type dirRef struct {
	path    string
	rel     string // relative to the source root, "" for the root
	exposed string // the exposed path of the folder, "" for the root of a source without a prefix
	fd      int
	refs    atomic.Int32
}

func newDirRef(path string, fd int) *dirRef {
	d := &dirRef{path: path, fd: fd}
	d.refs.Store(1) // the walk's
	return d
}

func (d *dirRef) hold() { d.refs.Add(1) }

func (d *dirRef) release() {
	if d.refs.Add(-1) == 0 && d.fd >= 0 {
		closeDir(d.fd)
	}
}

// pendingFile is a file found by ReadDir whose stat is deferred, so the
// stats of a source run in parallel with the walk and with each other (they
// dominate a rescan). A symlink is resolved in the ordered pass that adds
// the files (addSymlink), not by the workers. It holds the file's name
// alone (a substring of its directory's listing): its paths are built
// only for a file that is listed, so a file Skip drops costs this record
// and nothing else (56 bytes; with its paths it was 96 and a string).
type pendingFile struct {
	name string // the file's name in its directory
	// Set by statGroup for a file that is not a symlink.
	size, mtime int64 // bytes, unix nanoseconds
	err         error
	symlink     bool
	regular     bool
}

// statWorkers stat files in parallel; stat is a syscall, so more workers
// than cores still help.
const statWorkers = 8

// scanSource walks one source: the walk reads the directories in path
// order and hands each run of files to the stat workers as soon as it is
// listed; once the walk and the stats are done the files are added in the
// walk's order, which is path order (compareEntries), so Scan need not
// sort them.
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
	var whole bool
	if w.avoid, whole = avoidedIn(w.rootReal, w.folders); whole {
		w.fail(src.Root, ReasonRootExcluded)
		return nil
	}
	w.jobs = make(chan *dirRun, 4*statWorkers)
	if w.buf == nil {
		w.buf = make([]byte, 32<<10)
	}
	var wg sync.WaitGroup
	for range statWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range w.jobs {
				statRun(r.dir, r.files)
				r.dir.release()
			}
		}()
	}
	err = w.walkDir(src.Root, "")
	close(w.jobs)
	wg.Wait()
	if err != nil {
		w.runs = nil
		return err
	}
	w.addRuns()
	return nil
}

// statGroupFiles bounds the files of one run, so a single large folder
// still spreads over the workers.
const statGroupFiles = 256

// queue hands a run of files of dir to the stat workers.
func (w *walker) queue(dir *dirRef, files []pendingFile) {
	dir.hold()
	r := &dirRun{dir: dir, files: files}
	w.runs = append(w.runs, r)
	w.jobs <- r
}

// addRuns adds the stat'ed files of the current source in order. Without
// Skip the list grows once to hold them all; with it most are usually
// skipped, so it grows as files are kept.
func (w *walker) addRuns() {
	if w.skip == nil {
		n := 0
		for _, r := range w.runs {
			n += len(r.files)
		}
		w.files = slices.Grow(w.files, n)
	}
	for _, r := range w.runs {
		for i := range r.files {
			p := &r.files[i]
			if p.symlink {
				w.addSymlink(r.dir, p.name)
			} else {
				w.addRegular(r.dir, p)
			}
		}
	}
	w.runs = nil
}

// walkDir reads one directory and recurses into its subdirectories, in
// path order: files before a subdirectory go to the stat workers before
// the walk enters it. rel is the directory's path relative to the source
// root, "" for the root.
func (w *walker) walkDir(dir, rel string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	d, entries, err := listDir(dir, w.buf)
	if err != nil {
		w.fail(w.exposed(rel), ReasonUnreadableDir+": "+errText(err))
	}
	if d == nil {
		return nil
	}
	defer d.release()
	d.rel, d.exposed = rel, w.exposedDir(rel)
	slices.SortFunc(entries, compareEntries)
	var run []pendingFile // sized when it starts: at most the entries left, at most a group
	flush := func() {
		if len(run) > 0 {
			w.queue(d, run)
			run = nil
		}
	}
	for i, e := range entries {
		name, typ := e.name, e.typ
		childRel := w.childRel(rel, name) // valid until the next call
		switch {
		case typ.IsDir():
			if w.skipDirs[name] || w.avoid[childRel] || w.excluded(childRel) || !w.glob.CanDescend(childRel) {
				continue
			}
			flush()
			abs, childRel := childPaths(dir, rel, name)
			if err := w.walkDir(abs, childRel); err != nil {
				return err
			}
		case typ.IsRegular() || typ&fs.ModeSymlink != 0:
			if w.wanted(childRel) {
				if run == nil {
					run = make([]pendingFile, 0, min(statGroupFiles, len(entries)-i))
				}
				run = append(run, pendingFile{name: name, symlink: typ&fs.ModeSymlink != 0})
				if len(run) == statGroupFiles {
					flush()
				}
			}
		default: // a named pipe, socket or device the glob matches: listed, never read
			if w.wanted(childRel) {
				w.fail(w.exposed(joinRel(rel, name)), ReasonNotRegular+": "+fileKind(typ))
			}
		}
	}
	flush()
	return nil
}

// compareEntries orders a directory's entries as their paths sort: a
// directory as its name followed by "/", so that "a.md" comes before the
// files of folder "a" ("a.md" < "a/x.md", '.' being below '/') and "a-b.md"
// too, while "a0.md" comes after them. Walking each directory in this order
// lists a source's files in byte order of their paths.
func compareEntries(a, b dirEntry) int {
	an, bn := a.name, b.name
	n := min(len(an), len(bn))
	if c := strings.Compare(an[:n], bn[:n]); c != 0 {
		return c
	}
	return cmp.Compare(keyByte(an, a.typ.IsDir(), n), keyByte(bn, b.typ.IsDir(), n))
}

// childRel is the path of entry name of directory rel relative to the
// source root, in the walker's buffer: valid until the next call, for the
// glob and the excludes to match (they keep nothing), so the walk builds
// no string for a file. A path to keep is built by joinRel or childPaths.
func (w *walker) childRel(rel, name string) string {
	b := w.relBuf[:0]
	if rel != "" {
		b = append(append(b, rel...), '/')
	}
	b = append(b, name...)
	w.relBuf = b
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// childPaths returns the path of entry name of directory dir (rel below
// the source root) and its path relative to the root. Where the separator
// is '/', the relative path is a suffix of the other (dir is the root
// joined with rel), so an entry costs one string.
func childPaths(dir, rel, name string) (abs, childRel string) {
	abs = joinPath(dir, name)
	n := len(name)
	if rel != "" {
		n += len(rel) + 1
	}
	if filepath.Separator == '/' && len(abs) >= n {
		return abs, abs[len(abs)-n:]
	}
	return abs, joinRel(rel, name)
}

// keyByte is byte i of an entry's sort key (its name, and "/" after a
// directory's), or -1 past the key's end.
func keyByte(name string, dir bool, i int) int {
	switch {
	case i < len(name):
		return int(name[i])
	case i == len(name) && dir:
		return '/'
	}
	return -1
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

func (w *walker) addRegular(d *dirRef, p *pendingFile) {
	if p.err != nil {
		if !errors.Is(p.err, fs.ErrNotExist) { // vanished since ReadDir: not a failure
			w.fail(w.exposed(joinRel(d.rel, p.name)), "unreadable: "+errText(p.err))
		}
		return
	}
	if p.regular {
		w.addFile(d, p.name, p.size, p.mtime)
	}
}

func (w *walker) addSymlink(d *dirRef, name string) {
	abs, rel := childPaths(d.path, d.rel, name)
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
	if inFolders(target, w.folders) {
		w.fail(w.exposed(rel), ReasonSymlinkAvoided)
		return
	}
	w.addFile(d, name, info.Size(), info.ModTime().UnixNano())
}

// addFile lists file name of d unless a source before took it or Skip
// drops it; its paths are built here, for a listed file only (and for
// every file of a corpus of several sources, which the seen check needs).
func (w *walker) addFile(d *dirRef, name string, size, mtime int64) {
	var abs, rel string
	if w.seen != nil {
		abs, rel = childPaths(d.path, d.rel, name)
		if w.seen[abs] {
			return
		}
		w.seen[abs] = true
	}
	if w.skip != nil && w.skip(d.exposed, name, size, mtime) {
		return
	}
	if abs == "" {
		abs, rel = childPaths(d.path, d.rel, name)
	}
	if exposed := w.exposed(rel); w.badName(exposed) || w.secretName(exposed) {
		return
	}
	w.files = append(w.files, File{
		Source:  w.src,
		Rel:     w.exposed(rel),
		InRoot:  rel,
		Abs:     abs,
		Size:    size,
		ModTime: mtime,
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

// exposedDir is the exposed path of the folder at rel (relative to the
// source root), the dir that Skip is given with its files' names: the
// prefix alone for the root.
func (w *walker) exposedDir(rel string) string {
	if rel == "" {
		return w.src.Prefix
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

// statByPath stats files of dir by their paths, as DirEntry.Info does
// (lstat); for a directory that cannot be opened the error is what each
// file's stat reports.
func statByPath(dir string, ps []pendingFile) {
	for i := range ps {
		p := &ps[i]
		if p.symlink {
			continue
		}
		info, err := os.Lstat(joinPath(dir, p.name))
		if err != nil {
			p.err = err
			continue
		}
		p.size, p.mtime, p.regular = info.Size(), info.ModTime().UnixNano(), info.Mode().IsRegular()
	}
}
