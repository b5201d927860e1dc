package consolidate

import (
	"context"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/cairnmemory/cairn"
)

// Known names: a window's header may list names from other conversations,
// so that the model can name what this window only describes ("the book
// you recommended", "my home country"). Each entry pairs a name with the
// description it was given elsewhere: the text of an observation that
// names it (its about or one of its concepts), or a profile's summary.
// The entries are chosen for the window, not by frequency: a source
// scores by the rare words it shares with the window's records (each
// shared word weighs ln(1 + N/df), N sources, df those holding the word;
// words without a letter, and words that more than half the sources
// hold, are not counted),
// a name the window spells out counts as shared words too, and a source
// needs at least minSharedWords shared words to be offered. Each name is
// shown once, with its best-scoring description, best first, at most
// Worker.KnownNames entries.
const (
	// DefaultNameSources bounds the observations and profiles read for the
	// names of one run (the newest told first).
	DefaultNameSources = 20000
	minSharedWords     = 2
	descriptionWords   = 30
)

// knownName is one entry of the header.
type knownName struct {
	Name, Description string
}

// nameSource is one memory that gives names: its thread (a window never
// gets names from its own thread), the names, the description and its
// words.
type nameSource struct {
	thread, desc string
	names        []string
	words        []string
}

// nameDirectory holds a run's name sources with their word frequencies.
type nameDirectory struct {
	sources []nameSource
	df      map[string]int
}

// loadNames reads the active observations and profiles of the store as
// name sources.
func loadNames(ctx context.Context, st cairn.MemoryStore, limit int) (*nameDirectory, error) {
	d := &nameDirectory{df: map[string]int{}}
	for _, kind := range []string{cairn.MemoryObservation, KindProfile} {
		ms, err := st.Memories(ctx, cairn.MemoryFilter{Kind: kind, Status: cairn.StatusActive, Limit: limit})
		if err != nil {
			return nil, err
		}
		for i := range ms {
			d.add(&ms[i])
		}
	}
	return d, nil
}

// add makes a memory a name source when it names someone or something.
func (d *nameDirectory) add(m *cairn.Memory) {
	if m.Kind != cairn.MemoryObservation && m.Kind != KindProfile || m.Status != cairn.StatusActive {
		return
	}
	var names []string
	seen := map[string]bool{}
	for _, n := range append([]string{m.About}, m.Concepts...) {
		n = oneLine(n)
		k := conceptKey(n)
		if k == "" || seen[k] || genericAbout(n) {
			continue
		}
		seen[k] = true
		names = append(names, n)
	}
	if len(names) == 0 {
		return
	}
	desc := firstWords(oneLine(m.Summary), descriptionWords)
	s := nameSource{thread: m.Thread, desc: desc, names: names, words: words(desc + " " + strings.Join(names, " "))}
	for _, w := range s.words {
		d.df[w]++
	}
	d.sources = append(d.sources, s)
}

// genericAbout is an about that names nobody in particular.
func genericAbout(n string) bool {
	switch strings.ToLower(n) {
	case "the person", "person", "user", "the user", "i", "me":
		return true
	}
	return false
}

// pick returns up to limit entries for a window of thread whose records
// read text: see the comment at the top of this file.
func (d *nameDirectory) pick(thread, text string, limit int) []knownName {
	if d == nil || limit <= 0 || len(d.sources) == 0 {
		return nil
	}
	in := map[string]bool{}
	for _, w := range words(text) {
		in[w] = true
	}
	type scored struct {
		src   *nameSource
		score float64
	}
	var cands []scored
	n := float64(len(d.sources))
	for i := range d.sources {
		s := &d.sources[i]
		if s.thread == thread {
			continue
		}
		shared, score := 0, 0.0
		for _, w := range s.words {
			if in[w] && telling(w, d.df[w], len(d.sources)) {
				shared++
				score += math.Log(1 + n/float64(d.df[w]))
			}
		}
		if shared >= minSharedWords {
			cands = append(cands, scored{s, score})
		}
	}
	slices.SortStableFunc(cands, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return strings.Compare(a.src.desc, b.src.desc)
	})
	var out []knownName
	taken := map[string]bool{}
	for _, c := range cands {
		for _, name := range c.src.names {
			k := conceptKey(name)
			if taken[k] {
				continue
			}
			taken[k] = true
			out = append(out, knownName{Name: name, Description: c.src.desc})
			if len(out) == limit {
				return out
			}
		}
	}
	return out
}

// telling reports whether a shared word says something: it has a letter
// (dates and times in record headings are shared by every window of a
// day) and, in a directory of more than a few sources, at most half of
// them hold it.
func telling(w string, df, sources int) bool {
	if !strings.ContainsFunc(w, unicode.IsLetter) {
		return false
	}
	return sources < 4 || 2*df <= sources
}

// windowText is what a window's names are chosen by: its records' text.
func windowText(win *window) string {
	var b strings.Builder
	for _, r := range win.records {
		b.WriteString(r.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// firstWords keeps the first n words of s, marking a cut.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return s
	}
	return strings.Join(f[:n], " ") + " …"
}
