package corpus

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// noteRand returns the random source of note i in version ver (0 as
// generated, 1.. after edits), independent of every other note.
func noteRand(seed int64, i, ver int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(i)<<16|uint64(ver)))
}

// writer builds one note.
type writer struct {
	s *sampler
	r *rand.Rand
	b strings.Builder
}

// note returns the text of note i. The title, front matter and first
// paragraph do not depend on avg, so Queries can find phrases in them.
func note(seed int64, i, ver, avg int) string {
	r := noteRand(seed, i, ver)
	w := &writer{s: newSampler(r), r: r}
	target := sizeFactor(r) * float64(avg)
	title := w.title()
	if r.IntN(10) < 4 {
		fmt.Fprintf(&w.b, "---\ntitle: %s\ntags: [%s, %s]\ndate: 2024-%02d-%02d\n---\n\n",
			title, w.s.content(), w.s.content(), 1+r.IntN(12), 1+r.IntN(28))
	}
	if r.IntN(10) < 8 {
		fmt.Fprintf(&w.b, "# %s\n\n", title)
	}
	w.paragraph()
	// Stop about half an average block early so sizes centre on target.
	for float64(w.b.Len()) < target-120 {
		w.block()
	}
	return w.b.String()
}

// sizeFactor is log-normal with mean 1: most notes near the average, a few
// several times larger.
func sizeFactor(r *rand.Rand) float64 {
	const sigma = 0.6
	return math.Exp(sigma*r.NormFloat64() - sigma*sigma/2)
}

func (w *writer) title() string {
	n := 2 + w.r.IntN(4)
	words := make([]string, n)
	for i := range words {
		words[i] = w.s.content()
	}
	return title(strings.Join(words, " "))
}

func (w *writer) block() {
	switch k := w.r.IntN(100); {
	case k < 12:
		fmt.Fprintf(&w.b, "## %s\n\n", w.title())
	case k < 55:
		w.paragraph()
	case k < 72:
		w.list()
	case k < 84:
		w.code()
	case k < 90:
		w.table()
	default:
		fmt.Fprintf(&w.b, "Decision: %s.\n\n", w.sentenceBody(6+w.r.IntN(10)))
	}
}

// sentenceBody is n words; about one in twelve is an identifier in
// backticks.
func (w *writer) sentenceBody(n int) string {
	words := make([]string, n)
	for i := range words {
		if w.r.IntN(12) == 0 {
			words[i] = "`" + w.s.Ident() + "`"
		} else {
			words[i] = w.s.Word()
		}
	}
	return strings.Join(words, " ")
}

func (w *writer) sentence() string {
	s := w.sentenceBody(6 + w.r.IntN(12))
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (w *writer) paragraph() {
	n := 2 + w.r.IntN(4)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = w.sentence()
	}
	w.b.WriteString(strings.Join(parts, " "))
	w.b.WriteString("\n\n")
}

func (w *writer) list() {
	for range 2 + w.r.IntN(5) {
		fmt.Fprintf(&w.b, "- %s\n", w.sentenceBody(3+w.r.IntN(9)))
	}
	w.b.WriteString("\n")
}

func (w *writer) code() {
	langs := []string{"go", "sh", "python", "sql", ""}
	fmt.Fprintf(&w.b, "```%s\n", langs[w.r.IntN(len(langs))])
	for range 2 + w.r.IntN(8) {
		switch w.r.IntN(3) {
		case 0:
			fmt.Fprintf(&w.b, "%s := %s(%s)\n", w.s.Ident(), w.s.Ident(), w.s.content())
		case 1:
			fmt.Fprintf(&w.b, "# %s %s\n", w.s.Word(), w.s.Word())
		default:
			fmt.Fprintf(&w.b, "run %s --%s=%d\n", w.s.Ident(), w.s.content(), w.r.IntN(1000))
		}
	}
	w.b.WriteString("```\n\n")
}

func (w *writer) table() {
	cols := 2 + w.r.IntN(3)
	row := func(cell func() string) {
		w.b.WriteString("|")
		for range cols {
			fmt.Fprintf(&w.b, " %s |", cell())
		}
		w.b.WriteString("\n")
	}
	row(w.s.content)
	row(func() string { return "---" })
	for range 2 + w.r.IntN(5) {
		row(func() string { return w.s.Word() + " " + w.s.Word() })
	}
	w.b.WriteString("\n")
}
