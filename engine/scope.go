package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
)

// Scope is what one caller may reach of an agent: the corpora it reads
// and the corpora it writes. A team server sets it per request from the
// grant of the caller's token ([store] access, mcpserver.Access) with
// WithScope; a context without one reaches everything (the CLI, a
// personal server, background syncs).
//
// The engine narrows, before it asks the store, every corpus list that
// goes into a store query: a search's corpora (the lexical lane's SQL
// condition, the vector lane's filter applied before top-k, the session
// filter's query), a get by path, browsing, sessions, clusters, tasks
// and audits. The memories corpus is a corpus like the others: a scope
// that does not name "memories" reads no memory by any route (search,
// memory lists, memory ids, links, explore, gather's memory searches).
// A caller that names a corpus outside its scope gets an error matching
// cairn.ErrForbidden naming the corpus and the grant, whether the corpus
// exists or not (so the answer tells nothing of the agent's other
// corpora); a caller that names none gets its scope.
type Scope struct {
	// Grant names the grant (the access file's token name), in messages.
	Grant string
	// Read lists the corpora the caller may read; nil: every corpus.
	// Names match ignoring case, as corpus selections do.
	Read []string
	// Write lists the corpora it may change (sync, remember into
	// "memories", curation state of a corpus); nil: every corpus it
	// reads; empty: none (a read-only grant).
	Write []string
}

type scopeKey struct{}

// WithScope returns ctx carrying s: the engine's calls under it reach
// only what s grants.
func WithScope(ctx context.Context, s Scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// ScopeOf returns the scope ctx carries; false when it carries none
// (everything is reachable).
func ScopeOf(ctx context.Context) (Scope, bool) {
	s, ok := ctx.Value(scopeKey{}).(Scope)
	return s, ok
}

func named(list []string, corpus string) bool {
	return slices.ContainsFunc(list, func(n string) bool { return strings.EqualFold(n, corpus) })
}

// Reads reports whether the scope reads corpus.
func (s Scope) Reads(corpus string) bool { return s.Read == nil || named(s.Read, corpus) }

// Writes reports whether the scope changes corpus.
func (s Scope) Writes(corpus string) bool {
	if s.Write == nil {
		return s.Reads(corpus)
	}
	return named(s.Write, corpus) && s.Reads(corpus)
}

// CanRead returns nil when ctx's scope reads corpus, else an error
// matching cairn.ErrForbidden naming the corpus and the grant.
func CanRead(ctx context.Context, corpus string) error {
	s, ok := ScopeOf(ctx)
	if !ok || s.Reads(corpus) {
		return nil
	}
	return cairn.Forbiddenf("read corpus %q: token %q may not read it (it may read: %s)", corpus, s.Grant, list(s.Read))
}

// CanWrite returns nil when ctx's scope changes corpus, else an error
// matching cairn.ErrForbidden naming the corpus and the grant.
func CanWrite(ctx context.Context, corpus string) error {
	s, ok := ScopeOf(ctx)
	if !ok || s.Writes(corpus) {
		return nil
	}
	w := s.Write
	if w == nil {
		w = s.Read
	}
	return cairn.Forbiddenf("change corpus %q: token %q may not change it (it may change: %s)", corpus, s.Grant, list(w))
}

func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// readable keeps the corpora ctx's scope reads.
func readable(ctx context.Context, cs []cairn.Corpus) []cairn.Corpus {
	s, ok := ScopeOf(ctx)
	if !ok || s.Read == nil {
		return cs
	}
	return slices.DeleteFunc(slices.Clone(cs), func(c cairn.Corpus) bool { return !s.Reads(c.Name) })
}

// selectScoped selects names from corpora as cairn.SelectCorpora does,
// within ctx's scope: check (CanRead or CanWrite) refuses a name outside
// it first, and no names select every corpus the scope reaches (none:
// an empty selection, no error).
func selectScoped(ctx context.Context, corpora []cairn.Corpus, names []string, check func(context.Context, string) error) ([]cairn.Corpus, error) {
	if _, ok := ScopeOf(ctx); !ok {
		return cairn.SelectCorpora(corpora, names)
	}
	for _, n := range names {
		if n == "all" {
			continue
		}
		if err := check(ctx, n); err != nil {
			return nil, err
		}
	}
	in := slices.DeleteFunc(slices.Clone(corpora), func(c cairn.Corpus) bool {
		return c.Kind != cairn.KindSkills && check(ctx, c.Name) != nil
	})
	if !slices.ContainsFunc(in, func(c cairn.Corpus) bool { return c.Kind != cairn.KindSkills }) && len(corpora) > 0 {
		return nil, nil
	}
	return cairn.SelectCorpora(in, names)
}

// canReadAll is CanRead of each of corpora.
func canReadAll(ctx context.Context, corpora []string) error {
	for _, c := range corpora {
		if err := CanRead(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// canWriteAll is CanWrite of each of corpora.
func canWriteAll(ctx context.Context, corpora []string) error {
	for _, c := range corpora {
		if err := CanWrite(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// readList is the corpora ctx's scope reads, for a store query's corpus
// condition; nil: every corpus.
func readList(ctx context.Context) []string {
	if s, ok := ScopeOf(ctx); ok && s.Read != nil {
		return slices.Clone(s.Read)
	}
	return nil
}
