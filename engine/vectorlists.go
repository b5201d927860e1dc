package engine

import (
	"errors"

	"github.com/cairnmemory/cairn/vector"
)

// The vector lane's coarse lists (vector/lists.go): an index of
// vector.ListsMin items or more is searched through k-means lists, which
// cut the code scan at 1M items to a fraction (bench/RESULTS.md, "Vector
// search at 1M: coarse lists"). The lists live in vectors.bin.lists beside
// the index file, bound to it (its stamp, count and checksum): vectors.bin
// is written list by list, so a probe reads its codes in order.
//
// When they are built: whenever the index is read from the store (the
// file was missing, stale or damaged: a sync changed the vectors), before
// vectors.bin is written; and when a long-lived process loads a
// vectors.bin whose lists file is missing, stale or damaged (written by a
// build before the lists, or damaged on disk), after which both files are
// written again. A rebuild keeps the previous file's centroids (items are
// assigned to them, no k-means) until the index has doubled or halved
// since they were trained (vector.NeedsRetrain). A one-shot process (a CLI
// search) never builds: it uses a matching lists file or scans every item.
// Building costs seconds at 1M items (the assignment of every item, split
// over the cores), on the load path, which at that size reads 1M vectors
// out of SQLite first.

// listsMin is vector.ListsMin; tests lower it to see lists on small
// indexes.
var listsMin = vector.ListsMin

// loadLists gives an index loaded from its file the lists saved for it,
// or builds them and writes both files again (long-lived processes only).
func (e *Engine) loadLists(ix *vector.Index, path string, stamp vector.Stamp) {
	if ix.Len() < listsMin {
		return
	}
	err := ix.LoadLists(vector.ListsFile(path), stamp)
	if err == nil {
		return
	}
	if errors.Is(err, vector.ErrCorrupt) && e.opts.Logf != nil {
		e.opts.Logf("cairn: %v; rebuilding the vector lists", err)
	}
	if e.opts.OneShot {
		return // scans every item; the next long-lived process builds them
	}
	e.buildLists(ix, path, stamp)
	if !ix.HasLists() {
		return
	}
	if err := ix.Save(path, stamp); err != nil {
		e.logf("cairn: %v", err)
		return
	}
	e.saveLists(ix, path, stamp)
}

// buildLists builds the lists of an index of vector.ListsMin items or
// more, keeping the centroids of the lists file beside path while they
// fit (same vector space, size within a factor of two). A failure leaves
// the index without lists: searches scan every item, as before them.
func (e *Engine) buildLists(ix *vector.Index, path string, stamp vector.Stamp) {
	if ix.Len() < listsMin {
		return
	}
	var o vector.ListOptions
	c, trained, err := vector.ReadCentroids(vector.ListsFile(path), stamp.Tag, ix.Dim())
	if err == nil && !vector.NeedsRetrain(trained, ix.Len()) {
		o.Centroids, o.Trained = c, trained
	}
	if err := ix.BuildLists(&o); err != nil {
		e.logf("cairn: %v", err)
	}
}

// saveLists writes the lists file of an index just saved to path.
func (e *Engine) saveLists(ix *vector.Index, path string, stamp vector.Stamp) {
	if !ix.HasLists() {
		return
	}
	if err := ix.SaveLists(vector.ListsFile(path), stamp); err != nil {
		e.logf("cairn: %v", err)
	}
}

// logf logs through Options.Logf when set.
func (e *Engine) logf(format string, args ...any) {
	if e.opts.Logf != nil {
		e.opts.Logf(format, args...)
	}
}
