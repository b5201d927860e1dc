package chunk

import (
	"strings"

	"github.com/cairnmemory/cairn"
)

// Version is the chunker version. It is part of the index feature version:
// a store re-chunks and re-embeds every document when it changes, so bump it
// with any change that moves a chunk boundary, a token count or a noise flag
// of ordinary Markdown. The byte ceiling and noise runs (ux U8) left it at 1:
// of the 561 files of the issue 19 docs corpus they change one (two rules in
// a row became one noise chunk), so a bump would re-embed every index for
// nothing; a note chunked before them keeps its chunks until it changes.
const Version = 1

// Default chunk sizes in estimated tokens (see EstimateTokens), and the
// byte ceiling no chunk passes.
const (
	DefaultMinTokens = 100      // target: a smaller chunk absorbs what follows
	DefaultMaxTokens = 300      // ceiling, except for oversized code and tables
	DefaultMaxBytes  = 32 << 10 // ceiling of every chunk, code and tables too
)

// minMaxBytes is the smallest usable MaxBytes: room for any code point.
const minMaxBytes = 16

// Chunker is the structural Markdown chunker. The zero value is not ready:
// use New, then tune the fields.
type Chunker struct {
	// MinTokens is the target size below which a chunk keeps absorbing the
	// next atom of its section when that keeps it within MaxTokens.
	MinTokens int
	// MaxTokens is the hard ceiling; only a fenced code block or a table
	// larger than it (with at most its headings) exceeds it.
	MaxTokens int
	// MaxBytes is the ceiling in bytes of every chunk, a fenced code block
	// or table included: a larger atom is cut at line ends, and a longer
	// line between code points. Zero means DefaultMaxBytes. It bounds what
	// one chunk costs to store, show and embed whatever the note holds (a
	// generated one-line table, an unclosed fence of megabytes).
	MaxBytes int
}

var _ cairn.Chunker = (*Chunker)(nil)

// New returns a Chunker with the default sizes.
func New() *Chunker {
	return &Chunker{MinTokens: DefaultMinTokens, MaxTokens: DefaultMaxTokens, MaxBytes: DefaultMaxBytes}
}

// limits returns usable sizes: defaults for non-positive values, a
// minimum no larger than the maximum and a byte ceiling of at least
// minMaxBytes.
func (c *Chunker) limits() (lo, hi, bytes int) {
	lo, hi, bytes = c.MinTokens, c.MaxTokens, c.MaxBytes
	if hi <= 0 {
		hi = DefaultMaxTokens
	}
	if lo <= 0 {
		lo = DefaultMinTokens
	}
	if bytes <= 0 {
		bytes = DefaultMaxBytes
	}
	return min(lo, hi), hi, max(bytes, minMaxBytes)
}

// Dense notes: a text of more than denseChunks chunks averaging under
// denseBytes bytes is packed again with hard boundaries open while a chunk
// is below MinTokens. A note of 500,000 one-word sections (9.4 MB) made
// 500,000 chunks to store and embed; the largest count in the 561 files of
// the issue 19 docs corpus is 333, averaging 137 bytes or more in every
// file.
const (
	denseChunks = 1024
	denseBytes  = 32
)

// Chunk splits text into chunks that cover it exactly, in order. Empty text
// has no chunks.
func (c *Chunker) Chunk(text string) []cairn.Chunk {
	if text == "" {
		return nil
	}
	out := c.pack(text, false)
	if len(out) > denseChunks && len(text) < denseBytes*len(out) {
		out = c.pack(text, true)
	}
	return out
}

// pack chunks text; dense keeps a chunk below MinTokens open across hard
// boundaries while the next atom fits.
func (c *Chunker) pack(text string, dense bool) []cairn.Chunk {
	lo, hi, bytes := c.limits()
	p := &packer{text: text, min: lo, max: hi, maxBytes: bytes, line: 1, start: -1}
	for a := range scan(text, bytes) {
		switch {
		case p.empty():
		case a.cont:
			p.flush() // a piece of an over-long line: it starts a chunk
		case a.hard && !p.carries(a) && !p.noiseRun(a) && !(dense && p.tokens < p.min && p.fits(a)):
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
	maxBytes int
	out      []cairn.Chunk
	line     int // line number where the next chunk starts

	start, end int
	tokens     int
	headOnly   bool // the open chunk holds only headings
	noise      bool // the open chunk holds only noise lines (see isNoise)
	level      int  // level of its last heading
}

func (p *packer) empty() bool { return p.start < 0 }

// fits reports whether atom a fits in the open chunk, in tokens and bytes.
func (p *packer) fits(a atom) bool {
	return p.tokens+a.tokens <= p.max && p.fitsBytes(a)
}

// fitsBytes reports whether atom a fits in the open chunk's bytes.
func (p *packer) fitsBytes(a atom) bool {
	return p.end-p.start+a.end-a.pos <= p.maxBytes
}

// carries reports whether a heading-only chunk stays open across the hard
// boundary at a: a is a deeper heading, so a title goes with its first
// subsection ("# Guide" with "## Install" and its text).
func (p *packer) carries(a atom) bool {
	return p.headOnly && a.kind == kindHeading && a.level > p.level && p.fits(a)
}

// noiseRun reports whether a chunk of noise lines stays open across the
// hard boundary at a: a is noise too (an empty heading, a rule, a bare
// marker), so a run of them is one chunk while it fits, not a chunk each
// (a note of millions of "#" lines made millions of chunks; ux U8).
func (p *packer) noiseRun(a atom) bool {
	return p.noise && p.fits(a) && isNoise(p.text[a.pos:a.end])
}

// open starts a chunk at text[pos:end].
func (p *packer) open(pos, end, tokens int) {
	p.start, p.end, p.tokens, p.headOnly, p.noise = pos, end, tokens, false, false
}

// appendAtom adds atom a to the open chunk, opening one if none is.
func (p *packer) appendAtom(a atom) {
	if p.empty() {
		p.open(a.pos, a.end, a.tokens)
		p.headOnly = a.kind == kindHeading
		p.noise = a.hard && isNoise(p.text[a.pos:a.end])
	} else {
		p.end, p.tokens = a.end, p.tokens+a.tokens
		p.headOnly = p.headOnly && a.kind == kindHeading
		p.noise = p.noise && isNoise(p.text[a.pos:a.end])
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
	case p.fits(a):
		p.appendAtom(a)
	case !a.splittable():
		if !p.headOnly || a.tokens <= p.max || !p.fitsBytes(a) {
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
		// Only with room for a token: a heading-only chunk already at max
		// (a long heading line cut at the byte ceiling) takes nothing more.
		if (p.tokens < p.min || p.headOnly) && p.tokens < p.max {
			n, t, hard := cut(p.text[pos:a.end], p.max-p.tokens, p.maxBytes-(p.end-p.start))
			if !hard && n > 0 {
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
		n, t, _ := cut(p.text[pos:a.end], p.max, p.maxBytes)
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
