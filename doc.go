// Package cairn is the domain vocabulary of Cairn, a long-term memory engine
// for AI agents: the types that flow between packages (Document, Chunk, Hit,
// SearchOptions, GetResult, SyncResult), the small interfaces implementations
// satisfy (the storage seam of storage.go: Store, VectorStore, SessionStore,
// SleepStore, Maintainer, gathered in Storage and opened by a Backend;
// Chunker, Embedder, LLM) and the sentinel errors.
//
// The root package imports no database driver, no HTTP client and reads no
// configuration. Implementations live in packages named for what they wrap:
// sqlite (the embedded store), chunk (the structural Markdown chunker), ingest
// (walking file corpora), search (query planning and scoring) and engine (the
// library facade: Open, Sync, Search, Get, Close, over any Backend); local
// opens the engine over sqlite with every session reader.
//
// Quick start (see engine.Example for a runnable version):
//
//	eng, err := local.Open(ctx, engine.Options{
//		Dir:     dataDir,
//		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{"/home/me/notes"}}},
//	})
//	if err != nil { ... }
//	defer eng.Close(ctx)
//	_, err = eng.Sync(ctx, nil)
//	hits, err := eng.Search(ctx, "sqlite busy timeout", nil)
package cairn
