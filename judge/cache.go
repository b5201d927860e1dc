package judge

import (
	"container/list"
	"sync"
)

// Key identifies a judgment in a cache: the policy id (model and rubric)
// and the hash of the content judged (rubric instructions, questions and
// redacted state). A durable cache can store the two apart, to drop a
// policy's judgments when its model goes.
type Key struct {
	Policy  string
	Content [32]byte
}

// Cache keeps judgments by Key. Implementations must be safe for
// concurrent use and must not keep or hand out maps a caller can change
// (MemoryCache copies). Only successful judgments are put.
type Cache interface {
	Get(k Key) (Judgment, bool)
	Put(k Key, j Judgment)
}

// DefaultCacheEntries bounds a judge's default cache: about 1 KiB each, so
// a few MiB at most.
const DefaultCacheEntries = 4096

// MemoryCache is a Cache in memory that forgets the least recently used
// judgment past its size; it lives as long as the process.
type MemoryCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recently used; values are *entry
	byKey map[Key]*list.Element
}

type entry struct {
	key Key
	j   Judgment
}

var _ Cache = (*MemoryCache)(nil)

// NewMemoryCache returns a cache of at most n judgments (at least 1).
func NewMemoryCache(n int) *MemoryCache {
	return &MemoryCache{max: max(n, 1), order: list.New(), byKey: map[Key]*list.Element{}}
}

// Get returns a copy of the judgment under k.
func (c *MemoryCache) Get(k Key) (Judgment, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return Judgment{}, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*entry).j.clone(), true
}

// Put keeps a copy of j under k, forgetting the least recently used
// judgment when full.
func (c *MemoryCache) Put(k Key, j Judgment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		el.Value.(*entry).j = j.clone()
		c.order.MoveToFront(el)
		return
	}
	c.byKey[k] = c.order.PushFront(&entry{key: k, j: j.clone()})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*entry).key)
	}
}

// Len is the number of judgments kept.
func (c *MemoryCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
