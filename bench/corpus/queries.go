package corpus

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// Query kinds, by where their words come from.
const (
	KindCommon = "common" // pseudo-words of ranks 40..300
	KindMid    = "mid"    // ranks 300..1500
	KindRare   = "rare"   // ranks 1500..4000
	KindMixed  = "mixed"  // one word from each of two or three bands
	KindIdent  = "ident"  // an identifier
	KindPhrase = "phrase" // a quoted run of 2 to 4 words from a note
)

// Query is one benchmark query and the kind that made it.
type Query struct {
	Text string
	Kind string
}

// Queries returns n queries: 1 to 3 words of the shared vocabulary from
// several frequency bands, identifiers, and quoted phrases taken from the
// first paragraph of notes 0..99 that Generate writes with Seed seed (so
// they have hits in any corpus of 100 notes or more made with that seed).
func Queries(n int, seed int64) []string {
	qs := LabeledQueries(n, seed)
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Text
	}
	return out
}

// LabeledQueries is Queries with each query's kind.
func LabeledQueries(n int, seed int64) []Query {
	r := rand.New(rand.NewPCG(uint64(seed), 0x71756572))
	out := make([]Query, 0, n)
	for len(out) < n {
		var q Query
		switch k := r.IntN(100); {
		case k < 15:
			q = Query{bandWords(r, 40, 300, 1+r.IntN(3)), KindCommon}
		case k < 35:
			q = Query{bandWords(r, 300, 1500, 1+r.IntN(3)), KindMid}
		case k < 50:
			q = Query{bandWords(r, 1500, len(theVocab.words), 1+r.IntN(2)), KindRare}
		case k < 70:
			q = Query{mixed(r), KindMixed}
		case k < 85:
			q = Query{theVocab.idents[r.IntN(200)], KindIdent}
		default:
			q = Query{phrase(r, seed), KindPhrase}
		}
		out = append(out, q)
	}
	return out
}

// bandWords joins n distinct non-function words of ranks lo..hi-1.
func bandWords(r *rand.Rand, lo, hi, n int) string {
	var words []string
	for len(words) < n {
		w := theVocab.words[lo+r.IntN(hi-lo)]
		if !isFunction(w) && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

func mixed(r *rand.Rand) string {
	bands := [][2]int{{40, 300}, {300, 1500}, {1500, len(theVocab.words)}}
	var parts []string
	for _, b := range bands[:2+r.IntN(2)] {
		parts = append(parts, bandWords(r, b[0], b[1], 1))
	}
	r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return strings.Join(parts, " ")
}

// phrase quotes 2 to 4 consecutive plain words of the first paragraph of
// one of the first 100 notes, with at least one that is not a function word.
func phrase(r *rand.Rand, seed int64) string {
	for {
		text := note(seed, r.IntN(100), 0, DefaultAvgBytes)
		words := strings.Fields(firstParagraph(text))
		n := 2 + r.IntN(3)
		if len(words) < n {
			continue
		}
		start := r.IntN(len(words) - n + 1)
		run := words[start : start+n]
		if plain(run) {
			return `"` + strings.ToLower(strings.Join(run, " ")) + `"`
		}
	}
}

// firstParagraph returns the first block after the front matter and title.
func firstParagraph(text string) string {
	for _, block := range strings.Split(text, "\n\n") {
		if b := strings.TrimSpace(block); b != "" && !strings.HasPrefix(b, "---") && !strings.HasPrefix(b, "#") {
			return b
		}
	}
	return ""
}

// plain reports whether the words carry no punctuation and not only
// function words.
func plain(words []string) bool {
	content := false
	for _, w := range words {
		if strings.ContainsAny(w, ".`,") {
			return false
		}
		if !isFunction(strings.ToLower(w)) {
			content = true
		}
	}
	return content
}
