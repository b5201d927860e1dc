//go:build !sqlite_fts5 && !fts5 && !libsqlite3

package sqlite

// Cairn's index is an FTS5 table, and github.com/mattn/go-sqlite3 compiles
// SQLite with FTS5 only under its sqlite_fts5 (or fts5) build tag: the
// option is a `#cgo CFLAGS: -DSQLITE_ENABLE_FTS5` line in a file of that
// package, and cgo flags apply only to the package that declares them, so
// nothing in this module can turn FTS5 on for the driver's copy of SQLite
// (compiling a second SQLite here would clash with the driver's symbols,
// and go.mod cannot set build tags). A binary built without the tag used to
// compile and then fail at the first sync; this file makes the build
// itself fail, naming the fix, for go build, go install, go test and
// go vet alike:
//
//	sqlite/notag.go:NN:13: cannot use "cairn needs -tags sqlite_fts5: ..." (untyped string constant) as int value
//
// With the libsqlite3 tag the system's SQLite is used instead; whether it
// has FTS5 is known only at run time, and Open says so when it has not.
// The message stays under 72 characters so the compiler prints it whole.
var _ int = "cairn needs -tags sqlite_fts5: go build -tags sqlite_fts5 ./cmd/cairn"
