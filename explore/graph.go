package explore

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/cairnmemory/cairn"
)

// DefaultRelatedWeight is the weight of a memory-memory edge from a
// "related" link. A concept edge weighs 1/ln(2+n), at most 0.91 (a concept
// one memory has); a link someone judged is the stronger tie.
const DefaultRelatedWeight = 1.0

// Graph is the concept graph of a set of memories: one node per memory and
// one per concept, memory-concept edges weighted 1/ln(2 + the number of
// memories sharing the concept), memory-memory edges from "related" links.
// It is built once from a snapshot of the memories and walked by many
// explorations at once (it is read-only after Build). Nearest-neighbour
// edges are not part of it: each walk adds its own (see Explorer).
//
// Nodes are numbered memories first, sorted by id, then concepts, sorted
// by key, so the graph and every walk over it are the same whatever order
// the memories came in.
type Graph struct {
	ids      []string         // memory node -> id
	index    map[string]int32 // id -> memory node
	concepts []string         // concept node - len(ids) -> display name
	keys     []string         // concept node - len(ids) -> ConceptKey, ascending
	shared   []int32          // concept node - len(ids) -> memories with the concept
	// CSR adjacency over all nodes: the edges of node u are
	// to[off[u]:off[u+1]] with weights w[off[u]:off[u+1]], ascending by
	// neighbour.
	off []int32
	to  []int32
	w   []float32
	deg []float64 // sum of u's edge weights (all memories allowed), added in edge order

	stats BuildStats
	pool  sync.Pool // *walk workspaces
}

// BuildStats reports what Build made of its input. Links it could not use
// are counted, not fatal.
type BuildStats struct {
	Memories     int `json:"memories"`
	Concepts     int `json:"concepts"`
	ConceptEdges int `json:"concept_edges"` // memory-concept pairs
	RelatedEdges int `json:"related_edges"` // distinct related pairs
	// UnknownLinks counts related links naming a memory not given to
	// Build; SelfLinks links from a memory to itself; DuplicateIDs
	// memories given more than once (the first is kept).
	UnknownLinks int `json:"unknown_links"`
	SelfLinks    int `json:"self_links"`
	DuplicateIDs int `json:"duplicate_ids"`
	// Bytes estimates the graph's own memory: its arrays, ids and names.
	Bytes int64 `json:"bytes"`
}

// ConceptKey is how concepts are compared: lower-cased letters and digits
// only, so "cairn.toml", "Cairn TOML" and "cairntoml" are one concept (the
// rule consolidation's gate and sleep use). A concept with no letter or
// digit is ignored. Redaction placeholders ("[REDACTED:aws-access-key-id]",
// redact.Placeholder) count as no letters: every memory whose concept was
// a secret holds the same placeholder, and as a concept it would join
// memories that have nothing else in common (ux F14).
func ConceptKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(StripRedacted(s)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Build makes the graph of memories and the "related" links among them
// (links of other kinds are skipped). The number of memories sharing a
// concept counts every memory given, whatever its status: a caller that
// wants superseded memories out of the weights leaves them out here, and
// one that wants them out of a walk says so in its filter. A concept's
// name is its most frequent spelling (ties: the smallest string).
func Build(memories []cairn.Memory, links []cairn.MemoryLink) *Graph {
	g := &Graph{index: make(map[string]int32, len(memories))}
	order := make([]int, 0, len(memories))
	for i := range memories {
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(memories[a].ID, memories[b].ID) })
	kept := order[:0]
	for _, i := range order {
		id := memories[i].ID
		if _, dup := g.index[id]; dup {
			g.stats.DuplicateIDs++
			continue
		}
		g.index[id] = int32(len(g.ids))
		g.ids = append(g.ids, id)
		kept = append(kept, i)
	}
	memConcepts := g.collectConcepts(memories, kept)
	pairs := g.relatedPairs(links)
	g.assemble(memConcepts, pairs)
	g.stats.Memories, g.stats.Concepts = len(g.ids), len(g.concepts)
	g.stats.RelatedEdges = len(pairs)
	g.stats.Bytes = g.bytes()
	return g
}

