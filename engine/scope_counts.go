package engine

import "context"

// ScopedPendingEmbeddings is PendingEmbeddings under ctx's scope: a scope
// that reads some corpora (a team server's token with a corpus grant)
// counts only the chunks of those corpora that wait for a vector. Before,
// memory_diagnostics told such a token the whole agent's backlog. Without
// a scope, or when nothing waits, it is PendingEmbeddings. A store that
// counts by corpus (corpusPendinger) answers in one query; else the
// chunks are counted through the vector lane's chunk-to-document map and
// index (the map a filtered search loads), only while chunks wait.
func (e *Engine) ScopedPendingEmbeddings(ctx context.Context) (int, error) {
	n, err := e.PendingEmbeddings(ctx)
	s, scoped := ScopeOf(ctx)
	if err != nil || n == 0 || !scoped || s.Read == nil {
		return n, err
	}
	read := map[string]bool{}
	var names []string
	for _, c := range readable(ctx, e.opts.Corpora) {
		read[c.Name] = true
		names = append(names, c.Name)
	}
	if len(names) == 0 {
		return 0, nil
	}
	if cp, ok := e.store.(corpusPendinger); ok {
		return cp.CountPendingIn(ctx, e.identity(), names)
	}
	docs, err := e.vectorDocs(ctx)
	if err != nil {
		return 0, err
	}
	e.vec.mu.RLock()
	ix := e.vec.index
	e.vec.mu.RUnlock()
	count := 0
	for chunk, refs := range docs {
		for _, d := range refs {
			if read[d.corpus] {
				if ix == nil {
					count++
				} else if _, ok := ix.Vector(chunk); !ok {
					count++
				}
				break
			}
		}
	}
	return count, nil
}

// corpusPendinger is what a store may offer ScopedPendingEmbeddings: the
// chunks of some corpora without a vector made by identity, counted in
// one query. No store has it yet (requested of sqlite and postgres).
type corpusPendinger interface {
	CountPendingIn(ctx context.Context, identity string, corpora []string) (int, error)
}
