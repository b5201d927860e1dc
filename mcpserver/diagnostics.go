package mcpserver

import (
	"context"
	"fmt"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/transcript"
)

// Diagnostics runs memory_diagnostics (spec C16). It never calls a model.
// The judge and the whisperers are not part of Cairn's local mode yet, so
// they report disabled with zero counts.
func (a *Agent) Diagnostics(ctx context.Context, _ Empty) (*DiagnosticsOut, error) {
	scope := Scope{Agent: a.name, Corpora: readableNames(ctx, a.searchable())}
	out := &DiagnosticsOut{
		Status:     "ok",
		Credential: "disabled",
		Whisperers: Whisperers{Skill: map[string]int64{}, Memory: map[string]int64{},
			Telemetry: a.tel.snapshot("memorySearch", "memoryWhisperer", "vector"), Scope: scope},
		Background: a.backgroundFor(ctx),
	}
	a.enhancedDiag(out) // whisper.go
	a.curationDiag(out) // curation_judged.go
	out.Index = a.indexDiag(ctx, scope)
	return out, nil
}

// readableNames is names narrowed to the corpora the request's grant reads
// (all of them without one), never nil: a token limited to some corpora is
// not told the names of the others.
func readableNames(ctx context.Context, names []string) []string {
	out := []string{}
	for _, n := range names {
		if engine.CanRead(ctx, n) == nil {
			out = append(out, n)
		}
	}
	return out
}

// readsSessions reports whether the request's grant reads the sessions
// corpus (true without one configured: there is nothing to hide).
func (a *Agent) readsSessions(ctx context.Context) bool {
	name, ok := a.sessionsCorpus()
	return !ok || engine.CanRead(ctx, name) == nil
}

// backgroundFor is the server's background work as the request's grant
// may see it: the periodic sync is the session sync, left out for a grant
// that does not read the sessions corpus.
func (a *Agent) backgroundFor(ctx context.Context) *Background {
	b := a.background()
	if b != nil && b.Periodic != nil && !a.readsSessions(ctx) {
		b.Periodic = nil
	}
	return b
}

func (a *Agent) indexDiag(ctx context.Context, scope Scope) IndexDiag {
	d := IndexDiag{ProjectorVersion: transcript.Version, Scope: scope,
		Retrieval: Retrieval{Mode: cairn.ModeLexical, VectorsOff: a.EmbedderError}}
	if err := a.unavailable(); err != nil {
		return IndexDiag{Status: "unavailable", Error: err.Error(), Scope: scope, Warnings: []string{"index unavailable: " + err.Error()}}
	}
	stats, err := a.eng.IndexStats(ctx)
	if err != nil {
		return IndexDiag{Status: "unavailable", Error: err.Error(), Scope: scope}
	}
	d.Retrieval.Documents, d.Retrieval.Chunks = stats.Documents, stats.Chunks
	if emb := a.eng.Embedder(); emb != nil {
		id := emb.Identity()
		d.Retrieval.Mode, d.Retrieval.Embedder = cairn.ModeHybrid, id.Provider+" "+id.Model
		if d.NeedsEmbedding, err = a.eng.ScopedPendingEmbeddings(ctx); err != nil { // the grant's corpora only
			return IndexDiag{Status: "unavailable", Error: err.Error(), Scope: scope}
		}
		d.EmbeddingReady = d.NeedsEmbedding == 0
	}
	if engine.CanRead(ctx, cairn.MemoriesCorpus) == nil { // a grant without memories: no counts, not an error
		mc, err := a.eng.CountMemories(ctx)
		if err != nil {
			return IndexDiag{Status: "unavailable", Error: err.Error(), Scope: scope}
		}
		if mc.Total > 0 {
			d.Memories = &Memories{Total: mc.Total, ByKind: mc.ByKind, ByStatus: mc.ByStatus}
		}
	}
	if name, ok := a.sessionsCorpus(); ok && engine.CanRead(ctx, name) == nil {
		d.SessionsNeedingProjection = a.transcriptsChanged(ctx)
	}
	if b := a.background(); b != nil && b.Watcher != nil {
		d.WatchError = b.Watcher.LastError
	}
	d.Warnings = a.diagWarnings(ctx, d)
	return d
}

// diagWarnings lists what keeps search from answering fully (issue 14
// items 4 and 5): no corpus, an empty or never-synced index, the first
// sync running or failed, vectors off or pending.
func (a *Agent) diagWarnings(ctx context.Context, d IndexDiag) []string {
	var out []string
	if len(a.searchable()) == 0 {
		out = append(out, a.noCorpus().Error())
	} else {
		out = append(out, a.notices(ctx, d.Retrieval.Documents == 0)...)
	}
	if a.EmbedderError != "" {
		out = append(out, "vectors are off, search is lexical only: the embedder could not load: "+a.EmbedderError)
	} else if d.NeedsEmbedding > 0 {
		out = append(out, fmt.Sprintf("%d chunks wait for vectors: hybrid search answers from the lexical lane until they are embedded", d.NeedsEmbedding))
	}
	return out
}

// transcriptsChanged counts transcript files whose size or modification
// time differ from what the last session sync read, new files included:
// what the next sync will project (Engine.TranscriptsChanged).
func (a *Agent) transcriptsChanged(ctx context.Context) int {
	if _, ok := a.sessionsCorpus(); !ok || a.eng == nil {
		return 0
	}
	return a.eng.TranscriptsChanged(ctx)
}
