package ingest

import (
	"strings"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
)

// maxAlternatives bounds brace expansion so a hostile pattern such as
// "{a,b}{a,b}{a,b}..." cannot blow up memory.
const maxAlternatives = 1024

// Glob is a compiled glob pattern over slash-separated relative paths.
//
// Syntax:
//   - "**" as a whole segment matches zero or more path segments, so
//     "**/*.md" matches "a.md" and "a/b/c.md", and "drafts/**" matches
//     "drafts" itself as well as everything below it;
//   - "*" matches any run of characters within one segment, "?" one
//     character; both match a leading dot (dotfiles are not special);
//   - "[abc]", "[a-z]", "[!a-z]" or "[^a-z]" match one character of (or
//     not of) a class; "]" right after "[" or "[!" is a member;
//   - "{a,b/c}" matches any alternative; alternatives may nest and may
//     contain "/";
//   - "\" makes the next character literal.
//
// A pattern is anchored at both ends: it must match the whole path.
// Matching is case-sensitive. "(" and ")" have no special meaning.
type Glob struct {
	pattern string
	alts    []alt // brace-expanded alternatives
}

// alt is one brace-free alternative: a sequence of path segment matchers.
type alt struct {
	segs []segment
	tail int // segments after the last "**"; -1 without "**"
}

type segKind uint8

const (
	segGlobstar segKind = iota // "**": zero or more segments
	segLiteral                 // exact text
	segAny                     // "*": any segment
	segSuffix                  // "*" + literal
	segPrefix                  // literal + "*"
	segTokens                  // anything else
)

type segment struct {
	kind segKind
	lit  string
	toks []token
}

type tokKind uint8

const (
	tokLit   tokKind = iota
	tokOne           // "?"
	tokStar          // "*"
	tokClass         // "[...]"
)

type token struct {
	kind  tokKind
	lit   string
	class *charClass
}

// CompileGlob compiles a pattern. A malformed pattern (empty, absolute,
// an unclosed "[" or "{", a reversed range, a trailing "\", an empty, "."
// or ".." segment) returns an error wrapping cairn.ErrInvalid.
func CompileGlob(pattern string) (*Glob, error) {
	if pattern == "" {
		return nil, cairn.Invalidf("glob pattern is empty")
	}
	if strings.HasPrefix(pattern, "/") {
		return nil, cairn.Invalidf("glob %q: must be relative (no leading /)", pattern)
	}
	var expanded []string
	if err := expandBraces(pattern, &expanded); err != nil {
		return nil, cairn.Invalidf("glob %q: %s", pattern, err)
	}
	g := &Glob{pattern: pattern, alts: make([]alt, 0, len(expanded))}
	for _, s := range expanded {
		a, err := compileAlt(s)
		if err != nil {
			return nil, cairn.Invalidf("glob %q: %s", pattern, err)
		}
		g.alts = append(g.alts, a)
	}
	return g, nil
}

// MustCompileGlob is CompileGlob for patterns known to be valid; it panics
// on a malformed one.
func MustCompileGlob(pattern string) *Glob {
	g, err := CompileGlob(pattern)
	if err != nil {
		panic(err)
	}
	return g
}

// Match reports whether name matches pattern. A malformed pattern matches
// nothing. It compiles the pattern on every call: use CompileGlob in loops.
func Match(pattern, name string) bool {
	g, err := CompileGlob(pattern)
	if err != nil {
		return false
	}
	return g.Match(name)
}

// String returns the source pattern.
func (g *Glob) String() string { return g.pattern }

// globError is a compile error message; CompileGlob wraps it in ErrInvalid.
type globError string

func (e globError) Error() string { return string(e) }

