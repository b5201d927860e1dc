package ingest

import (
	"unicode/utf8"
)

// charClass is a compiled "[...]" bracket expression.
type charClass struct {
	negate bool
	ranges []runeRange // single characters have lo == hi
}

type runeRange struct{ lo, hi rune }

func (c *charClass) match(r rune) bool {
	for _, rg := range c.ranges {
		if rg.lo <= r && r <= rg.hi {
			return !c.negate
		}
	}
	return c.negate
}

// classEnd returns the length of the bracket expression at the start of s
// (s[0] == '['), or -1 when it is not closed.
func classEnd(s string) int {
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		i++
	}
	for first := true; i < len(s); first = false {
		switch {
		case s[i] == ']' && !first:
			return i + 1
		case s[i] == '\\':
			i += 2
		default:
			i++
		}
	}
	return -1
}

// parseClass compiles the bracket expression at the start of s and returns
// it with its length in bytes.
func parseClass(s string) (*charClass, int, error) {
	c := &charClass{}
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		c.negate = true
		i++
	}
	for first := true; ; first = false {
		if i >= len(s) {
			return nil, 0, globError("unclosed [")
		}
		if s[i] == ']' && !first {
			return c, i + 1, nil
		}
		lo, n, err := classRune(s[i:])
		if err != nil {
			return nil, 0, err
		}
		i += n
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			hi, n, err = classRune(s[i+1:])
			if err != nil {
				return nil, 0, err
			}
			if hi < lo {
				return nil, 0, globError("reversed range in [ ]")
			}
			i += 1 + n
		}
		c.ranges = append(c.ranges, runeRange{lo, hi})
	}
}

// classRune reads one possibly escaped character of a bracket expression.
func classRune(s string) (rune, int, error) {
	esc := 0
	if s[0] == '\\' {
		if len(s) == 1 {
			return 0, 0, globError("trailing \\")
		}
		esc = 1
	}
	r, n := utf8.DecodeRuneInString(s[esc:])
	if r == '/' {
		return 0, 0, globError("[ ] cannot match /")
	}
	return r, esc + n, nil
}
