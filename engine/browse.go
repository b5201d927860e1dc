package engine

import (
	"cmp"
	"context"
	"slices"

	"github.com/cairnmemory/cairn"
)

// Reads for browsing an index (the web pages of package web): what a
// corpus holds and which sessions were projected. They read the store and
// change nothing.

// Documents returns the indexed documents of a corpus, sorted by path.
func (e *Engine) Documents(ctx context.Context, corpus string) ([]cairn.DocState, error) {
	states, err := e.store.DocStates(ctx, corpus)
	if err != nil {
		return nil, err
	}
	out := make([]cairn.DocState, 0, len(states))
	for _, s := range states {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b cairn.DocState) int { return cmp.Compare(a.Path, b.Path) })
	return out, nil
}

// Sessions returns the session records of a sessions corpus that match f,
// newest start first (sessions without a start last, by path), and how
// many matched: at most limit records are read (0: all).
func (e *Engine) Sessions(ctx context.Context, corpus string, f cairn.SessionFilter, limit int) ([]cairn.SessionRecord, int, error) {
	paths, err := e.store.FilterSessions(ctx, []string{corpus}, f)
	if err != nil {
		return nil, 0, err
	}
	recs := make([]cairn.SessionRecord, 0, len(paths))
	for _, p := range paths {
		r, err := e.store.Session(ctx, corpus, p)
		if err != nil {
			return nil, 0, err
		}
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b cairn.SessionRecord) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.Path, b.Path)
	})
	n := len(recs)
	if limit > 0 && n > limit {
		recs = recs[:limit]
	}
	return recs, n, nil
}

// TranscriptFailures returns the transcript files of a sessions corpus
// whose last parse failed, with the error, sorted by path.
func (e *Engine) TranscriptFailures(ctx context.Context, corpus string) ([]cairn.FileFailure, error) {
	states, err := e.store.TranscriptStates(ctx, corpus)
	if err != nil {
		return nil, err
	}
	var out []cairn.FileFailure
	for _, s := range states {
		if s.Error != "" {
			out = append(out, cairn.FileFailure{Path: s.Path, Reason: s.Error})
		}
	}
	slices.SortFunc(out, func(a, b cairn.FileFailure) int { return cmp.Compare(a.Path, b.Path) })
	return out, nil
}
