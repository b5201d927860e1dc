package mcpserver

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long the file watcher waits after the last change
// before it syncs (spec C6).
const DefaultDebounce = 250 * time.Millisecond

// BackgroundOptions configure Agent.StartBackground.
type BackgroundOptions struct {
	// SyncInterval is the period of the session sync (spec C10); the
	// first runs one interval after the start. Zero: manual syncs only.
	SyncInterval time.Duration
	// Watch watches the roots of the files corpora and syncs a corpus
	// when a Markdown file in it changes.
	Watch bool
	// Debounce is the quiet time before a watcher sync, default
	// DefaultDebounce.
	Debounce time.Duration
	// FirstSync syncs the index at the start (spec C1): the files
	// corpora, then sessions and memories, in the background. Searches
	// and gets wait for the files' full-text index, at most FirstSyncWait
	// (default DefaultFirstSyncWait), never for their vectors.
	FirstSync     bool
	FirstSyncWait time.Duration
	Logger        *slog.Logger // nil: discard
}

// StartBackground starts the periodic session sync, the file watcher and
// the first sync of a long-running server (cairn serve and cairn mcp
// alike). Close stops them and waits for their syncs (the first sync is
// cancelled: what it stored stays, and the next start resumes it). A
// watcher that cannot start is an error, returned after the rest has
// started; it and later watch errors are kept for memory_diagnostics and
// memory_sync_status. An unavailable agent starts nothing.
func (a *Agent) StartBackground(opts BackgroundOptions) error {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.FirstSyncWait <= 0 {
		opts.FirstSyncWait = DefaultFirstSyncWait
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if a.eng == nil {
		return nil
	}
	if _, ok := a.sessionsCorpus(); ok {
		a.updateBackground(func(p **PeriodicStatus, _ **WatcherStatus) {
			*p = &PeriodicStatus{IntervalMinutes: int(opts.SyncInterval / time.Minute)}
		})
		if opts.SyncInterval > 0 {
			a.bg.Add(1)
			go a.periodicLoop(opts.SyncInterval, opts.Logger)
		}
	}
	var err error
	if opts.Watch {
		// The watcher starts before the first sync, so a change made
		// while it runs is synced after it.
		var w *dirWatcher
		if w, err = newDirWatcher(a, opts); err == nil {
			a.bg.Add(1)
			go w.loop()
		} else {
			a.updateBackground(func(_ **PeriodicStatus, ws **WatcherStatus) { *ws = &WatcherStatus{LastError: err.Error()} })
		}
	}
	if opts.FirstSync {
		a.startFirstSync(opts.FirstSyncWait, opts.Logger)
	}
	return err
}

// periodicLoop starts a session sync every interval, skipping a tick while
// one runs.
func (a *Agent) periodicLoop(interval time.Duration, log *slog.Logger) {
	defer a.bg.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	next := func() string { return time.Now().Add(interval).UTC().Format(time.RFC3339) }
	a.updateBackground(func(p **PeriodicStatus, _ **WatcherStatus) { (*p).NextAt = next() })
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
		}
		corpus, _ := a.sessionsCorpus()
		_, started := a.sessions.start(corpus, false)
		log.Info("periodic session sync", "agent", a.name, "started", started)
		a.updateBackground(func(p **PeriodicStatus, _ **WatcherStatus) {
			(*p).LastAt, (*p).NextAt = time.Now().UTC().Format(time.RFC3339), next()
			if started {
				(*p).Runs++
			}
		})
	}
}

// dirWatcher watches every folder under the roots of the files corpora and
// syncs the corpora whose Markdown files changed, debounced.
type dirWatcher struct {
	a        *Agent
	w        *fsnotify.Watcher
	roots    []watchRoot
	skip     []string // folders never watched: the corpora's ingest.ExcludedFolders (Cairn's own data folder)
	debounce time.Duration
	log      *slog.Logger

	mu      sync.Mutex
	pending []string // corpora to sync
	timer   *time.Timer

	runMu   sync.Mutex // held by a running flush
	stopped bool       // under runMu: no more flushes
	// flushes counts the debounce timers armed and not stopped: each
	// fires a flush on a goroutine of its own, which loop awaits.
	flushes sync.WaitGroup
}

// watchRoot is a folder a files corpus reads. deep: its pattern can match
// below it (it has a / or **), so its whole tree is watched; otherwise (a
// single file, or *.md) only the folder itself, never, say, all of $HOME
// above a ~/TODO.md.
type watchRoot struct {
	dir, corpus string
	deep        bool
}

// covers reports whether an event at path concerns the root.
func (r watchRoot) covers(path string) bool {
	if r.deep {
		return path == r.dir || strings.HasPrefix(path, r.dir+string(filepath.Separator))
	}
	return path == r.dir || filepath.Dir(path) == r.dir
}

