// Package storetest is the conformance suite every Cairn storage backend
// runs: the same documents, chunks, sessions, vectors and memories go in,
// and the same results must come out, whatever the backend keeps them in.
//
// A backend's own test file runs the whole suite with a Factory holding
// its cairn.Backend (the suite opens a cairn.Storage per case, each in a
// folder of its own):
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, storetest.Factory{
//			Backend:  mybackend.Backend{},
//			Snapshot: storetest.CopyFiles("index.db", "index.db-wal"),
//			Damage:   func(dir string) error { ... }, // make the index unreadable
//		})
//	}
//
// or one area of it (TestDocuments, TestLexical, TestVectors,
// TestSessions, TestMemories, TestSleep, TestMaintenance, TestBackendOps,
// TestConcurrency, TestDurability, TestEdgeCases), each a function of
// (t, Factory) that runs its cases as subtests. Snapshot and Damage are
// optional: without them the crash-copy and damaged-index cases skip and
// say why. sqlite/storetest_test.go is the SQLite backend's; it runs in
// CI with the sqlite package, under the race detector too.
//
// The suite asserts only what the root package's interfaces document
// (cairn.Storage and its parts: Store, VectorStore, SessionStore,
// MemoryStore, SleepStore, Maintainer; cairn.Backend and
// cairn.MemoryReader), through those interfaces; it never looks inside a
// backend. A new behaviour of an interface gets its case here, so that
// every backend is held to it.
//
// Lexical cases build their queries in lexical.go only, so that a change
// of the query language (issue 15's backend-neutral lexical query) is
// made in one file.
package storetest