// collectConcepts numbers the concepts and returns each memory node's
// concept numbers (0-based among concepts), distinct and ascending.
func (g *Graph) collectConcepts(memories []cairn.Memory, kept []int) [][]int32 {
	spellings := map[string]map[string]int{} // key -> spelling -> count
	for _, i := range kept {
		for _, c := range memories[i].Concepts {
			k := ConceptKey(c)
			if k == "" {
				continue
			}
			if spellings[k] == nil {
				spellings[k] = map[string]int{}
			}
			spellings[k][strings.TrimSpace(c)]++
		}
	}
	keys := make([]string, 0, len(spellings))
	for k := range spellings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	number := make(map[string]int32, len(keys))
	g.keys = keys
	for n, k := range keys {
		number[k] = int32(n)
		g.concepts = append(g.concepts, bestSpelling(spellings[k]))
	}
	g.shared = make([]int32, len(keys))
	out := make([][]int32, len(kept))
	for node, i := range kept {
		var cs []int32
		for _, c := range memories[i].Concepts {
			if k := ConceptKey(c); k != "" {
				cs = append(cs, number[k])
			}
		}
		slices.Sort(cs)
		cs = slices.Compact(cs)
		for _, c := range cs {
			g.shared[c]++
		}
		g.stats.ConceptEdges += len(cs)
		out[node] = cs
	}
	return out
}

// redactedPrefix starts every redaction placeholder (redact.Placeholder:
// "[REDACTED:" kind "]"; a test holds the two together).
const redactedPrefix = "[REDACTED:"

// StripRedacted returns s without its redaction placeholders.
func StripRedacted(s string) string {
	for {
		i := strings.Index(s, redactedPrefix)
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i+len(redactedPrefix):], ']')
		if j < 0 {
			return s
		}
		s = s[:i] + " " + s[i+len(redactedPrefix)+j+1:]
	}
}

// OnlyRedacted reports whether s holds redaction placeholders and no
// letter or digit besides: a concept or cue that was a secret and is now
// the same text in every memory that had one.
func OnlyRedacted(s string) bool {
	return strings.Contains(s, redactedPrefix) && !strings.ContainsFunc(StripRedacted(s), func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	})
}

// conceptNode returns the node of the concept whose key is key.
func (g *Graph) conceptNode(key string) (int32, bool) {
	if key == "" {
		return 0, false
	}
	n, ok := slices.BinarySearch(g.keys, key)
	return int32(len(g.ids) + n), ok
}

func bestSpelling(counts map[string]int) string {
	best, n := "", -1
	for s, c := range counts {
		if c > n || (c == n && s < best) {
			best, n = s, c
		}
	}
	return best
}

// relatedPairs returns the distinct related pairs as [a, b] with a < b.
func (g *Graph) relatedPairs(links []cairn.MemoryLink) [][2]int32 {
	seen := map[[2]int32]bool{}
	var pairs [][2]int32
	for _, l := range links {
		if l.Kind != cairn.LinkRelated {
			continue
		}
		a, okA := g.index[l.From]
		b, okB := g.index[l.To]
		switch {
		case !okA || !okB:
			g.stats.UnknownLinks++
			continue
		case a == b:
			g.stats.SelfLinks++
			continue
		case a > b:
			a, b = b, a
		}
		if !seen[[2]int32{a, b}] {
			seen[[2]int32{a, b}] = true
			pairs = append(pairs, [2]int32{a, b})
		}
	}
	return pairs
}

