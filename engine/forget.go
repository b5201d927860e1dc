package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
)

// ForgetResult reports a memory forgotten. JSON names are fixed.
type ForgetResult struct {
	// Memory is the memory as it was stored before it was forgotten.
	Memory cairn.Memory `json:"memory"`
	// Restored lists the memories the forgotten one had absorbed or
	// replaced (sleep's merge or supersedes): active again. One may say
	// what the forgotten one said: forget it too.
	Restored []cairn.Memory `json:"restored"`
	// Reduced lists the memories the forgotten one had been merged into,
	// with what it added (cues, concepts, sources, body text) taken out.
	Reduced []cairn.Memory `json:"reduced"`
	// Profiles lists the profiles built from a forgotten observation
	// (consolidate.ProfilesOf), forgotten with it since their text may say
	// what it said; the next sleep pass builds its subject's profile again
	// from the observations left.
	Profiles []cairn.Memory `json:"profiles"`
}

// Forget removes a memory, told or consolidated, from the durable store
// and from the memories corpus before it returns: search, get, explore
// and gather no longer find it, and neither memory.db nor the index (its
// text, chunks and vectors) nor an export holds it. The other memories of
// the window that wrote it stay as they are, and a later consolidation
// that reads its records again does not write it again (consolidate.Forget
// keeps a tombstone); telling the same memory again stores it again. A
// forgotten observation takes the profiles built from it along
// (consolidate.ProfilesOf). An unknown id is an error matching
// cairn.ErrNotFound that names it. On a team server the caller's grant
// must allow changing the memories corpus.
func (e *Engine) Forget(ctx context.Context, id string) (*ForgetResult, error) {
	if err := CanWrite(ctx, cairn.MemoriesCorpus); err != nil { // scope.go
		return nil, err
	}
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, cairn.Invalidf("forget: a memory id is required (see cairn memories list)")
	}
	m, err := e.store.Memory(ctx, id)
	if errors.Is(err, cairn.ErrNotFound) {
		return nil, fmt.Errorf("forget: no memory %q: %w", id, cairn.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	links, err := e.store.MemoryLinks(ctx, m.ID) // read before they are undone
	if err != nil {
		return nil, err
	}
	profiles, err := consolidate.ProfilesOf(ctx, e.store, &m)
	if err != nil {
		return nil, err
	}
	committed, err := consolidate.Forget(ctx, e.store, m)
	if err != nil {
		return nil, err
	}
	gone := map[string]bool{m.ID: true}
	for _, p := range profiles {
		gone[p.ID] = true
	}
	for _, p := range profiles {
		pl, err := e.store.MemoryLinks(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		links = append(links, pl...)
		c, err := consolidate.Forget(ctx, e.store, p)
		if err != nil {
			return nil, err
		}
		committed.Removed = append(committed.Removed, c.Removed...)
		committed.Touched = append(committed.Touched, c.Touched...)
	}
	committed.Touched = slices.DeleteFunc(slices.Compact(slices.Sorted(slices.Values(committed.Touched))), func(id string) bool { return gone[id] })
	// Removed is never empty: the memories folder and corpus are rebuilt
	// from the table (the forgotten memory's document and chunks go, a
	// memory changed by an undone sleep decision is written again).
	if err := e.indexMemories(ctx, nil, committed); err != nil {
		return nil, fmt.Errorf("forget %s: remove it from the memories corpus: %w", m.ID, err)
	}
	// Its document's text, chunks and vectors leave the index now, not at
	// the next sync's collection (with SQLite's secure_delete the freed
	// pages are zeroed); an export made after this holds none of it.
	if _, err := e.store.GC(ctx); err != nil {
		return nil, fmt.Errorf("forget %s: remove its indexed text: %w", m.ID, err)
	}
	res := &ForgetResult{Memory: m, Restored: []cairn.Memory{}, Reduced: []cairn.Memory{}, Profiles: profiles}
	if res.Profiles == nil {
		res.Profiles = []cairn.Memory{}
	}
	if len(committed.Touched) == 0 {
		return res, nil
	}
	changed, err := e.store.MemoriesByID(ctx, committed.Touched)
	if err != nil {
		return nil, err
	}
	for _, t := range committed.Touched {
		c, ok := changed[t]
		if !ok {
			continue
		}
		// A link from a forgotten memory: it had absorbed or replaced t.
		if slices.ContainsFunc(links, func(l cairn.MemoryLink) bool { return gone[l.From] && l.To == t }) {
			res.Restored = append(res.Restored, c)
		} else {
			res.Reduced = append(res.Reduced, c)
		}
	}
	return res, nil
}
