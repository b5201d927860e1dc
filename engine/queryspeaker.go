package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"unicode"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/transcript"
)

// queryWords splits a query into lowercase words of letters and digits,
// a possessive's "'s" (or a bare "'") dropped: "Caroline's" is the word
// "caroline". Any other character ends a word, so "Mel-Caroline" is two.
func queryWords(query string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	}) {
		f = strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(f, "'s"), "’s"), "'’")
		for _, w := range strings.FieldsFunc(f, func(r rune) bool { return r == '\'' || r == '’' }) {
			out = append(out, w)
		}
	}
	return out
}

// namesSpeaker reports whether a query (its queryWords) names a speaker:
// the speaker name's words, split the same way, stand in the query one
// after the other. Whole words only: "Mel" is not named by "Melanie",
// "Caroline" not by "Carolines"; case does not matter. A name of no word
// is named by nothing.
func namesSpeaker(words []string, name string) bool {
	nw := queryWords(name)
	if len(nw) == 0 {
		return false
	}
	for i := 0; i+len(nw) <= len(words); i++ {
		match := true
		for j, w := range nw {
			if words[i+j] != w {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// unitSpeakers are the names of the messages of spans (a session's, in
// order) that lines start to end overlap: who speaks in a unit. A
// generated summary ("## Summary — generated") has no speaker.
func unitSpeakers(spans []transcript.Span, start, end int) []string {
	var out []string
	for _, s := range spans {
		if s.StartLine <= end && s.EndLine >= start && s.Type != "summary" {
			out = append(out, s.Name)
		}
	}
	return out
}

// spokenUnits finds the units of the lanes spoken by a participant the
// query names (fusionWeights.Speaker). Each sessions unit of either lane
// is looked up in its session's message spans (the message headings,
// "## User — Caroline — 2023-05-08 13:56", as the projection recorded
// them: one record a session, read once a search): the names of the
// messages a unit overlaps are its speakers. The participants are those
// speakers, so no list of names is kept; a unit is spoken by a named one
// when the query names one of its speakers (namesSpeaker). Files, whose
// units are whole documents without message headings, are never looked
// up. It returns the docKey of each unit spoken by a named participant,
// nil when the query names none.
func (e *Engine) spokenUnits(ctx context.Context, query string, lex []cairn.Hit, vec []cairn.Candidate) (map[string]bool, error) {
	units := make([]cairn.Hit, 0, len(lex)+len(vec))
	for _, h := range lex {
		if e.isSessions(h.Corpus) {
			units = append(units, h)
		}
	}
	for _, c := range vec {
		if e.isSessions(c.Corpus) {
			units = append(units, cairn.Hit{Path: Scheme + c.Corpus + "/" + c.Path, StartLine: c.StartLine, EndLine: c.EndLine, Corpus: c.Corpus})
		}
	}
	if len(units) == 0 {
		return nil, nil
	}
	words := queryWords(query)
	named := map[string]bool{} // a speaker's name → whether the query names it
	spans := map[string][]transcript.Span{}
	var spoken map[string]bool
	for _, h := range units {
		sp, ok := spans[h.Path]
		if !ok {
			var err error
			if sp, err = e.sessionSpans(ctx, h); err != nil {
				return nil, err
			}
			spans[h.Path] = sp
		}
		for _, name := range unitSpeakers(sp, h.StartLine, h.EndLine) {
			yes, ok := named[name]
			if !ok {
				yes = namesSpeaker(words, name)
				named[name] = yes
			}
			if yes {
				if spoken == nil {
					spoken = map[string]bool{}
				}
				spoken[e.docKey(h)] = true
				break
			}
		}
	}
	return spoken, nil
}

// sessionSpans are the message spans of a session hit's document as its
// record stores them; none for a session indexed before its record was
// written or whose spans do not parse (its units are then not lifted).
func (e *Engine) sessionSpans(ctx context.Context, h cairn.Hit) ([]transcript.Span, error) {
	rec, err := e.store.Session(ctx, h.Corpus, strings.TrimPrefix(h.Path, Scheme+h.Corpus+"/"))
	if errors.Is(err, cairn.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var spans []transcript.Span
	if json.Unmarshal([]byte(rec.Spans), &spans) != nil {
		return nil, nil
	}
	return spans, nil
}

func (e *Engine) isSessions(corpus string) bool {
	c, ok := e.corpus(corpus)
	return ok && c.Kind == cairn.KindSessions
}
