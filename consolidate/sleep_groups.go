package consolidate

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/cairnmemory/cairn"
)

// Families of kinds the sleep pass compares within: a memory is only
// grouped with memories of its family. Episodes (what happened in one
// request) are events, not knowledge to merge or replace: sleep leaves
// them alone.
const (
	FamilyObservation = "observation"
	FamilyKnowledge   = "knowledge" // decision, fact, architecture, preference, reference
	FamilyHowTo       = "howto"     // procedure, snippet, template, pitfall: they claim "this works"
)

func familyOf(kind string) string {
	switch {
	case kind == cairn.MemoryObservation:
		return FamilyObservation
	case slices.Contains(worksKinds, kind):
		return FamilyHowTo
	case slices.Contains(cairn.ItemKinds, kind):
		return FamilyKnowledge
	}
	return ""
}

// Similarity bonuses added to the word overlap (Jaccard of title and
// summary words) when two memories share a concept, or, for observations,
// are about the same one.
const (
	conceptBonus = 0.2
	aboutBonus   = 0.2
)

// profile is what the grouping compares of a memory.
type profile struct {
	m        *cairn.Memory
	family   string
	words    []string // distinct, sorted
	concepts []string // concept keys, distinct, sorted
	about    string   // normalized
}

func profileOf(m *cairn.Memory) profile {
	p := profile{m: m, family: familyOf(m.Kind), words: words(m.Title + " " + m.Summary)}
	for _, c := range m.Concepts {
		if k := conceptKey(c); k != "" {
			p.concepts = append(p.concepts, k)
		}
	}
	slices.Sort(p.concepts)
	p.concepts = slices.Compact(p.concepts)
	if m.Kind == cairn.MemoryObservation {
		p.about = conceptKey(m.About)
	}
	return p
}

// stopWords are frequent English words that say nothing about a subject.
var stopWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for with that this from into are was were has have had not but
		its it's their them they you your our she her his him who what when where which will would can could
		should than then there these those been being also only about after before over under more most
		some such each other any all one two use used uses using does did done via per out off now new`) {
		m[w] = true
	}
	return m
})

// words splits text into lowercase words of letters and digits, keeping
// those of three or more characters or with a digit, without stop words.
func words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		digit := strings.ContainsFunc(w, unicode.IsDigit)
		if (len([]rune(w)) >= 3 || digit) && !stopWords()[w] {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// similarity is the Jaccard overlap of two memories' words, plus the
// bonuses for a shared concept or subject.
func similarity(a, b *profile) float64 {
	inter := 0
	for i, j := 0, 0; i < len(a.words) && j < len(b.words); {
		switch c := strings.Compare(a.words[i], b.words[j]); {
		case c == 0:
			inter, i, j = inter+1, i+1, j+1
		case c < 0:
			i++
		default:
			j++
		}
	}
	s := 0.0
	if union := len(a.words) + len(b.words) - inter; union > 0 {
		s = float64(inter) / float64(union)
	}
	if slices.ContainsFunc(a.concepts, func(c string) bool { _, ok := slices.BinarySearch(b.concepts, c); return ok }) {
		s += conceptBonus
	}
	if a.about != "" && a.about == b.about {
		s += aboutBonus
	}
	return math.Round(s*1000) / 1000
}

type edge struct {
	a, b  int
	score float64
}

// sleepGroups finds the candidate groups among active memories: pairs of
// one family that share a word, concept or subject (keys shared by more
// than maxPosting memories are too common to pair on) and score at least
// minScore, skipping pairs in skip; then the strongest pairs first, joined
// into groups of at most maxGroup members. Groups come oldest first.
func sleepGroups(ms []cairn.Memory, skip map[[2]string]bool, minScore float64, maxGroup, maxPosting int) []cairn.SleepGroup {
	var ps []profile
	for i := range ms {
		if p := profileOf(&ms[i]); p.family != "" && ms[i].Status == cairn.StatusActive {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b profile) int { return older(a.m, b.m) })
	postings := map[string][]int{}
	for i, p := range ps {
		for _, w := range p.words {
			postings[p.family+" w "+w] = append(postings[p.family+" w "+w], i)
		}
		for _, c := range p.concepts {
			postings[p.family+" c "+c] = append(postings[p.family+" c "+c], i)
		}
		if p.about != "" {
			postings[p.family+" a "+p.about] = append(postings[p.family+" a "+p.about], i)
		}
	}
	seen := map[[2]int]bool{}
	var edges []edge
	for _, ids := range postings {
		if len(ids) < 2 || len(ids) > maxPosting {
			continue
		}
		for x, i := range ids {
			for _, j := range ids[x+1:] {
				if seen[[2]int{i, j}] || skip[pairKey(ps[i].m.ID, ps[j].m.ID)] {
					continue
				}
				seen[[2]int{i, j}] = true
				if s := similarity(&ps[i], &ps[j]); s >= minScore {
					edges = append(edges, edge{i, j, s})
				}
			}
		}
	}
	slices.SortFunc(edges, func(x, y edge) int {
		return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b))
	})
	return joinGroups(ps, edges, maxGroup)
}

// joinGroups unites the pairs strongest first, refusing a union that would
// exceed maxGroup members.
func joinGroups(ps []profile, edges []edge, maxGroup int) []cairn.SleepGroup {
	parent := make([]int, len(ps))
	size := make([]int, len(ps))
	weakest := make([]float64, len(ps))
	for i := range parent {
		parent[i], size[i], weakest[i] = i, 1, math.Inf(1)
	}
	var root func(int) int
	root = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, e := range edges {
		ra, rb := root(e.a), root(e.b)
		if ra == rb || size[ra]+size[rb] > maxGroup {
			continue
		}
		ra, rb = min(ra, rb), max(ra, rb)
		parent[rb], size[ra] = ra, size[ra]+size[rb]
		weakest[ra] = min(weakest[ra], weakest[rb], e.score)
	}
	members := map[int][]int{}
	for i := range ps {
		r := root(i)
		members[r] = append(members[r], i)
	}
	var out []cairn.SleepGroup
	for _, r := range slices.Sorted(func(yield func(int) bool) {
		for r, ids := range members {
			if len(ids) > 1 && !yield(r) {
				return
			}
		}
	}) {
		g := cairn.SleepGroup{Family: ps[r].family, Score: weakest[r]}
		for _, i := range members[r] { // in profile order: oldest told first
			g.Members = append(g.Members, ps[i].m.ID)
			g.Titles = append(g.Titles, ps[i].m.Title)
		}
		out = append(out, g)
	}
	return out
}

// older orders memories by told time, then id.
func older(a, b *cairn.Memory) int {
	return cmp.Or(a.ToldAt.Compare(b.ToldAt), strings.Compare(a.ID, b.ID))
}

// pairKey is a pair of memory ids, smaller first.
func pairKey(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}
