package engine

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
)

// stateLoad reads a corpus's indexed states and redaction state beside
// the scan (the scan is syscall-bound, the query CPU-bound); done is
// closed once states, recorded and err are set.
type stateLoad struct {
	done     chan struct{}
	states   []cairn.DocState // in path order, as the scan's files
	hashless bool             // states lack their hashes (fillHashes)
	recorded string           // the redaction state the documents were indexed under
	err      error
}

// fileStater is a store that lists a corpus's documents in path order
// without their content hashes, which a no-op sync does not need, and
// looks the hashes up for the files a sync reads (sqlite.Store: a 60%
// smaller list at 480,000 notes).
type fileStater interface {
	SortedFileStates(ctx context.Context, corpus string) ([]cairn.DocState, error)
	DocHashes(ctx context.Context, corpus string, paths []string) (map[string]string, error)
}

func (e *Engine) loadStates(ctx context.Context, corpus string) *stateLoad {
	l := &stateLoad{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		if fs, ok := e.store.(fileStater); ok {
			l.states, l.err = fs.SortedFileStates(ctx, corpus)
			l.hashless = true
		} else {
			l.states, l.err = e.sortedDocStates(ctx, corpus)
		}
		if l.err == nil {
			l.recorded, l.err = e.store.RedactState(ctx, corpus)
		}
	}()
	return l
}

// fillHashes sets the content hash of each state in known (the indexed
// files a sync reads) when the states were listed without them.
func (e *Engine) fillHashes(ctx context.Context, l *stateLoad, corpus string, known map[string]cairn.DocState) error {
	if !l.hashless || len(known) == 0 {
		return nil
	}
	paths := make([]string, 0, len(known))
	for p := range known {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	hashes, err := e.store.(fileStater).DocHashes(ctx, corpus, paths)
	if err != nil {
		return err
	}
	for p, st := range known {
		// A path listed a moment ago is indexed: the sync holds the
		// corpus's lock. Were it gone, an empty hash matches no text, so
		// the file would be written again, never skipped.
		st.Hash = hashes[p]
		known[p] = st
	}
	return nil
}

// reread reports whether every file is to be read again because the
// documents were indexed under another redaction state than want.
func (l *stateLoad) reread(want string) bool {
	return l.recorded != want && len(l.states) > 0
}

// unchangedSkip is ingest.ScanOptions.Skip for a sync: a file indexed
// under its path with the same size and mtime is unchanged (Sync's check)
// and is not listed, so a no-op sync builds no file record. The first call
// waits for the states (by then the walk and its stats are done); it
// compares nothing when they failed to load (the sync reports the error)
// or when every file is to be read again. The scan asks in path order
// within each source, so a cursor walks forward through the sorted
// states; a path below the one before (the next source of a corpus with
// several roots) is found by binary search. A path comes as its folder
// and name (ingest.ScanOptions.Skip) and is compared in those parts
// (comparePath), not joined for each file: at 480,000 unchanged files a
// joined path a file was 480,000 strings.
type unchangedSkip struct {
	load    *stateLoad
	want    string // the corpus's redaction state
	started bool
	on      bool
	skipped []bool // by state: its file was skipped
	n       int    // files skipped
	next    int    // the first state not below the last path asked
	// The last path asked, as its folder and name.
	lastDir, lastName string
}

func (s *unchangedSkip) skip(dir, name string, size, mtime int64) bool {
	if !s.started {
		s.started = true
		<-s.load.done
		s.on = s.load.err == nil && !s.load.reread(s.want)
		if s.on {
			s.skipped = make([]bool, len(s.load.states))
		}
	}
	if !s.on {
		return false
	}
	st := s.load.states
	if s.below(dir, name) {
		s.next, _ = slices.BinarySearchFunc(st, 0, func(d cairn.DocState, _ int) int { return comparePath(d.Path, dir, name) })
	}
	s.lastDir, s.lastName = dir, name
	for s.next < len(st) && comparePath(st[s.next].Path, dir, name) < 0 {
		s.next++
	}
	if s.next == len(st) {
		return false
	}
	if d := &st[s.next]; d.Size != size || d.ModTime != mtime || comparePath(d.Path, dir, name) != 0 {
		return false
	}
	s.skipped[s.next] = true
	s.next++
	s.n++
	return true
}

// below reports whether the path dir/name sorts below the last one asked:
// only where a corpus's next source begins, so the paths are joined to
// compare only when the folder changed.
func (s *unchangedSkip) below(dir, name string) bool {
	if dir == s.lastDir {
		return name < s.lastName
	}
	return ingest.JoinRel(dir, name) < ingest.JoinRel(s.lastDir, s.lastName)
}

// comparePath compares p with the path of name in folder dir (dir + "/" +
// name, or name when dir is ""), as strings.Compare would compare p with
// the joined path.
func comparePath(p, dir, name string) int {
	if dir == "" {
		return strings.Compare(p, name)
	}
	if len(p) <= len(dir) {
		// p is shorter than the joined path: below it when it is a
		// prefix of dir (or dir itself), else where the two differ.
		if c := strings.Compare(p, dir[:len(p)]); c != 0 {
			return c
		}
		return -1
	}
	if c := strings.Compare(p[:len(dir)], dir); c != 0 {
		return c
	}
	if c := cmp.Compare(p[len(dir)], '/'); c != 0 {
		return c
	}
	return strings.Compare(p[len(dir)+1:], name)
}
