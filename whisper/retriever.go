package whisper

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

// EngineRetriever brings candidates from an engine: its lexical lane and,
// with an embedder, its vector lane, run side by side, each with no
// minimum score. A passage is the hit's whole line range read from the
// indexed snapshot; a session hit is its expanded turn (C12), its
// messages as "<type>: <body>" lines.
type EngineRetriever struct {
	Engine *engine.Engine
}

var _ Retriever = EngineRetriever{}

// Lanes runs both lanes. A lane whose query holds nothing searchable
// (only stop words) is empty, not an error.
func (r EngineRetriever) Lanes(ctx context.Context, q LaneQuery) (lex, vec []Passage, err error) {
	if q.Corpora = r.known(q.Corpora); q.Corpora == nil {
		return nil, nil, nil
	}
	o := cairn.SearchOptions{Corpora: q.Corpora, Limit: q.Limit, Sessions: q.Sessions, Mode: cairn.ModeLexical,
		ExpandChars: MaxPassageChars} // a session hit: its turn, else its messages, else its chunk, within 1,200 characters (C12)
	var lexHits []cairn.Hit
	var lerr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		lexHits, lerr = r.lane(ctx, q.Lex, o)
	}()
	var vecHits []cairn.Hit
	var verr error
	if r.Engine.Embedder() != nil {
		vo := o
		vo.Mode = cairn.ModeVector
		vecHits, verr = r.lane(ctx, q.Vec, vo)
	}
	<-done
	if err := errors.Join(lerr, verr); err != nil {
		return nil, nil, err
	}
	if lex, err = r.passages(ctx, lexHits); err != nil {
		return nil, nil, err
	}
	if vec, err = r.passages(ctx, vecHits); err != nil {
		return nil, nil, err
	}
	return lex, vec, nil
}

func (r EngineRetriever) lane(ctx context.Context, query string, o cairn.SearchOptions) ([]cairn.Hit, error) {
	if strings.TrimSpace(query) == "" {
		return nil, nil
	}
	hits, err := r.Engine.Search(ctx, query, &o)
	if errors.Is(err, cairn.ErrInvalid) && ctx.Err() == nil {
		return nil, nil // nothing searchable in this lane's query
	}
	return hits, err
}

// passages reads each hit's complete text.
func (r EngineRetriever) passages(ctx context.Context, hits []cairn.Hit) ([]Passage, error) {
	out := make([]Passage, 0, len(hits))
	for _, h := range hits {
		p := Passage{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Corpus: h.Corpus, Hit: h}
		switch {
		case h.Messages != nil:
			var lines []string
			for _, m := range h.Messages {
				role := m.Type
				if role == "" {
					role = "summary"
				}
				lines = append(lines, role+": "+m.Body)
				if m.Timestamp != "" && !slices.Contains(p.Dates, m.Timestamp) {
					p.Dates = append(p.Dates, m.Timestamp)
				}
			}
			p.Text = strings.Join(lines, "\n")
		default:
			n := h.EndLine - h.StartLine + 1
			if n < 1 || n > cairn.MaxGetLines {
				continue
			}
			got, err := r.Engine.Get(ctx, h.Path, &cairn.GetOptions{From: h.StartLine, Lines: n})
			var past *cairn.PastEndError
			if errors.As(err, &past) {
				continue // shortened since the lane read it
			}
			if err != nil {
				return nil, err
			}
			if got.Status != cairn.StatusOK || got.Truncated {
				continue // removed since the lane read it, or too long to be a passage
			}
			p.Text = got.Text
			if m := h.Memory; m != nil && m.ToldAt != "" {
				p.Dates = []string{m.ToldAt}
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// known keeps the corpora the engine can search. The memories corpus
// exists only once there are sessions or memories, and a whisperer
// configured with it should not fail until then. nil: none is left of a
// non-empty list (nothing to search); an empty list stays empty (every
// corpus).
func (r EngineRetriever) known(names []string) []string {
	if len(names) == 0 {
		return []string{}
	}
	var out []string
	for _, n := range names {
		if slices.ContainsFunc(r.Engine.SearchCorpora(), func(c cairn.Corpus) bool { return strings.EqualFold(c.Name, n) }) || strings.EqualFold(n, "all") {
			out = append(out, n)
		}
	}
	return out
}
