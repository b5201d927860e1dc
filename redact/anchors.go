package redact

import "strings"

// The rules look for their anchors in one pass over the text instead of
// one strings.Index walk per anchor: about 70 anchors, several of them
// frequent two-byte prefixes in prose and code ("SK", "AC", "-u", "key"),
// made those walks most of redaction's time (17% of a first index's
// instructions on the 17.8 MB docs corpus, bench/RESULTS.md). The pass
// reads each position's two bytes in a 64 KB table of the anchors' first
// two bytes and compares only the anchors that start so; it records every
// occurrence, overlapping ones too, so the first occurrence at or after a
// position is the one strings.Index would find there, and each rule sees
// the same line windows as before.

// anchorSet is the anchors of all rules, each with an id, and the table
// the pass looks positions up in. Anchors of folding rules match the
// ASCII-lower-cased text, the others the text itself: two sets.
type anchorSet struct {
	anchors []string
	// first maps a position's two bytes to 1 + an index into groups, or 0
	// when no anchor starts with them.
	first  [1 << 16]uint16
	groups [][]int // anchor ids by their first two bytes
}

// add returns the id of anchor a, adding it when new.
func (s *anchorSet) add(a string) int {
	for id, b := range s.anchors {
		if a == b {
			return id
		}
	}
	if len(a) < 2 {
		panic("redact: an anchor needs two bytes or more: " + a)
	}
	id := len(s.anchors)
	s.anchors = append(s.anchors, a)
	k := uint16(a[0])<<8 | uint16(a[1])
	if s.first[k] == 0 {
		s.groups = append(s.groups, nil)
		s.first[k] = uint16(len(s.groups))
	}
	g := s.first[k] - 1
	s.groups[g] = append(s.groups[g], id)
	return id
}

// find returns the start of every occurrence of every anchor in hay, by
// anchor id, in ascending order; nil when no anchor occurs (most short
// texts: a file name, a title), so they allocate nothing here.
func (s *anchorSet) find(hay string) [][]int {
	var at [][]int
	for i := 0; i+1 < len(hay); i++ {
		g := s.first[uint16(hay[i])<<8|uint16(hay[i+1])]
		if g == 0 {
			continue
		}
		for _, id := range s.groups[g-1] {
			if strings.HasPrefix(hay[i:], s.anchors[id]) {
				if at == nil {
					at = make([][]int, len(s.anchors))
				}
				at[id] = append(at[id], i)
			}
		}
	}
	return at
}

// indexAnchors gives each rule the ids of its anchors in the set its
// haystack uses.
func indexAnchors(rs []rule) (exact, folded *anchorSet) {
	exact, folded = &anchorSet{}, &anchorSet{}
	for i := range rs {
		r := &rs[i]
		set := exact
		if r.fold {
			set = folded
		}
		r.ids = make([]int, len(r.anchors))
		for j, a := range r.anchors {
			r.ids[j] = set.add(a)
		}
	}
	return exact, folded
}

// occurrences is where the anchors occur in one version of a text, found
// on first use: exact in the text, folded in its lower-cased form.
type occurrences struct {
	exact, folded         [][]int
	exactDone, foldedDone bool // searched: the lists are nil when nothing occurs
}

// of returns the occurrence lists of rule r's anchors, finding them in hay
// when this text has not been searched yet; nil when none of them occurs
// (the rule then has nothing to look at, and nothing is allocated).
func (o *occurrences) of(r *rule, hay string) [][]int {
	all, done, set := &o.exact, &o.exactDone, anchorsExact
	if r.fold {
		all, done, set = &o.folded, &o.foldedDone, anchorsFolded
	}
	if !*done {
		*all, *done = set.find(hay), true
	}
	if *all == nil {
		return nil
	}
	var out [][]int
	for j, id := range r.ids {
		if len((*all)[id]) > 0 {
			if out == nil {
				out = make([][]int, len(r.ids))
			}
			out[j] = (*all)[id]
		}
	}
	return out
}

// any reports whether any anchor occurs.
func anyOccurs(at [][]int) bool {
	for _, p := range at {
		if len(p) > 0 {
			return true
		}
	}
	return false
}

// lineWindows calls fn with the bounds of each line of hay that holds one
// of the anchors, whose occurrences are at, in order, each line once.
func lineWindows(hay string, at [][]int, fn func(start, end int)) {
	pos := 0
	for pos <= len(hay) {
		best := -1
		for i, p := range at {
			for len(p) > 0 && p[0] < pos {
				p = p[1:]
			}
			at[i] = p
			if len(p) > 0 && (best < 0 || p[0] < best) {
				best = p[0]
			}
		}
		if best < 0 {
			return
		}
		start := strings.LastIndexByte(hay[:best], '\n') + 1
		end := strings.IndexByte(hay[best:], '\n')
		if end < 0 {
			end = len(hay)
		} else {
			end += best
		}
		fn(start, end)
		pos = end + 1
	}
}
