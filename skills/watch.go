package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
)

// Watcher invalidates an Index when anything changes under its paths. It
// watches every folder under each path's root, symlinked folders included
// (each real folder once); a root that does not exist yet is noticed
// through its nearest existing parent. Any event invalidates: the index
// is rebuilt lazily, on the next search, so a burst of events costs one
// rebuild.
type Watcher struct {
	idx  *Index
	w    *fsnotify.Watcher
	log  *slog.Logger
	done chan struct{}
	wg   sync.WaitGroup

	roots   []string // the resolved roots of the paths
	mu      sync.Mutex
	watched map[string]bool // real folders watched
	err     error           // the last watch error
}

// Watch starts a watcher for idx; Close stops it and waits for its
// goroutine. log may be nil.
func Watch(idx *Index, log *slog.Logger) (*Watcher, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srcs, err := ingest.Resolve(cairn.Corpus{Name: cairn.KindSkills, Kind: cairn.KindFiles, Paths: idx.paths, Glob: Pattern})
	if err != nil && len(idx.paths) > 0 {
		return nil, fmt.Errorf("watch skills: %w", err)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, &cairn.Error{Op: "start skills watcher", Err: err, Hint: "raise fs.inotify.max_user_instances"}
	}
	w := &Watcher{idx: idx, w: fw, log: log, done: make(chan struct{}), watched: make(map[string]bool)}
	for _, s := range srcs {
		w.roots = append(w.roots, s.Root)
		w.addRoot(s.Root)
	}
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// addRoot watches root's tree, or its nearest existing parent.
func (w *Watcher) addRoot(root string) {
	dir := root
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return
		}
		dir = parent
	}
	if dir != root {
		w.add(dir)
		return
	}
	w.addTree(root)
}

// addTree watches dir and every folder beneath it, following symlinks;
// each real folder is entered once per call.
func (w *Watcher) addTree(dir string) { w.walk(dir, make(map[string]bool)) }

func (w *Watcher) walk(dir string, seen map[string]bool) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || seen[real] || len(seen) >= MaxDirs {
		return
	}
	seen[real] = true
	w.add(dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Name() == ".git" || e.Name() == "node_modules" {
			continue
		}
		child := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(child); err == nil && fi.IsDir() {
			w.walk(child, seen)
		}
	}
}

// add watches one folder, unless it is watched already.
func (w *Watcher) add(dir string) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched[real] || len(w.watched) >= MaxDirs {
		return
	}
	if err := w.w.Add(real); err != nil {
		w.err = err
		return
	}
	w.watched[real] = true
}

// Err is the last error met adding a folder, nil when none.
func (w *Watcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *Watcher) loop() {
	defer w.wg.Done()
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.w.Errors:
			if !ok {
				return
			}
			w.mu.Lock()
			w.err = err
			w.mu.Unlock()
			w.log.Warn("skills watcher", "error", err)
			w.idx.Invalidate() // an overflow may have lost events
		}
	}
}

// event watches a created folder, then invalidates the index: in that
// order, a file written in the new folder before its watch was added is
// seen by the rebuild, and one written after raises an event of its own.
func (w *Watcher) event(ev fsnotify.Event) {
	if ev.Has(fsnotify.Create) {
		fi, err := os.Stat(ev.Name)
		if err == nil && fi.IsDir() {
			w.addTree(ev.Name)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			// A created root (or a folder above one) is watched as a
			// tree from now on.
			for _, r := range w.roots {
				if within(ev.Name, r) {
					w.addRoot(r)
				}
			}
		}
	}
	w.idx.Invalidate()
}

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Close stops the watcher and waits for its goroutine.
func (w *Watcher) Close() error {
	close(w.done)
	err := w.w.Close()
	w.wg.Wait()
	return err
}
