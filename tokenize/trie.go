package tokenize

import "sort"

// trie is a byte trie over the vocabulary for common-prefix search. Nodes
// keep their edges in one sorted array; the root has a direct table.
type trie struct {
	root   [256]int32 // child of the root per byte; 0: none
	nodes  []trieNode
	labels []byte
	next   []int32
}

type trieNode struct {
	value      int32 // payload (index into the vocabulary), -1: none
	start, end int32 // edge range in labels/next
}

// buildTrie indexes keys; key i gets payload vals[i].
func buildTrie(keys []string, vals []int32) *trie {
	type tmpNode struct {
		value    int32
		children map[byte]int
	}
	tmp := []tmpNode{{value: -1}}
	for k, key := range keys {
		n := 0
		for i := 0; i < len(key); i++ {
			c := key[i]
			if tmp[n].children == nil {
				tmp[n].children = map[byte]int{}
			}
			child, ok := tmp[n].children[c]
			if !ok {
				child = len(tmp)
				tmp[n].children[c] = child
				tmp = append(tmp, tmpNode{value: -1})
			}
			n = child
		}
		tmp[n].value = vals[k]
	}
	t := &trie{nodes: make([]trieNode, len(tmp))}
	for i, n := range tmp {
		cs := make([]int, 0, len(n.children))
		for c := range n.children {
			cs = append(cs, int(c))
		}
		sort.Ints(cs)
		t.nodes[i] = trieNode{value: n.value, start: int32(len(t.labels))}
		for _, c := range cs {
			t.labels = append(t.labels, byte(c))
			t.next = append(t.next, int32(n.children[byte(c)]))
			if i == 0 {
				t.root[c] = int32(n.children[byte(c)])
			}
		}
		t.nodes[i].end = int32(len(t.labels))
	}
	return t
}

// child returns the child of node n along byte c, or 0.
func (t *trie) child(n int32, c byte) int32 {
	if n == 0 {
		return t.root[c]
	}
	nd := &t.nodes[n]
	lo, hi := nd.start, nd.end
	for hi-lo > 8 {
		mid := (lo + hi) / 2
		if t.labels[mid] < c {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for hi = nd.end; lo < hi; lo++ {
		if l := t.labels[lo]; l >= c {
			if l == c {
				return t.next[lo]
			}
			return 0
		}
	}
	return 0
}
