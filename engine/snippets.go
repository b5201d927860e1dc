package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/chunk"
	"github.com/cairnmemory/cairn/transcript"
)

// expandSessionHits turns the hits of sessions corpora into message arrays:
// the whole turn (a user message and the replies up to the next one) when
// it fits the corpus's MaxExpandedTokens, else the messages the chunk
// touches, else the chunk itself marked partial. The match is never
// clipped: every choice contains the hit's chunk. chars > 0 measures in
// characters instead (SearchOptions.ExpandChars).
func (e *Engine) expandSessionHits(ctx context.Context, hits []cairn.Hit, chars int) error {
	type doc struct {
		rec   cairn.SessionRecord
		text  string
		spans []transcript.Span
	}
	docs := map[string]*doc{} // several hits often share a session
	for i := range hits {
		h := &hits[i]
		c, ok := e.corpus(h.Corpus)
		if !ok || c.Kind != cairn.KindSessions {
			continue
		}
		d, ok := docs[h.Path]
		if !ok {
			rel := strings.TrimPrefix(h.Path, Scheme+h.Corpus+"/")
			rec, err := e.store.Session(ctx, h.Corpus, rel)
			if errors.Is(err, cairn.ErrNotFound) {
				continue // indexed before its record was written; show it as text
			}
			if err != nil {
				return err
			}
			text, err := e.store.DocumentText(ctx, h.Corpus, rel)
			if err != nil {
				return err
			}
			d = &doc{rec: rec, text: text, spans: spansOf(rec, text)}
			docs[h.Path] = d
		}
		info := d.rec.Info
		h.Session = &info
		budget := c.MaxExpandedTokens
		if budget <= 0 {
			budget = cairn.DefaultMaxExpandedTokens
		}
		text := d.text
		fits := func(sp []transcript.Span) bool { return tokens(text, sp) <= budget }
		if chars > 0 {
			fits = func(sp []transcript.Span) bool { return renderedChars(text, sp) <= chars }
		}
		expand(h, d.text, d.spans, fits)
	}
	return nil
}

// spansOf uses the stored spans when the indexed text is the projection
// they were made for, else parses the headings again.
func spansOf(rec cairn.SessionRecord, text string) []transcript.Span {
	var spans []transcript.Span
	if rec.ProjectionHash == sha256Hex(text) && json.Unmarshal([]byte(rec.Spans), &spans) == nil {
		return spans
	}
	return transcript.Messages(text)
}

func expand(h *cairn.Hit, text string, spans []transcript.Span, fits func([]transcript.Span) bool) {
	first, last := -1, -1
	for i, sp := range spans {
		if sp.StartLine <= h.EndLine && sp.EndLine >= h.StartLine {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 { // the title line only
		h.Messages = []cairn.SnippetMessage{{Body: strings.TrimSpace(h.Snippet), Partial: true}}
		return
	}
	h.MessageTimestamp = spans[first].Timestamp
	ts, te := turn(spans, first, last)
	switch {
	case fits(spans[ts : te+1]):
		first, last = ts, te
	case fits(spans[first : last+1]):
	default:
		// Too long even alone: the chunk itself, which holds the match.
		// Partial means an excerpt: a chunk that holds the whole message
		// shows it whole, and is not partial.
		body := strings.TrimSpace(chunkBody(h, text, spans[first]))
		h.Messages = []cairn.SnippetMessage{{Type: typeOf(spans[first]), Name: spans[first].Name,
			Timestamp: spans[first].Timestamp, Body: body, Partial: body != spans[first].Body(text)}}
		return
	}
	h.Messages = h.Messages[:0]
	for _, sp := range spans[first : last+1] {
		h.Messages = append(h.Messages, cairn.SnippetMessage{Type: typeOf(sp), Name: sp.Name, Timestamp: sp.Timestamp, Body: sp.Body(text)})
	}
	h.StartLine, h.EndLine = spans[first].StartLine, spans[last].EndLine
}

// turn widens [first, last] to the user message before first and the
// replies up to the next user message after last.
func turn(spans []transcript.Span, first, last int) (int, int) {
	for first > 0 && spans[first].Type != "user" {
		first--
	}
	for last+1 < len(spans) && spans[last+1].Type != "user" {
		last++
	}
	return first, last
}

func tokens(text string, spans []transcript.Span) int {
	n := 0
	for _, sp := range spans {
		n += chunk.EstimateTokens(sp.Body(text))
	}
	return n
}

// renderedChars is the length in characters of the messages written
// "<type>: <body>" one a line ("summary" for a generated one).
func renderedChars(text string, spans []transcript.Span) int {
	n := 0
	for i, sp := range spans {
		role := typeOf(sp)
		if role == "" {
			role = "summary"
		}
		n += utf8.RuneCountInString(role) + 2 + utf8.RuneCountInString(sp.Body(text))
		if i > 0 {
			n++
		}
	}
	return n
}

func typeOf(sp transcript.Span) string {
	if sp.Type == "summary" {
		return ""
	}
	return sp.Type
}

// chunkBody is the part of the hit's lines inside the message body.
func chunkBody(h *cairn.Hit, text string, sp transcript.Span) string {
	lines := strings.Split(text, "\n")
	from, to := max(h.StartLine, sp.StartLine+2), min(h.EndLine, sp.EndLine)
	if from > to || to > len(lines) {
		return h.Snippet
	}
	return strings.Join(lines[from-1:to], "\n")
}

func (e *Engine) corpus(name string) (cairn.Corpus, bool) {
	for _, c := range e.opts.Corpora {
		if c.Name == name {
			return c, true
		}
	}
	return cairn.Corpus{}, false
}
