package web

import (
	"math"
	"net/url"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/explore"
)

// How much of the concept graph the memory page draws.
const (
	graphMemories = 8
	graphConcepts = 8
	graphW        = 820
	graphH        = 440
)

// graph is the concept graph around one memory, laid out for inline SVG:
// the memory in the middle, the concepts the walk spent most time on
// around it, the memories it reached on the outer ring; every position
// and size is an attribute, so the page needs no inline style.
type graph struct {
	W, H  int
	Nodes []node
	Edges []edge
}

type node struct {
	X, Y, R    float64
	Label      string // shortened for the drawing
	Title      string // the whole label, shown on hover and read by screen readers
	Kind       string // center, memory or concept
	Link       string
	LX, LY     float64 // where the label goes
	LabelStart bool    // the label runs right from LX (else it ends there)
}

type edge struct {
	X1, Y1, X2, Y2 float64
	Kind           string // concept or related
}

// layout places the memory m, the walk's concepts and related memories.
// Edges follow the way each related memory was reached (its path's
// steps, through a concept or a related link) and join m to the concepts
// it names.
func layout(m cairn.Memory, res *explore.Result, titles map[string]string) *graph {
	g := &graph{W: graphW, H: graphH}
	cx, cy := float64(graphW)/2, float64(graphH)/2
	pos := map[string][2]float64{}
	add := func(key string, x, y, r float64, label, kind, link string) {
		pos[key] = [2]float64{x, y}
		n := node{X: x, Y: y, R: r, Label: short(label, 26), Title: label, Kind: kind, Link: link, LX: x, LY: y + r + 14}
		if kind != "center" {
			n.LabelStart = x >= cx
			n.LX, n.LY = x+r+4, y+4
			if !n.LabelStart {
				n.LX = x - r - 4
			}
		}
		g.Nodes = append(g.Nodes, n)
	}
	add("m:"+m.ID, cx, cy, 16, m.Title, "center", memoryURL(m.ID))
	concepts := res.Concepts
	for i, c := range concepts {
		a := 2*math.Pi*float64(i)/float64(len(concepts)) - math.Pi/2
		add("c:"+c.Name, cx+110*math.Cos(a), cy+80*math.Sin(a), 6, c.Name, "concept", "/?"+url.Values{"q": {c.Name}, "corpus": {cairn.MemoriesCorpus}}.Encode())
	}
	for i, rel := range res.Related {
		a := 2*math.Pi*(float64(i)+0.5)/float64(len(res.Related)) - math.Pi/2
		t := titles[rel.ID]
		if t == "" {
			t = rel.ID
		}
		add("m:"+rel.ID, cx+210*math.Cos(a), cy+170*math.Sin(a), 10, t, "memory", memoryURL(rel.ID))
	}
	seen := map[[2]string]bool{}
	join := func(a, b, kind string) {
		pa, oka := pos[a]
		pb, okb := pos[b]
		k := [2]string{min(a, b), max(a, b)}
		if !oka || !okb || a == b || seen[k] {
			return
		}
		seen[k] = true
		g.Edges = append(g.Edges, edge{X1: pa[0], Y1: pa[1], X2: pb[0], Y2: pb[1], Kind: kind})
	}
	for _, c := range m.Concepts {
		join("m:"+m.ID, "c:"+c, "concept")
	}
	for _, rel := range res.Related {
		for _, st := range rel.Path {
			if st.Via == explore.ViaConcept {
				join("m:"+st.From, "c:"+st.Concept, "concept")
				join("c:"+st.Concept, "m:"+st.To, "concept")
			} else {
				join("m:"+st.From, "m:"+st.To, "related")
			}
		}
	}
	// Edges first, so nodes are drawn over them.
	slices.SortStableFunc(g.Nodes, func(a, b node) int { return strings.Compare(kindOrder(a.Kind), kindOrder(b.Kind)) })
	return g
}

func kindOrder(k string) string {
	return map[string]string{"memory": "a", "concept": "b", "center": "c"}[k]
}

// short cuts s to n characters with an ellipsis.
func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
