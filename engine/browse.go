package engine

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
)

// Reads for browsing an index (the web pages of package web): what a
// corpus holds and which sessions were projected. They read the store and
// change nothing.

// Documents returns the indexed documents of a corpus, sorted by path.
func (e *Engine) Documents(ctx context.Context, corpus string) ([]cairn.DocState, error) {
	if err := CanRead(ctx, corpus); err != nil { // scope.go
		return nil, err
	}
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
// many matched. At most limit records are read (0: all): the paths are
// ordered by the start time their file name begins with
// (transcript.Path: <startedAt>--<sessionId>.md, "unknown-start" for
// none), so a long history costs limit reads, not one per session.
func (e *Engine) Sessions(ctx context.Context, corpus string, f cairn.SessionFilter, limit int) ([]cairn.SessionRecord, int, error) {
	if err := CanRead(ctx, corpus); err != nil { // scope.go
		return nil, 0, err
	}
	paths, err := e.store.FilterSessions(ctx, []string{corpus}, f)
	if err != nil {
		return nil, 0, err
	}
	slices.SortFunc(paths, func(a, b string) int {
		if c := cmp.Compare(startKey(b), startKey(a)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	n := len(paths)
	if limit > 0 && n > limit {
		paths = paths[:limit]
	}
	recs := make([]cairn.SessionRecord, 0, len(paths))
	for _, p := range paths {
		r, err := e.store.Session(ctx, corpus, p)
		if err != nil {
			return nil, 0, err
		}
		recs = append(recs, r)
	}
	slices.SortStableFunc(recs, func(a, b cairn.SessionRecord) int {
		switch {
		case a.StartedAt.IsZero() != b.StartedAt.IsZero():
			return map[bool]int{true: 1, false: -1}[a.StartedAt.IsZero()]
		}
		return b.StartedAt.Compare(a.StartedAt)
	})
	return recs, n, nil
}

// startKey is the start time a projection's file name begins with, ""
// for a session without one ("unknown-start") or a name of another form.
func startKey(p string) string {
	base := path.Base(p)
	start, _, ok := strings.Cut(base, "--")
	if !ok || start == "unknown-start" {
		return ""
	}
	return start
}

// TranscriptFailures returns the transcript files of a sessions corpus
// whose last parse failed, with the error, sorted by path.
func (e *Engine) TranscriptFailures(ctx context.Context, corpus string) ([]cairn.FileFailure, error) {
	if err := CanRead(ctx, corpus); err != nil { // scope.go
		return nil, err
	}
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
