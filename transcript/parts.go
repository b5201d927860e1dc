package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// DefaultMaxPartBytes is the largest projection document written. The
// indexer refuses documents over 10 MB (cairn.DefaultMaxFileSize), so a
// longer session is written in parts of at most this size, split between
// messages: "<start>--<id>.md", then "<start>--<id>--part-002.md", and so
// on. Each part is a document of its own, titled "# Transcript (part N)",
// with its own message spans and line numbers. A message is never split
// (it is at most DefaultMaxMessageBytes). Parts fill from the start, so
// messages appended to a live session change only its last part.
const DefaultMaxPartBytes = 4 << 20

// PartPath is the path of part n (1-based) of the projection at path.
func PartPath(path string, n int) string {
	if n <= 1 {
		return path
	}
	return strings.TrimSuffix(path, ".md") + fmt.Sprintf("--part-%03d.md", n)
}

// Parts splits p into documents of at most max bytes (0 means
// DefaultMaxPartBytes). A projection that fits is returned as it is.
func (p Projection) Parts(max int) []Projection {
	if max <= 0 {
		max = DefaultMaxPartBytes
	}
	if len(p.Text) <= max || len(p.Spans) < 2 {
		return []Projection{p}
	}
	var parts []Projection
	for first := 0; first < len(p.Spans); {
		n := len(parts) + 1
		head := "# Transcript\n\n"
		if n > 1 {
			head = fmt.Sprintf("# Transcript (part %d)\n\n", n)
		}
		last := first
		for last+1 < len(p.Spans) && len(head)+p.Spans[last+1].End-p.Spans[first].Start <= max {
			last++
		}
		parts = append(parts, p.part(n, head, first, last))
		first = last + 1
	}
	return parts
}

// part builds part n from spans first..last: the header, then the
// messages' text as projected, with offsets and lines moved to match.
func (p Projection) part(n int, head string, first, last int) Projection {
	from, to := p.Spans[first].Start, p.Spans[last].End
	text := head + strings.TrimRight(p.Text[from:to], "\n") + "\n"
	shift := len(head) - from
	lines := strings.Count(head, "\n") + 1 - p.Spans[first].StartLine
	spans := make([]Span, 0, last-first+1)
	for _, sp := range p.Spans[first : last+1] {
		sp.Start += shift
		sp.BodyStart += shift
		sp.End = min(sp.End+shift, len(text))
		sp.StartLine += lines
		sp.EndLine += lines
		spans = append(spans, sp)
	}
	sum := sha256.Sum256([]byte(text))
	out := Projection{Path: PartPath(p.Path, n), Text: text, Hash: hex.EncodeToString(sum[:]), Spans: spans}
	if n == 1 {
		out.Cut = p.Cut
	}
	return out
}
