package corpus

import (
	"math/rand/v2"
	"strings"
)

// vocabSeed fixes the vocabulary: every corpus and every query list shares
// it, whatever Options.Seed is.
const vocabSeed = 0x6361726e

// Vocabulary sizes.
const (
	pseudoWords = 4000
	identCount  = 600
)

// functionWords are real English words spread among the most frequent ranks,
// so prose has the stop-word density of real notes.
var functionWords = []string{
	"the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "with", "as", "on", "was",
	"be", "by", "this", "are", "or", "from", "at", "but", "not", "we", "when", "which", "if",
	"so", "can", "all", "after", "before", "then", "should", "into",
}

// stopWords mirrors the search package's English stop words: pseudo-words
// never equal one, so no generated query is made of stop words only.
var stopWords = strings.Fields(`a about after again all also am an and any are as at be been
	before being both but by can could did do does doing down during each few for from further
	had has have having he her here hers him his how i if in into is it its itself just me more
	most my no nor not now of off on once only or other our ours out over own same she should so
	some such than that the their theirs them then there these they this those through to too
	under until up very was we were what when where which while who whom why will with would
	you your yours`)

var onsets = []string{"b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
	"br", "cr", "dr", "gr", "pl", "st", "tr", "sh", "ch", "th"}
var nuclei = []string{"a", "e", "i", "o", "u", "ai", "ou", "ea"}
var codas = []string{"", "", "", "n", "r", "l", "s", "m", "x", "nd", "st"}

// vocab is the shared vocabulary: words by rank (rank 0 most frequent) and
// identifiers by rank.
type vocab struct {
	words  []string
	idents []string
}

var theVocab = buildVocab()

func buildVocab() *vocab {
	r := rand.New(rand.NewPCG(vocabSeed, 1))
	seen := map[string]bool{}
	for _, w := range stopWords {
		seen[w] = true
	}
	pseudo := make([]string, 0, pseudoWords)
	for len(pseudo) < pseudoWords {
		w := pseudoWord(r)
		if !seen[w] {
			seen[w] = true
			pseudo = append(pseudo, w)
		}
	}
	// Function words take every other rank at the top of the list.
	v := &vocab{}
	fi := 0
	for _, w := range pseudo {
		if fi < len(functionWords) && len(v.words)%2 == 0 {
			v.words = append(v.words, functionWords[fi])
			fi++
		}
		v.words = append(v.words, w)
	}
	idSeen := map[string]bool{}
	for len(v.idents) < identCount {
		id := identifier(r, pseudo)
		if !idSeen[id] {
			idSeen[id] = true
			v.idents = append(v.idents, id)
		}
	}
	return v
}

func pseudoWord(r *rand.Rand) string {
	var b strings.Builder
	n := 1 // syllables: 1 (25%), 2 (45%), 3 (25%), 4 (5%)
	switch k := r.IntN(100); {
	case k >= 95:
		n = 4
	case k >= 70:
		n = 3
	case k >= 25:
		n = 2
	}
	for range n {
		b.WriteString(onsets[r.IntN(len(onsets))])
		b.WriteString(nuclei[r.IntN(len(nuclei))])
	}
	b.WriteString(codas[r.IntN(len(codas))])
	w := b.String()
	if len(w) < 3 {
		w += "ro"
	}
	return w
}

// identifier makes a snake_case or camelCase name, or a file path, from
// pseudo-words of the middle ranks.
func identifier(r *rand.Rand, pseudo []string) string {
	pick := func() string { return pseudo[50+r.IntN(1500)] }
	switch r.IntN(4) {
	case 0:
		return pick() + "_" + pick()
	case 1:
		return pick() + "_" + pick() + "_" + pick()
	case 2:
		if r.IntN(2) == 0 {
			return pick() + title(pick())
		}
		return pick() + title(pick()) + title(pick())
	default:
		exts := []string{".go", ".py", ".ts", ".md", ".toml", ".sql"}
		dirs := []string{"src", "internal", "cmd", "pkg", "docs", "scripts"}
		return dirs[r.IntN(len(dirs))] + "/" + pick() + "/" + pick() + exts[r.IntN(len(exts))]
	}
}

func title(w string) string {
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// sampler draws words and identifiers with Zipf-distributed ranks.
type sampler struct {
	r     *rand.Rand
	word  *rand.Zipf
	ident *rand.Zipf
}

func newSampler(r *rand.Rand) *sampler {
	return &sampler{
		r:     r,
		word:  rand.NewZipf(r, 1.05, 2, uint64(len(theVocab.words)-1)),
		ident: rand.NewZipf(r, 1.1, 5, uint64(len(theVocab.idents)-1)),
	}
}

func (s *sampler) Word() string  { return theVocab.words[s.word.Uint64()] }
func (s *sampler) Ident() string { return theVocab.idents[s.ident.Uint64()] }

// content draws a word that is not a function word.
func (s *sampler) content() string {
	for {
		w := s.Word()
		if !isFunction(w) {
			return w
		}
	}
}

var functionSet = func() map[string]bool {
	m := make(map[string]bool, len(functionWords))
	for _, w := range functionWords {
		m[w] = true
	}
	return m
}()

func isFunction(w string) bool { return functionSet[w] }
