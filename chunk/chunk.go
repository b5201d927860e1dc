package chunk

import (
	"strings"

	"github.com/cairnmemory/cairn"
)

// Version is the chunker version. It is part of the index feature version:
// a store re-chunks and re-embeds every document when it changes, so bump it
// with any change that moves a chunk boundary, a token count or a noise flag.
const Version = 1

// Default chunk sizes in estimated tokens (see EstimateTokens).
const (
	DefaultMinTokens = 100 // target: a smaller chunk absorbs what follows
	DefaultMaxTokens = 300 // ceiling, except for oversized code and tables
)

// Chunker is the structural Markdown chunker. The zero value is not ready:
// use New, then tune the fields.
type Chunker struct {
	// MinTokens is the target size below which a chunk keeps absorbing the
	// next atom of its section when that keeps it within MaxTokens.
	MinTokens int
	// MaxTokens is the hard ceiling; only a fenced code block or a table
	// larger than it (with at most its headings) exceeds it.
	MaxTokens int
}

var _ cairn.Chunker = (*Chunker)(nil)

// New returns a Chunker with the default sizes.
func New() *Chunker {
	return &Chunker{MinTokens: DefaultMinTokens, MaxTokens: DefaultMaxTokens}
}

// limits returns usable sizes: defaults for non-positive values and a
// minimum no larger than the maximum.
func (c *Chunker) limits() (lo, hi int) {
	lo, hi = c.MinTokens, c.MaxTokens
	if hi <= 0 {
		hi = DefaultMaxTokens
	}
	if lo <= 0 {
		lo = DefaultMinTokens
	}
	return min(lo, hi), hi
}

// Chunk splits text into chunks that cover it exactly, in order. Empty text
// has no chunks.
func (c *Chunker) Chunk(text string) []cairn.Chunk {
	if text == "" {
		return nil
	}
	lo, hi := c.limits()
	p := &packer{text: text, min: lo, max: hi, line: 1, start: -1}
	for _, a := range scan(text) {
		if a.hard && !p.empty() && !p.carries(a) {
			p.flush()
		}
		p.add(a)
	}
	p.flush()
	return p.out
}

// packer packs atoms into chunks. The open chunk is text[start:end] with
// tokens tokens; start is -1 when none is open.
type packer struct {
	text     string
	min, max int
	out      []cairn.Chunk
	line     int // line number where the next chunk starts

	start, end int
	tokens     int
	headOnly   bool // the open chunk holds only headings
	level      int  // level of its last heading
}

func (p *packer) empty() bool { return p.start < 0 }

// carries reports whether a heading-only chunk stays open across the hard
// boundary at a: a is a deeper heading, so a title goes with its first
// subsection ("# Guide" with "## Install" and its text).
func (p *packer) carries(a atom) bool {
	return p.headOnly && a.kind == kindHeading && a.level > p.level && p.tokens+a.tokens <= p.max
}

// open starts a chunk at text[pos:end].
func (p *packer) open(pos, end, tokens int) {
	p.start, p.end, p.tokens, p.headOnly = pos, end, tokens, false
}

// appendAtom adds atom a to the open chunk, opening one if none is.
func (p *packer) appendAtom(a atom) {
	if p.empty() {
		p.open(a.pos, a.end, a.tokens)
		p.headOnly = a.kind == kindHeading
	} else {
		p.end, p.tokens = a.end, p.tokens+a.tokens
		p.headOnly = p.headOnly && a.kind == kindHeading
	}
	if a.kind == kindHeading {
		p.level = a.level
	}
}

// add packs atom a: into the open chunk while it fits, else into a new one.
// An oversized code block or table takes a heading-only chunk along (one
// that merely does not fit with it leaves the headings as their own chunk);
// an oversized prose atom, or one that does not fit after a heading-only
// chunk, is split.
func (p *packer) add(a atom) {
	switch {
	case p.empty() && (a.tokens <= p.max || !a.splittable()):
		p.appendAtom(a)
	case p.empty():
		p.split(a)
	case p.tokens+a.tokens <= p.max:
		p.appendAtom(a)
	case !a.splittable():
		if !p.headOnly || a.tokens <= p.max {
			p.flush()
		}
		p.appendAtom(a)
	case a.tokens > p.max || p.headOnly:
		p.split(a)
	default:
		p.flush()
		p.appendAtom(a)
	}
}

// split packs a prose atom that does not fit: its first piece fills the open
// chunk when that chunk is below the minimum or heading-only (unless only a
// hard cut would do), then pieces of at most max tokens follow; the last
// stays open to absorb what comes next.
func (p *packer) split(a atom) {
	pos := a.pos
	if !p.empty() {
		if p.tokens < p.min || p.headOnly {
			n, t, hard := cut(p.text[pos:a.end], p.max-p.tokens)
			if !hard {
				p.end, p.tokens, p.headOnly = pos+n, p.tokens+t, false
				pos += n
			}
		}
		if pos == a.end {
			return
		}
		p.flush()
	}
	for {
		n, t, _ := cut(p.text[pos:a.end], p.max)
		p.open(pos, pos+n, t)
		if pos += n; pos >= a.end {
			return
		}
		p.flush()
	}
}

// flush emits the open chunk, if any.
func (p *packer) flush() {
	if p.empty() {
		return
	}
	s := p.text[p.start:p.end]
	nl := strings.Count(s, "\n")
	last := p.line + nl
	if s[len(s)-1] == '\n' {
		last--
	}
	p.out = append(p.out, cairn.Chunk{
		Seq:       len(p.out),
		Pos:       p.start,
		Len:       len(s),
		StartLine: p.line,
		EndLine:   last,
		Tokens:    p.tokens,
		Noise:     isNoise(s),
	})
	p.line += nl
	p.start, p.headOnly = -1, false
}
