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

// docBrowser is what a store may offer the browsing reads beyond
// DocStates: every corpus's totals in one aggregate query and a page of a
// corpus's documents (sqlite/browse.go). A store without it is browsed
// through DocStates, every document read.
type docBrowser interface {
	CorpusTotals(ctx context.Context) (map[string][2]int64, error)
	DocPage(ctx context.Context, corpus string, offset, limit int) ([]cairn.DocState, error)
}

// sessionBrowser reads the records of many sessions in one query.
type sessionBrowser interface {
	SessionsByPath(ctx context.Context, corpus string, paths []string) ([]cairn.SessionRecord, error)
}

// DocTotal is what a corpus holds: documents and their bytes.
type DocTotal struct {
	Documents int
	Bytes     int64
}

// DocTotals returns the totals of these corpora (a corpus without
// documents has a zero total).
func (e *Engine) DocTotals(ctx context.Context, corpora []string) (map[string]DocTotal, error) {
	for _, c := range corpora {
		if err := CanRead(ctx, c); err != nil { // scope.go
			return nil, err
		}
	}
	out := make(map[string]DocTotal, len(corpora))
	if b, ok := e.store.(docBrowser); ok {
		all, err := b.CorpusTotals(ctx)
		if err != nil {
			return nil, err
		}
		for _, c := range corpora {
			out[c] = DocTotal{Documents: int(all[c][0]), Bytes: all[c][1]}
		}
		return out, nil
	}
	for _, c := range corpora {
		states, err := e.store.DocStates(ctx, c)
		if err != nil {
			return nil, err
		}
		t := DocTotal{Documents: len(states)}
		for _, s := range states {
			t.Bytes += s.Size
		}
		out[c] = t
	}
	return out, nil
}

// DocumentPage returns up to limit documents of a corpus in path order,
// after skipping offset of them.
func (e *Engine) DocumentPage(ctx context.Context, corpus string, offset, limit int) ([]cairn.DocState, error) {
	if err := CanRead(ctx, corpus); err != nil { // scope.go
		return nil, err
	}
	if offset < 0 || limit < 0 {
		return nil, cairn.Invalidf("documents: offset %d and limit %d must not be negative", offset, limit)
	}
	if b, ok := e.store.(docBrowser); ok {
		return b.DocPage(ctx, corpus, offset, limit)
	}
	docs, err := e.Documents(ctx, corpus)
	if err != nil {
		return nil, err
	}
	docs = docs[min(offset, len(docs)):]
	return docs[:min(limit, len(docs))], nil
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
	recs, err := e.sessionsByPath(ctx, corpus, paths)
	if err != nil {
		return nil, 0, err
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

// sessionsByPath reads the records of paths, in one query where the
// store offers it.
func (e *Engine) sessionsByPath(ctx context.Context, corpus string, paths []string) ([]cairn.SessionRecord, error) {
	if b, ok := e.store.(sessionBrowser); ok {
		return b.SessionsByPath(ctx, corpus, paths)
	}
	recs := make([]cairn.SessionRecord, 0, len(paths))
	for _, p := range paths {
		r, err := e.store.Session(ctx, corpus, p)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
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
