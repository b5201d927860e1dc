package judge

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn/llm"
)

// TestCache: an identical judgment makes no request; another state,
// rubric or model does.
func TestCache(t *testing.T) {
	f := answers(t, plainAnswer(`{"memory_0": 0.9}`))
	f2 := answers(t, plainAnswer(`{"memory_0": 0.9}`))
	j := openaiJudge(t, f.URL, 5000)
	j.structuredOnly.Store(true)
	shared := j.Cache
	ask := func(j *Judge, r *Rubric, state any) *Judgment {
		t.Helper()
		got, err := j.Ask(context.Background(), &Request{Rubric: r, State: state})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	first := ask(j, MemoryUsefulness, usefulState("q", "e"))
	again := ask(j, MemoryUsefulness, usefulState("q", "e"))
	if first.Cached || !again.Cached || again.Answers["memory_0"].P != 0.9 || len(f.requests()) != 1 {
		t.Fatalf("first %+v, again %+v, %d requests", first, again, len(f.requests()))
	}
	again.Answers["memory_0"].Probabilities["yes"] = 0 // a caller's change does not reach the cache
	if got := ask(j, MemoryUsefulness, usefulState("q", "e")); got.Answers["memory_0"].Probabilities["yes"] != 0.9 {
		t.Errorf("cached answer changed: %+v", got.Answers["memory_0"])
	}
	ask(j, MemoryUsefulness, usefulState("q", "another excerpt"))
	if n := len(f.requests()); n != 2 {
		t.Errorf("another state: %d requests, want 2", n)
	}
	ask(j, &Rubric{ID: "memory-usefulness-v3", Instructions: MemoryUsefulness.Instructions, Questions: MemoryUsefulness.Questions}, usefulState("q", "e"))
	if n := len(f.requests()); n != 3 {
		t.Errorf("another rubric: %d requests, want 3", n)
	}
	other := openaiJudge(t, f2.URL, 5000)
	other.ModelID, other.Cache = "judge-m2", shared // another model over the same cache
	other.structuredOnly.Store(true)
	ask(other, MemoryUsefulness, usefulState("q", "e"))
	if n := len(f2.requests()); n != 1 {
		t.Errorf("another model: %d requests, want 1", n)
	}
}

// TestCacheIsBounded: past its size the least recently used judgment goes.
func TestCacheIsBounded(t *testing.T) {
	c := NewMemoryCache(2)
	k := func(b byte) Key { return Key{Policy: "m:r", Content: [32]byte{b}} }
	for _, b := range []byte{1, 2} {
		c.Put(k(b), Judgment{Policy: "m:r"})
	}
	c.Get(k(1)) // 2 is now the least recently used
	c.Put(k(3), Judgment{Policy: "m:r"})
	_, has1 := c.Get(k(1))
	_, has2 := c.Get(k(2))
	_, has3 := c.Get(k(3))
	if c.Len() != 2 || !has1 || has2 || !has3 {
		t.Errorf("len %d, has 1 %v 2 %v 3 %v", c.Len(), has1, has2, has3)
	}
}

// TestUsage: each answer's tokens are counted under the judge purpose,
// an unusable one as invalid; a cached judgment costs nothing.
func TestUsage(t *testing.T) {
	usage, err := llm.OpenUsage(filepath.Join(t.TempDir(), llm.UsageFile))
	if err != nil {
		t.Fatal(err)
	}
	f := answers(t, plainAnswer("memory_0: yes"), plainAnswer(`{"memory_0": 0.8}`), plainAnswer(`{"memory_0": 7}`))
	j := openaiJudge(t, f.URL, 5000)
	j.Usage = usage
	for _, excerpt := range []string{"one", "one", "two"} {
		j.Ask(context.Background(), &Request{Rubric: MemoryUsefulness, State: usefulState("q", excerpt)})
	}
	got := usage.Totals()[Purpose]
	if want := (llm.Totals{Calls: 3, Invalid: 1, TokensIn: 150, TokensOut: 27}); got != want {
		t.Errorf("usage %+v, want %+v", got, want)
	}
}