// assemble lays the edges out in CSR form, each node's neighbours
// ascending.
func (g *Graph) assemble(memConcepts [][]int32, pairs [][2]int32) {
	m := int32(len(g.ids))
	n := int(m) + len(g.concepts)
	count := make([]int32, n+1)
	for u, cs := range memConcepts {
		count[u+1] += int32(len(cs))
		for _, c := range cs {
			count[m+c+1]++
		}
	}
	for _, p := range pairs {
		count[p[0]+1]++
		count[p[1]+1]++
	}
	for i := 1; i <= n; i++ {
		count[i] += count[i-1]
	}
	g.off = count
	g.to = make([]int32, count[n])
	g.w = make([]float32, count[n])
	fill := slices.Clone(count[:n])
	put := func(u, v int32, w float32) {
		g.to[fill[u]], g.w[fill[u]] = v, w
		fill[u]++
	}
	for u, cs := range memConcepts {
		for _, c := range cs {
			w := conceptWeight(g.shared[c])
			put(int32(u), m+c, w)
			put(m+c, int32(u), w)
		}
	}
	for _, p := range pairs {
		put(p[0], p[1], DefaultRelatedWeight)
		put(p[1], p[0], DefaultRelatedWeight)
	}
	g.deg = make([]float64, n)
	for u := range n {
		lo, hi := g.off[u], g.off[u+1]
		sortEdges(g.to[lo:hi], g.w[lo:hi])
		d := 0.0
		for _, w := range g.w[lo:hi] {
			d += float64(w)
		}
		g.deg[u] = d
	}
}

// conceptWeight is a memory-concept edge's weight: 1/ln(2+n) for a concept
// n memories share, so a concept every memory mentions says little.
func conceptWeight(n int32) float32 { return float32(1 / math.Log(2+float64(n))) }

// sortEdges sorts one node's edges by neighbour.
func sortEdges(to []int32, w []float32) {
	if slices.IsSorted(to) {
		return
	}
	idx := make([]int, len(to))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(to[a], to[b]) })
	t2, w2 := slices.Clone(to), slices.Clone(w)
	for i, j := range idx {
		to[i], w[i] = t2[j], w2[j]
	}
}

func (g *Graph) bytes() int64 {
	b := int64(len(g.off)+len(g.to)+len(g.shared)+len(g.w))*4 + int64(len(g.deg))*8
	for _, s := range g.ids {
		b += int64(len(s)) + 16 + 4 + 16 // the string, its header, the index entry's value and key header
	}
	for _, s := range g.concepts {
		b += int64(len(s)) + 16
	}
	for _, s := range g.keys {
		b += int64(len(s)) + 16
	}
	return b
}

// Stats reports what Build made of its input.
func (g *Graph) Stats() BuildStats { return g.stats }

// Len is the number of memories in the graph.
func (g *Graph) Len() int { return len(g.ids) }

// Has reports whether the graph holds a memory.
func (g *Graph) Has(id string) bool { _, ok := g.index[id]; return ok }

func (g *Graph) isConcept(u int32) bool { return int(u) >= len(g.ids) }

func (g *Graph) conceptName(u int32) string { return g.concepts[int(u)-len(g.ids)] }

// Mask is a filter evaluated once over every memory of a graph, for a
// filter many explorations share (active memories only, one project):
// a walk then asks a bit instead of calling the filter. It belongs to the
// graph it was made from.
type Mask struct {
	g    *Graph
	keep []bool    // memory node -> allowed
	deg  []float64 // node -> weighted degree over allowed neighbours
}

// Mask evaluates keep for every memory of the graph, and each node's
// degree over the memories it keeps (a walk pushing a concept thousands
// of memories share then reads its degree instead of adding it up).
func (g *Graph) Mask(keep func(id string) bool) *Mask {
	m := &Mask{g: g, keep: make([]bool, len(g.ids)), deg: make([]float64, len(g.deg))}
	for i, id := range g.ids {
		m.keep[i] = keep(id)
	}
	for u := range m.deg {
		d := 0.0 // added as a walk's degree is: in edge order, in float64
		for i := g.off[u]; i < g.off[u+1]; i++ {
			if v := g.to[i]; g.isConcept(v) || m.keep[v] {
				d += float64(g.w[i])
			}
		}
		m.deg[u] = d
	}
	return m
}