// compileAlt splits a brace-free pattern into segments and each segment into
// tokens.
func compileAlt(s string) (alt, error) {
	var (
		segs     []segment
		toks     []token
		lit      strings.Builder
		segStart int
	)
	flush := func() {
		if lit.Len() > 0 {
			toks = append(toks, token{kind: tokLit, lit: lit.String()})
			lit.Reset()
		}
	}
	endSeg := func(end int) error {
		flush()
		seg, err := makeSegment(s[segStart:end], toks)
		if err != nil {
			return err
		}
		if seg.kind != segGlobstar || len(segs) == 0 || segs[len(segs)-1].kind != segGlobstar {
			segs = append(segs, seg) // "**/**" collapses to "**"
		}
		toks = nil
		segStart = end + 1
		return nil
	}
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '\\':
			if i+1 >= len(s) {
				return alt{}, globError("trailing \\")
			}
			_, n := utf8.DecodeRuneInString(s[i+1:])
			lit.WriteString(s[i+1 : i+1+n])
			i += 1 + n
		case '*':
			flush()
			if len(toks) == 0 || toks[len(toks)-1].kind != tokStar {
				toks = append(toks, token{kind: tokStar})
			}
			i++
		case '?':
			flush()
			toks = append(toks, token{kind: tokOne})
			i++
		case '[':
			flush()
			cls, n, err := parseClass(s[i:])
			if err != nil {
				return alt{}, err
			}
			toks = append(toks, token{kind: tokClass, class: cls})
			i += n
		case '/':
			if err := endSeg(i); err != nil {
				return alt{}, err
			}
			i++
		default:
			lit.WriteByte(c)
			i++
		}
	}
	if err := endSeg(len(s)); err != nil {
		return alt{}, err
	}
	a := alt{segs: segs, tail: -1}
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i].kind == segGlobstar {
			a.tail = len(segs) - 1 - i
			break
		}
	}
	return a, nil
}

// makeSegment classifies a segment so common shapes match without the
// general token matcher.
func makeSegment(raw string, toks []token) (segment, error) {
	switch raw {
	case "":
		return segment{}, globError("empty path segment")
	case ".", "..":
		return segment{}, globError("\".\" and \"..\" segments are not allowed")
	case "**":
		return segment{kind: segGlobstar}, nil
	}
	switch {
	case len(toks) == 1 && toks[0].kind == tokLit:
		return segment{kind: segLiteral, lit: toks[0].lit}, nil
	case len(toks) == 1 && toks[0].kind == tokStar:
		return segment{kind: segAny}, nil
	case len(toks) == 2 && toks[0].kind == tokStar && toks[1].kind == tokLit:
		return segment{kind: segSuffix, lit: toks[1].lit}, nil
	case len(toks) == 2 && toks[0].kind == tokLit && toks[1].kind == tokStar:
		return segment{kind: segPrefix, lit: toks[0].lit}, nil
	}
	return segment{kind: segTokens, toks: toks}, nil
}

// expandBraces appends to out every brace-free alternative of p. Escapes and
// character classes are kept as they are for compileAlt.
func expandBraces(p string, out *[]string) error {
	open := -1
	for i := 0; i < len(p) && open < 0; i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			if end := classEnd(p[i:]); end > 0 {
				i += end - 1
			}
		case '{':
			open = i
		}
	}
	if open < 0 {
		if len(*out) >= maxAlternatives {
			return globError("too many {} alternatives")
		}
		*out = append(*out, p)
		return nil
	}
	parts, closeAt, err := splitBraces(p, open)
	if err != nil {
		return err
	}
	for _, part := range parts {
		if err := expandBraces(p[:open]+part+p[closeAt+1:], out); err != nil {
			return err
		}
	}
	return nil
}

// splitBraces splits the brace group opening at p[open] on its top-level
// commas and returns the parts and the index of the closing brace.
func splitBraces(p string, open int) ([]string, int, error) {
	var parts []string
	depth, start := 0, open+1
	for i := open + 1; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			if end := classEnd(p[i:]); end > 0 {
				i += end - 1
			}
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return append(parts, p[start:i]), i, nil
			}
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, p[start:i])
				start = i + 1
			}
		}
	}
	return nil, 0, globError("unclosed {")
}
