package search

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
)

// The per-hit term signals of the calibrated score: which of the query's
// terms a hit's chunk holds. BM25 alone mixes how many terms a chunk holds
// with how often it repeats them; an off-topic query of general words
// ("history of the roman empire") meets a conversation on one of its words,
// repeated, and its BM25 over the query's IDF sum looks like a real
// question's partial match. The share of terms held, by count and by IDF,
// and whether the query's heaviest term is among them tell the two apart.

// termWeights returns each term's inverse document frequency (its best
// phrase's). Their sum, the ideal, is the BM25 of a chunk that holds every
// term once, roughly: HitSignals.Match divides by it, so a chunk matching
// only the common half of a query, or none of its rare words, has a low
// match however large its raw BM25. A term that matches nothing weighs as
// a phrase in no chunk, the largest IDF there is.
func termWeights(span cairn.IndexSpan, terms []counted) []float64 {
	out := make([]float64, len(terms))
	for i, t := range terms {
		best := 0.0
		for _, n := range t.counts {
			best = max(best, idf(span.Rows, n))
		}
		if len(t.counts) == 0 {
			best = idf(span.Rows, 0)
		}
		out[i] = best
	}
	return out
}

// termSignals sets the term signals of s (Held, Terms, Cover, Miss,
// Rarest, KnownCover) for a chunk of text under query q whose terms weigh w
// (termWeights; nil: all alike), maxW being the weight of a term in no
// chunk. A term is held when the text has, for each of its words, a word
// with the same root (stemRoot, the approximation of the index's porter
// stem the snippets use); for an identifier, its joined form or all its
// parts. This is a check of the chunk's own text, so it costs a scan of
// one chunk per hit and never a query.
func termSignals(s *cairn.HitSignals, q Query, text string, w []float64, maxW float64) {
	if len(q.Terms) == 0 {
		return
	}
	low := strings.ToLower(text)
	var held int
	var heldW, allW, knownW, topW, missW, rarest float64
	for i, t := range q.Terms {
		wt := 1.0
		if i < len(w) {
			wt = w[i]
		}
		allW += wt
		topW = max(topW, wt)
		if wt < maxW {
			knownW += wt // a term some chunk holds
		}
		if holdsTerm(low, t) {
			held++
			heldW += wt
			rarest = max(rarest, wt)
		} else {
			missW = max(missW, wt)
		}
	}
	s.Held = held
	s.Terms = float64(held) / float64(len(q.Terms))
	if allW > 0 {
		s.Cover = heldW / allW
	}
	if knownW > 0 {
		s.KnownCover = min(heldW/knownW, 1)
	}
	if topW > 0 {
		s.Miss = missW / topW
	}
	if maxW > 0 {
		s.Rarest = min(rarest/maxW, 1)
	}
}

// holdsTerm reports whether low (lowercased text) holds term t.
func holdsTerm(low string, t Term) bool {
	all := func(ws []string) bool {
		for _, w := range ws {
			if !holdsWord(low, w, t.Prefix) {
				return false
			}
		}
		return len(ws) > 0
	}
	if all(t.Words) {
		return true
	}
	if p := camelParts(t.Text); len(p) > 1 {
		return all(p)
	}
	return false
}

// holdsWord reports whether low has a word with word's root (a word that
// starts with word, for a prefix term).
func holdsWord(low, word string, prefix bool) bool {
	root := word
	if !prefix {
		root = stemRoot(word)
	}
	for off := 0; off < len(low); {
		i := strings.Index(low[off:], root)
		if i < 0 {
			return false
		}
		i += off
		off = i + len(root)
		if i > 0 {
			if r, _ := utf8.DecodeLastRuneInString(low[:i]); isWordRune(r) {
				continue // inside a word
			}
		}
		end := off
		for end < len(low) {
			r, n := utf8.DecodeRuneInString(low[end:])
			if !isWordRune(r) {
				break
			}
			end += n
		}
		if prefix || stemRoot(low[i:end]) == root {
			return true
		}
	}
	return false
}

// Known returns the share of raw's terms found anywhere in the index (0
// when it has none, as a query of only stop words): the lexical lane's
// HitSignals.Known, for the modes whose lanes do not run it. Counts are the
// cached ones the lexical lane uses, so after a lexical search of the same
// query it costs no query.
func (s *Searcher) Known(ctx context.Context, raw string) (float64, error) {
	q, err := Parse(raw)
	if err != nil || len(q.Terms) == 0 {
		return 0, nil
	}
	known := 0
	for _, t := range q.Terms {
		n := 0
		for _, p := range t.Phrases() {
			c, err := s.count(ctx, p)
			if err != nil {
				return 0, err
			}
			n += c
		}
		if n > 0 {
			known++
		}
	}
	return float64(known) / float64(len(q.Terms)), nil
}

// Rows returns how many chunks the index holds (the span its IDFs use,
// cached as they are).
func (s *Searcher) Rows(ctx context.Context) (int64, error) {
	sp, err := s.indexSpan(ctx)
	return sp.Rows, err
}

// TermSignals returns a function that sets the term signals of a chunk's
// text (termSignals: Held, Terms, Cover, Miss, Rarest, KnownCover) for
// query raw, weighing its terms by the index's IDFs as the lexical lane
// does (from the cached counts, so after Known it costs no query). The
// vector lane's hits get them from the text read for their snippets: a
// hit that holds the query's words is told from one that only sits near
// it, which in a small index, where the lane holds every chunk, is most
// of what a vector search knows about a hit. A query with no terms gets
// a function that sets nothing.
func (s *Searcher) TermSignals(ctx context.Context, raw string) (func(text string, sig *cairn.HitSignals), error) {
	q, err := Parse(raw)
	if err != nil || len(q.Terms) == 0 {
		return func(string, *cairn.HitSignals) {}, nil
	}
	terms := make([]counted, len(q.Terms))
	for i, t := range q.Terms {
		for _, p := range t.Phrases() {
			n, err := s.count(ctx, p)
			if err != nil {
				return nil, err
			}
			terms[i].counts = append(terms[i].counts, n)
			terms[i].n += n
		}
	}
	span, err := s.indexSpan(ctx)
	if err != nil {
		return nil, err
	}
	w, maxW := termWeights(span, terms), idf(span.Rows, 0)
	return func(text string, sig *cairn.HitSignals) { termSignals(sig, q, text, w, maxW) }, nil
}

// QuerySymbols returns the share of raw's characters (spaces aside) that
// are markup or operators (< > { } [ ] ( ) = ; $ | & * ` ^ ~ % and the
// backslash): 0 for a question in words, 0.24 for
// "<script>alert(1)</script>". Identifiers keep their underscores, dots,
// dashes, colons and slashes (parse_config_file, redis-cli, 10:30) and
// questions their apostrophes and question marks: none of those count.
func QuerySymbols(raw string) float64 {
	n, sym := 0, 0
	for _, r := range raw {
		if r == ' ' || r == '\t' || r == '\n' {
			continue
		}
		n++
		if strings.ContainsRune(symbolRunes, r) {
			sym++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(sym) / float64(n)
}

const symbolRunes = "<>{}[]()=;$|&*`^~%\\"
