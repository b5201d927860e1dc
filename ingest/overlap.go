package ingest

import (
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
)

// Overlap reports a folder under which one file could be taken by both
// files corpora a and b, so it would be indexed, and returned by searches,
// twice. It reads nothing from disk beyond Resolve's stats: two sources
// overlap when one's root lies within (or is) the other's and the outer
// source's pattern and excludes can reach the inner root. Patterns are
// told apart only where that is plain: a single file the outer pattern
// does not match, or two patterns whose last segments are "*.<ext>" with
// different extensions. Otherwise the answer errs towards overlap, which
// is only a warning.
func Overlap(a, b cairn.Corpus) (dir string, ok bool) {
	if a.Kind != cairn.KindFiles || b.Kind != cairn.KindFiles {
		return "", false
	}
	sa, err := Resolve(a)
	if err != nil {
		return "", false
	}
	sb, err := Resolve(b)
	if err != nil {
		return "", false
	}
	for _, x := range sa {
		for _, y := range sb {
			if d, ok := sourcesOverlap(x, y, a.Exclude, b.Exclude); ok {
				return d, true
			}
		}
	}
	return "", false
}

func sourcesOverlap(x, y Source, xex, yex []string) (string, bool) {
	if within(x.Root, y.Root) {
		return reaches(x, y, xex)
	}
	if within(y.Root, x.Root) {
		return reaches(y, x, yex)
	}
	return "", false
}

// reaches reports whether outer's pattern can take files of inner (whose
// root lies within outer's) and names inner's root.
func reaches(outer, inner Source, excludes []string) (string, bool) {
	rel, err := filepath.Rel(outer.Root, inner.Root)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == "." {
		rel = ""
	}
	og, err := CompileGlob(outer.Pattern)
	if err != nil || !og.CanDescend(rel) {
		return "", false
	}
	globs, _ := splitExcludes(excludes)
	ex, _ := compileExcludes(globs)
	if name, ok := literal(inner.Pattern); ok {
		full := joinRel(rel, name)
		if !og.Match(full) || matchesAny(ex, full) {
			return "", false
		}
		return filepath.Join(inner.Root, filepath.FromSlash(name)), true
	}
	if rel != "" && matchesAny(ex, rel) {
		return "", false
	}
	if e1, e2 := extOf(outer.Pattern), extOf(inner.Pattern); e1 != "" && e2 != "" && e1 != e2 {
		return "", false
	}
	return inner.Root, true
}

func matchesAny(globs []*Glob, rel string) bool {
	for _, g := range globs {
		if g.Match(rel) {
			return true
		}
	}
	return false
}

// literal returns the name an escaped pattern without glob characters
// matches.
func literal(pattern string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			i++
			b.WriteByte(pattern[i])
		case strings.IndexByte("*?[{", c) >= 0:
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// extOf returns ".ext" when pattern's last segment is "*.ext" (ext without
// glob characters), else "".
func extOf(pattern string) string {
	last := pattern[strings.LastIndexByte(pattern, '/')+1:]
	rest, ok := strings.CutPrefix(last, "*.")
	if !ok || rest == "" || strings.ContainsAny(rest, `*?[]{},\/.`) {
		return ""
	}
	return "." + rest
}
