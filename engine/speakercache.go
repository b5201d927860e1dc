package engine

import (
	"encoding/json"
	"sync"

	"github.com/cairnmemory/cairn/transcript"
)

// speakerCacheBudget is the most the speaker cache keeps, in spans and
// names (about 12 bytes each, so a few megabytes): a long agent session
// keeps only its named people's turns, usually none.
const speakerCacheBudget = 1 << 20

// speakerSpans caches each session document's speaker index by its
// projection hash (the sha256 of the projected text, which determines its
// spans), so a search reads a candidate session's record but parses its
// spans (thousands of messages in a long agent transcript) once per
// projection. Keyed by content, it is never stale: a re-projected session
// has a new hash, and engines over different stores share it safely.
var speakerSpans = &speakerCache{entries: map[string]*speakerEntry{}}

// speakerCacheOff makes the cache parse every time (TestSpeakerLiftCost's
// variant without it).
var speakerCacheOff bool

type speakerEntry struct {
	x *speakerIndex
	n int // x.size()
}

// speakerCache is a bounded map from projection hash to speaker index;
// past its budget the oldest entries go first.
type speakerCache struct {
	mu      sync.Mutex
	entries map[string]*speakerEntry
	order   []string // insertion order, oldest first
	total   int
}

// get returns the speaker index of spans (a record's JSON) by their
// projection's hash, parsing and keeping it when absent. Spans that do not
// parse give an empty index.
func (c *speakerCache) get(hash, spans string) *speakerIndex {
	if hash != "" && !speakerCacheOff {
		c.mu.Lock()
		e, ok := c.entries[hash]
		c.mu.Unlock()
		if ok {
			return e.x
		}
	}
	var sp []transcript.Span
	if json.Unmarshal([]byte(spans), &sp) != nil {
		sp = nil
	}
	x := newSpeakerIndex(sp)
	if hash == "" || speakerCacheOff {
		return x
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[hash]; !ok {
		n := x.size() + 1
		for c.total+n > speakerCacheBudget && len(c.order) > 0 {
			old := c.order[0]
			c.order = c.order[1:]
			c.total -= c.entries[old].n
			delete(c.entries, old)
		}
		c.entries[hash] = &speakerEntry{x, n}
		c.order = append(c.order, hash)
		c.total += n
	}
	return x
}