func newDirWatcher(a *Agent, opts BackgroundOptions) (*dirWatcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, &cairn.Error{Op: "start file watcher", Err: err, Hint: "raise fs.inotify.max_user_instances or run cairn serve --watch=false"}
	}
	d := &dirWatcher{a: a, w: fw, debounce: opts.Debounce, log: opts.Logger}
	for _, c := range a.eng.Corpora() {
		if c.Kind != cairn.KindFiles {
			continue
		}
		srcs, err := ingest.Resolve(c)
		if err != nil {
			fw.Close()
			return nil, err
		}
		d.skip = append(d.skip, ingest.ExcludedFolders(c)...)
		for _, s := range srcs {
			deep := strings.Contains(s.Pattern, "/") || strings.Contains(s.Pattern, "**")
			d.roots = append(d.roots, watchRoot{dir: filepath.Clean(s.Root), corpus: c.Name, deep: deep})
		}
	}
	n := 0
	for _, r := range d.roots {
		if r.deep {
			n += d.addTree(r.dir)
		} else if err := d.w.Add(r.dir); err != nil {
			d.setError(err)
		} else {
			n++
		}
	}
	a.updateBackground(func(_ **PeriodicStatus, w **WatcherStatus) {
		*w = &WatcherStatus{Enabled: true, Directories: n, DebounceMs: int(opts.Debounce / time.Millisecond)}
	})
	return d, nil
}

// addTree watches dir and the folders under it (not entering symlinks,
// hidden folders or the folders the scan never enters, whose writes by a
// sync would start the next one) and returns how many it added.
func (d *dirWatcher) addTree(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(e.Name(), ".") || slices.Contains(d.skip, filepath.Clean(p)) {
			return filepath.SkipDir
		}
		if err := d.w.Add(p); err != nil {
			d.setError(err)
			return filepath.SkipDir
		}
		n++
		return nil
	})
	return n
}

func (d *dirWatcher) loop() {
	defer d.a.bg.Done()
	defer d.w.Close()
	defer d.end()
	for {
		select {
		case <-d.a.stop:
			return
		case ev, ok := <-d.w.Events:
			if !ok {
				return
			}
			d.event(ev)
		case err, ok := <-d.w.Errors:
			if !ok {
				return
			}
			d.setError(err)
		}
	}
}

// end stops the debounce timer, waits for a running flush and keeps
// later ones from syncing, then waits for every flush goroutine to return.
func (d *dirWatcher) end() {
	d.mu.Lock()
	if d.timer != nil && d.timer.Stop() {
		d.flushes.Done() // it will not fire
	}
	d.timer = nil
	d.mu.Unlock()
	d.runMu.Lock() // waits for a running flush
	d.stopped = true
	d.runMu.Unlock()
	d.flushes.Wait()
}

// event schedules a sync of the corpora that hold a changed Markdown file
// or folder; a new folder is watched too.
func (d *dirWatcher) event(ev fsnotify.Event) {
	isDir := false
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			isDir = true
			if slices.ContainsFunc(d.roots, func(r watchRoot) bool { return r.deep && r.covers(ev.Name) }) {
				n := d.addTree(ev.Name)
				d.a.updateBackground(func(_ **PeriodicStatus, w **WatcherStatus) { (*w).Directories += n })
			}
		}
	}
	removed := ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	if !isDir && !removed && !strings.HasSuffix(ev.Name, ".md") {
		return
	}
	if ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) && !ev.Has(fsnotify.Create) && !removed {
		return
	}
	var corpora []string
	for _, r := range d.roots {
		if r.covers(ev.Name) {
			corpora = append(corpora, r.corpus)
		}
	}
	if len(corpora) == 0 {
		return
	}
	d.a.updateBackground(func(_ **PeriodicStatus, w **WatcherStatus) {
		(*w).LastEventAt, (*w).Pending = time.Now().UTC().Format(time.RFC3339), true
	})
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range corpora {
		if !slices.Contains(d.pending, c) {
			d.pending = append(d.pending, c)
		}
	}
	if d.timer != nil && d.timer.Stop() {
		d.flushes.Done() // replaced before it fired
	}
	d.flushes.Add(1)
	d.timer = time.AfterFunc(d.debounce, func() {
		defer d.flushes.Done()
		d.flush()
	})
}

// flush syncs the pending corpora, one flush at a time.
func (d *dirWatcher) flush() {
	d.runMu.Lock()
	defer d.runMu.Unlock()
	d.mu.Lock()
	corpora := d.pending
	d.pending = nil
	d.mu.Unlock()
	if d.stopped || len(corpora) == 0 {
		return
	}
	_, err := d.a.eng.Sync(d.a.base, &cairn.SyncOptions{Corpora: corpora})
	if err != nil && !errors.Is(err, context.Canceled) {
		d.setError(err)
	}
	d.log.Info("watcher sync", "agent", d.a.name, "corpora", corpora, "err", err)
	d.a.updateBackground(func(_ **PeriodicStatus, w **WatcherStatus) {
		(*w).Syncs++
		(*w).LastSyncAt = time.Now().UTC().Format(time.RFC3339)
		d.mu.Lock()
		(*w).Pending = len(d.pending) > 0
		d.mu.Unlock()
	})
}

func (d *dirWatcher) setError(err error) {
	d.log.Warn("file watcher", "agent", d.a.name, "err", err)
	d.a.updateBackground(func(_ **PeriodicStatus, w **WatcherStatus) {
		if *w != nil {
			(*w).LastError = err.Error()
		}
	})
}
