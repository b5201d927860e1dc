//go:build !sqlite_fts5 && !fts5

package sqlite

// The index needs SQLite's FTS5 extension, which mattn/go-sqlite3 compiles
// only with a build tag. This reference fails the build with a name that says
// what to do.
var _ = build_with_tags_sqlite_fts5_see_README
