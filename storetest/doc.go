// Package storetest is the conformance suite every Cairn storage backend
// runs: the same documents, chunks, sessions, vectors and memories go in,
// and the same results must come out, whatever the backend keeps them in.
//
// A backend's own test file runs the whole suite with a Factory that opens
// its store in a folder:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, storetest.Factory{
//			Open: func(ctx context.Context, dir string) (storetest.Backend, error) {
//				s := mystore.New(dir)
//				return s, s.Open(ctx)
//			},
//			Snapshot: storetest.CopyFiles("index.db", "index.db-wal"),
//		})
//	}
//
// or one area of it (TestDocuments, TestLexical, TestVectors,
// TestSessions, TestMemories, TestSleep, TestConcurrency, TestDurability,
// TestEdgeCases), each a function of (t, Factory) that runs its cases as
// subtests. The suite asserts only what the root package's interfaces
// document (cairn.Store, cairn.SessionStore, cairn.MemoryStore,
// cairn.SleepStore and the interfaces of this package for what the root
// has none of yet); it never looks inside a backend. A case that needs
// more than the interfaces (a crash copy of the files) asks the Factory.
//
// Lexical cases build their queries in lexical.go only, so that a change
// of the query language (issue 15's backend-neutral lexical query) is
// made in one file.
package storetest
