package explore

import (
	"container/heap"
	"slices"
)

// before orders nodes best first: higher score, then the smaller name.
func (w *walk) before(name func(int32) string) func(a, b int32) bool {
	return func(a, b int32) bool {
		sa, sb := w.score(a), w.score(b)
		if sa != sb {
			return sa > sb
		}
		return name(a) < name(b)
	}
}

// topK keeps the k best nodes offered, by before: a walk touches
// thousands of nodes and returns tens, so they are not all sorted.
type topK struct {
	k      int
	before func(a, b int32) bool
	h      []int32 // the worst kept at the root
}

func (t *topK) Len() int           { return len(t.h) }
func (t *topK) Less(i, j int) bool { return t.before(t.h[j], t.h[i]) }
func (t *topK) Swap(i, j int)      { t.h[i], t.h[j] = t.h[j], t.h[i] }
func (t *topK) Push(x any)         { t.h = append(t.h, x.(int32)) }
func (t *topK) Pop() any {
	x := t.h[len(t.h)-1]
	t.h = t.h[:len(t.h)-1]
	return x
}

func (t *topK) offer(u int32) {
	switch {
	case t.k <= 0:
	case len(t.h) < t.k:
		heap.Push(t, u)
	case t.before(u, t.h[0]):
		t.h[0] = u
		heap.Fix(t, 0)
	}
}

// sorted returns the kept nodes, best first.
func (t *topK) sorted() []int32 {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b int32) int {
		switch {
		case t.before(a, b):
			return -1
		case t.before(b, a):
			return 1
		}
		return 0
	})
	return out
}
