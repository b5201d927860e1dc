package ingest

import "strings"

// ValidRel reports whether rel may name an indexed document in an exact
// read (spec C13): a slash-separated relative path ending in ".md" with no
// NUL byte, no backslash and no empty, "." or ".." segment, so it cannot
// escape its root lexically. Whether it matches the source pattern, and
// whether symlinks let it escape, are for the caller to check.
func ValidRel(rel string) bool {
	if rel == "" || !strings.HasSuffix(rel, ".md") || strings.ContainsAny(rel, "\x00\\") {
		return false
	}
	for seg := range strings.SplitSeq(rel, "/") {
		switch seg {
		case "", ".", "..":
			return false // covers a leading "/" (absolute) and "//"
		}
	}
	return true
}
