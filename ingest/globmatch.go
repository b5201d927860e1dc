package ingest

import (
	"strings"
	"unicode/utf8"
)

// Match reports whether the slash-separated relative path name matches g.
func (g *Glob) Match(name string) bool {
	for i := range g.alts {
		if g.alts[i].match(name) {
			return true
		}
	}
	return false
}

// CanDescend reports whether some path below directory dir (slash-separated,
// relative, "" for the root) could match g. A walk uses it to skip
// directories a pattern such as "MEMORY.md" or "notes/*.md" cannot reach.
func (g *Glob) CanDescend(dir string) bool {
	if dir == "" {
		return true
	}
	for i := range g.alts {
		if g.alts[i].canDescend(dir) {
			return true
		}
	}
	return false
}

// match matches name against one alternative. Segments after the last "**"
// match the name's last segments directly (so "**/*.md" costs one suffix
// test); the rest goes to matchSegs.
func (a *alt) match(name string) bool {
	if a.tail < 0 {
		return matchSegs(a.segs, name)
	}
	end := len(name)
	for i := len(a.segs) - 1; i >= len(a.segs)-a.tail; i-- {
		if end < 0 {
			return false
		}
		start := strings.LastIndexByte(name[:end], '/') + 1
		if !a.segs[i].match(name[start:end]) {
			return false
		}
		end = start - 1
	}
	if end < 0 {
		end = 0 // every segment consumed: the "**" head sees none
	}
	return matchSegs(a.segs[:len(a.segs)-a.tail], name[:end])
}

// matchSegs matches segment by segment. "**" works like "*" in wildcard
// matching one level up: the other segments each match exactly one name
// segment, so a single backtrack point (the latest "**") is enough.
func matchSegs(segs []segment, name string) bool {
	pi, ni := 0, 0
	if name == "" {
		ni = 1 // no segments at all
	}
	starPi, starNi := -1, 0
	for {
		if pi < len(segs) {
			if segs[pi].kind == segGlobstar {
				if pi == len(segs)-1 {
					return true // a trailing "**" takes whatever is left
				}
				starPi, starNi = pi, ni
				pi++
				continue
			}
			if ni <= len(name) {
				end := segEnd(name, ni)
				if segs[pi].match(name[ni:end]) {
					pi, ni = pi+1, end+1
					continue
				}
			}
		} else if ni > len(name) {
			return true
		}
		if starPi < 0 || starNi > len(name) {
			return false
		}
		starNi = segEnd(name, starNi) + 1
		pi, ni = starPi+1, starNi
	}
}

func (a *alt) canDescend(dir string) bool {
	segs, pi := a.segs, 0
	for ni := 0; ni <= len(dir); pi++ {
		if pi == len(segs) {
			return false
		}
		if segs[pi].kind == segGlobstar {
			return true
		}
		end := segEnd(dir, ni)
		if !segs[pi].match(dir[ni:end]) {
			return false
		}
		ni = end + 1
	}
	return pi < len(segs)
}

// segEnd returns the end of the segment of name starting at i.
func segEnd(name string, i int) int {
	if j := strings.IndexByte(name[i:], '/'); j >= 0 {
		return i + j
	}
	return len(name)
}

func (s *segment) match(name string) bool {
	switch s.kind {
	case segLiteral:
		return name == s.lit
	case segAny:
		return true
	case segSuffix:
		return strings.HasSuffix(name, s.lit)
	case segPrefix:
		return strings.HasPrefix(name, s.lit)
	}
	return matchTokens(s.toks, name)
}

// matchTokens is greedy wildcard matching with one backtrack point (the
// latest "*"), which is exact because every other token has a fixed length
// in characters.
func matchTokens(toks []token, s string) bool {
	ti, si := 0, 0
	starTi, starSi := -1, 0
	for {
		if ti < len(toks) {
			t := &toks[ti]
			switch t.kind {
			case tokStar:
				starTi, starSi = ti, si
				ti++
				continue
			case tokLit:
				if strings.HasPrefix(s[si:], t.lit) {
					ti, si = ti+1, si+len(t.lit)
					continue
				}
			default: // tokOne, tokClass
				if si < len(s) {
					r, n := utf8.DecodeRuneInString(s[si:])
					if t.kind == tokOne || t.class.match(r) {
						ti, si = ti+1, si+n
						continue
					}
				}
			}
		} else if si == len(s) {
			return true
		}
		if starTi < 0 || starSi >= len(s) {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starSi:])
		starSi += n
		ti, si = starTi+1, starSi
	}
}
