package engine

import (
	"context"
	"errors"
	"slices"
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

// roleNames are the names a heading holds for a role rather than a person:
// the projection's default labels, the roles of chat formats, the source
// ids and the agent products they name. A query asking "what did the user
// say" names no participant, so no turn is lifted for it.
var roleNames = map[string]bool{
	"user": true, "assistant": true, "system": true, "tool": true, "developer": true, "human": true,
	"ai": true, "model": true, "bot": true, "agent": true, "function": true, "summary": true, "generated": true,
	"speaker unknown": true, "me": true, "you": true,
	"claude": true, "claude code": true, "codex": true, "openclaw": true, "gemini": true, "aider": true,
	"cursor": true, "chatgpt": true, "gpt": true, "openai": true, "openai chat": true, "loggie": true, "copilot": true,
}

func init() {
	for _, s := range cairn.Sources { // "claude-code" is the words "claude code"
		roleNames[strings.Join(queryWords(s), " ")] = true
	}
}

// participants are the people a span's heading names: none for the
// assistant's turns (the agent: the configured agent name or the source
// id), a generated summary or a role ("User", "System", …: roleNames);
// a heading naming several ("Dana, Sam" for a meeting's grouped turns)
// names each.
func participants(sp transcript.Span) []string {
	if sp.Type != "user" {
		return nil
	}
	var out []string
	for _, name := range strings.Split(sp.Name, ", ") {
		if w := queryWords(name); len(w) > 0 && !roleNames[strings.Join(w, " ")] {
			out = append(out, name)
		}
	}
	return out
}

// speakerIndex is who speaks where in one session document: the spans of
// its messages spoken by a participant (participants), in line order, and
// their names. It is what the speaker lift keeps of a session's record.
type speakerIndex struct {
	start, end []int32  // each span's first and last line
	name       []uint16 // each span's name, an index into names
	names      []string
}

func newSpeakerIndex(spans []transcript.Span) *speakerIndex {
	x := &speakerIndex{}
	at := map[string]uint16{}
	for _, sp := range spans {
		for _, n := range participants(sp) {
			i, ok := at[n]
			if !ok {
				if len(x.names) == 1<<16-1 {
					continue // more names than any conversation holds: the rest unlifted
				}
				i = uint16(len(x.names))
				at[n] = i
				x.names = append(x.names, n)
			}
			x.start, x.end, x.name = append(x.start, int32(sp.StartLine)), append(x.end, int32(sp.EndLine)), append(x.name, i)
		}
	}
	return x
}

// speakers are the participants of the spans lines start to end overlap:
// who speaks in a unit. The spans are in line order and do not overlap, so
// the first is found by binary search.
func (x *speakerIndex) speakers(start, end int) []string {
	i, _ := slices.BinarySearch(x.end, int32(start))
	var out []string
	for ; i < len(x.start) && int(x.start[i]) <= end; i++ {
		if n := x.names[x.name[i]]; !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// size is the index's weight in spans, for the cache's bound.
func (x *speakerIndex) size() int { return len(x.start) + len(x.names) }

// spokenUnits finds the units of the lanes spoken by a participant the
// query names (fusionWeights.Speaker). Each sessions unit of either lane
// is looked up in its session's message spans (the message headings,
// "## User — Caroline — 2023-05-08 13:56", as the projection recorded
// them: one record a session, read once a search, its spans parsed once
// per projection: speakerCache): the participants of the messages a unit
// overlaps are its speakers. The participants are those speakers, so no
// list of people is kept; roles and agents never are (participants). A
// unit is spoken by a named one when the query names one of its speakers
// (namesSpeaker). Files, whose units are whole documents without message
// headings, are never looked up. It returns the docKey of each unit spoken
// by a named participant, nil when the query names none, and the names of
// the participants the query names, sorted.
func (e *Engine) spokenUnits(ctx context.Context, query string, lex []cairn.Hit, vec []cairn.Candidate) (map[string]bool, []string, error) {
	units := make([]cairn.Hit, 0, len(lex)+len(vec))
	for _, h := range lex {
		if e.isSessions(h.Corpus) {
			units = append(units, h)
		}
	}
	for _, c := range vec {
		if e.isSessions(c.Corpus) {
			units = append(units, candidateHit(c))
		}
	}
	if len(units) == 0 {
		return nil, nil, nil
	}
	words := queryWords(query)
	named := map[string]bool{} // a speaker's name → whether the query names it
	index := map[string]*speakerIndex{}
	var spoken map[string]bool
	for _, h := range units {
		x, ok := index[h.Path]
		if !ok {
			var err error
			if x, err = e.sessionSpeakers(ctx, h); err != nil {
				return nil, nil, err
			}
			index[h.Path] = x
		}
		for _, name := range x.speakers(h.StartLine, h.EndLine) {
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
			}
		}
	}
	var names []string
	for name, yes := range named {
		if yes {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return spoken, names, nil
}

// withoutName is the query's words (queryWords) with each run of the
// name's words left out, joined by spaces: the question a named
// participant's turns answer beside their heading. "" when nothing but
// the name is left.
func withoutName(query, name string) string {
	words, nw := queryWords(query), queryWords(name)
	var out []string
	for i := 0; i < len(words); i++ {
		if len(nw) > 0 && i+len(nw) <= len(words) && slices.Equal(words[i:i+len(nw)], nw) {
			i += len(nw) - 1
			continue
		}
		out = append(out, words[i])
	}
	return strings.Join(out, " ")
}

// sessionSpeakers is the speaker index of a session hit's document from
// its record's spans; empty for a session indexed before its record was
// written or whose spans do not parse (its units are then not lifted).
func (e *Engine) sessionSpeakers(ctx context.Context, h cairn.Hit) (*speakerIndex, error) {
	rec, err := e.store.Session(ctx, h.Corpus, strings.TrimPrefix(h.Path, Scheme+h.Corpus+"/"))
	if errors.Is(err, cairn.ErrNotFound) {
		return &speakerIndex{}, nil
	}
	if err != nil {
		return nil, err
	}
	return speakerSpans.get(rec.ProjectionHash, rec.Spans), nil
}

func (e *Engine) isSessions(corpus string) bool {
	c, ok := e.corpus(corpus)
	return ok && c.Kind == cairn.KindSessions
}
