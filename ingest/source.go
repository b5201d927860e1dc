package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
)

// Source is one resolved corpus path: the files under Root (an absolute,
// cleaned directory) whose path relative to Root matches Pattern.
//
// Prefix disambiguates the roots of a corpus that spans several. When all
// of a corpus's sources share one root (the common case: one directory, or
// "MEMORY.md" and "USER.md" in one workspace), Prefix is "" and a file's
// exposed path is its path relative to the root. Otherwise every source's
// Prefix is the base name of its Root, made unique in Paths order by
// appending "-2", "-3", ... ("notes", "notes-2"), and exposed paths are
// "<prefix>/<relative path>". Sources that share a Root share its Prefix,
// since their relative paths cannot collide.
type Source struct {
	Root    string
	Pattern string
	Prefix  string
}

// rel returns the exposed path of a path relative to s.Root.
func (s Source) rel(rootRel string) string {
	if s.Prefix == "" {
		return rootRel
	}
	return s.Prefix + "/" + rootRel
}

// Exposed returns the exposed path of the file at abs (absolute, cleaned)
// when it lies beneath s.Root and matches s.Pattern: the path Scan gives it,
// and the one it is indexed under. Excludes are not checked: the caller
// asks the index whether the file was taken.
func (s Source) Exposed(abs string) (string, bool) {
	r, err := filepath.Rel(s.Root, abs)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	r = filepath.ToSlash(r)
	g, err := CompileGlob(s.Pattern)
	if err != nil || !g.Match(r) {
		return "", false
	}
	return s.rel(r), true
}

// Resolve turns each entry of c.Paths (absolute) into a Source, per spec C3:
//
//	existing directory                        Root = it, Pattern = c.Glob
//	existing file                             Root = parent, Pattern = base name
//	missing, no glob chars (*?[{( ), ".md"    Root = parent, Pattern = base name
//	missing, no glob chars, other             Root = the path, Pattern = c.Glob
//	glob                                      Root = longest glob-free directory
//	                                          prefix, Pattern = the remainder
//
// c.Glob defaults to cairn.DefaultGlob. A base name used as a pattern is
// escaped, so glob characters in it match literally. A blank or relative
// entry, a malformed glob or exclude pattern, or two entries resolving to the
// same (Root, Pattern) return an error wrapping cairn.ErrInvalid. Resolve
// stats each path and nothing more; a missing one is not an error.
func Resolve(c cairn.Corpus) ([]Source, error) {
	glob := c.Glob
	if glob == "" {
		glob = cairn.DefaultGlob
	}
	if _, err := CompileGlob(glob); err != nil {
		return nil, fmt.Errorf("corpus %q glob: %w", c.Name, err)
	}
	globs, _ := splitExcludes(c.Exclude) // absolute entries are folders (ExcludedFolders)
	if _, err := compileExcludes(globs); err != nil {
		return nil, fmt.Errorf("corpus %q exclude: %w", c.Name, err)
	}
	if len(c.Paths) == 0 {
		return nil, cairn.Invalidf("corpus %q: paths is empty", c.Name)
	}
	srcs := make([]Source, 0, len(c.Paths))
	seen := make(map[Source]int, len(c.Paths))
	for i, p := range c.Paths {
		src, err := resolvePath(p, glob)
		if err != nil {
			return nil, fmt.Errorf("corpus %q paths[%d]: %w", c.Name, i, err)
		}
		if j, dup := seen[src]; dup {
			return nil, cairn.Invalidf("corpus %q: paths[%d] %q and paths[%d] %q resolve to the same root %s and pattern %s",
				c.Name, j, c.Paths[j], i, p, src.Root, src.Pattern)
		}
		seen[src] = i
		srcs = append(srcs, src)
	}
	assignPrefixes(srcs)
	return srcs, nil
}

func resolvePath(p, glob string) (Source, error) {
	if strings.TrimSpace(p) == "" {
		return Source{}, cairn.Invalidf("path is blank")
	}
	if !filepath.IsAbs(p) {
		return Source{}, cairn.Invalidf("path %q is not absolute", p)
	}
	p = filepath.Clean(p)
	if fi, err := os.Stat(p); err == nil {
		if fi.IsDir() {
			return Source{Root: p, Pattern: glob}, nil
		}
		return Source{Root: filepath.Dir(p), Pattern: EscapeGlob(filepath.Base(p))}, nil
	}
	if !hasGlobChars(p) {
		if strings.HasSuffix(p, ".md") {
			return Source{Root: filepath.Dir(p), Pattern: EscapeGlob(filepath.Base(p))}, nil
		}
		return Source{Root: p, Pattern: glob}, nil
	}
	segs := strings.Split(filepath.ToSlash(p), "/")
	k := 0
	for k < len(segs) && !hasGlobChars(segs[k]) {
		k++
	}
	root := filepath.FromSlash(strings.Join(segs[:k], "/"))
	if root == "" {
		root = string(filepath.Separator)
	}
	pattern := strings.Join(segs[k:], "/")
	if _, err := CompileGlob(pattern); err != nil {
		return Source{}, err
	}
	return Source{Root: root, Pattern: pattern}, nil
}

// hasGlobChars reports whether s contains a character that makes a corpus
// path a glob (spec C3). "(" counts, though Glob matches it literally.
func hasGlobChars(s string) bool {
	return strings.ContainsAny(s, "*?[{(")
}

// EscapeGlob returns a pattern that matches s literally.
func EscapeGlob(s string) string {
	if !strings.ContainsAny(s, `*?[]{},\`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{},\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// assignPrefixes sets Prefix when the sources span more than one root.
func assignPrefixes(srcs []Source) {
	prefixes := make(map[string]string) // root -> prefix
	used := make(map[string]bool)
	for _, s := range srcs {
		if _, ok := prefixes[s.Root]; ok {
			continue
		}
		base := filepath.Base(s.Root)
		if base == string(filepath.Separator) || base == "." {
			base = "root"
		}
		prefix := base
		for n := 2; used[prefix]; n++ {
			prefix = fmt.Sprintf("%s-%d", base, n)
		}
		used[prefix] = true
		prefixes[s.Root] = prefix
	}
	if len(prefixes) < 2 {
		return
	}
	for i := range srcs {
		srcs[i].Prefix = prefixes[srcs[i].Root]
	}
}

func compileExcludes(patterns []string) ([]*Glob, error) {
	globs := make([]*Glob, 0, len(patterns))
	for _, p := range patterns {
		g, err := CompileGlob(p)
		if err != nil {
			return nil, err
		}
		globs = append(globs, g)
	}
	return globs, nil
}
