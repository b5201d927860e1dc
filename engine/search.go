package engine

import (
	"context"
	"slices"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/search"
)

// sessionScope applies a session filter to the selected corpora. The
// filter constrains session hits only (spec C11): the sessions corpora are
// narrowed to the sessions that match, and the other selected corpora
// (notes, memories) stay eligible as they are. Sessions corpora with no
// matching session leave the selection; when nothing is left the search
// has no results ("only sessions selected and none match").
func (e *Engine) sessionScope(ctx context.Context, sel []cairn.Corpus, f *cairn.SessionFilter) (search.Scope, []cairn.Corpus, error) {
	if err := validFilter(f); err != nil {
		return search.Scope{}, nil, err
	}
	var names []string
	for _, c := range sel {
		if c.Kind == cairn.KindSessions {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return search.Scope{}, sel, nil
	}
	paths, err := e.store.FilterSessions(ctx, names, *f)
	if err != nil {
		return search.Scope{}, nil, err
	}
	if len(paths) == 0 {
		return search.Scope{}, slices.DeleteFunc(sel, func(c cairn.Corpus) bool { return c.Kind == cairn.KindSessions }), nil
	}
	return search.Scope{Paths: paths, PathCorpora: names}, sel, nil
}
