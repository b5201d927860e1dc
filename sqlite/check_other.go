//go:build !unix

package sqlite

// writableDir reports whether this process may create files in dir; off
// Unix the folder is not checked (SQLite's own error stands).
func writableDir(string) bool { return true }

// writableFile reports whether this process may write the file at path;
// off Unix it is not checked.
func writableFile(string) bool { return true }
