package engine

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/vector"
)

// TestCloseAwaitsSettle: a search in a long-lived engine loads vectors.bin
// and settles it into memory on a goroutine; Close right after must wait
// for it, and leave no goroutine of the engine behind (issue 15 item 4: the
// unawaited Settle was the root of a SIGBUS). Settle is slowed down so
// that a Close that does not wait returns first.
func TestCloseAwaitsSettle(t *testing.T) {
	ctx := context.Background()
	emb := &conceptEmbedder{model: "v1"}
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
		"b.md": "# Garden\n\nThe tomatoes need compost and better soil.\n",
	}, Options{Embedder: emb})
	if _, err := f.eng.Sync(ctx, nil); err != nil { // writes vectors.bin
		t.Fatal(err)
	}
	started := make(chan struct{}, 1)
	var settled atomic.Bool
	settle = func(ix *vector.Index) {
		started <- struct{}{}
		time.Sleep(50 * time.Millisecond) // longer than a Close that does not wait
		ix.Settle()
		settled.Store(true)
	}
	t.Cleanup(func() { settle = (*vector.Index).Settle })
	eng, err := Open(ctx, Options{Dir: f.eng.opts.Dir, Corpora: f.eng.opts.Corpora, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if hits, err := eng.Search(ctx, "LGBTQ meetup", &cairn.SearchOptions{Mode: cairn.ModeHybrid}); err != nil || len(hits) == 0 {
		t.Fatalf("search: %v, %v", hits, err)
	}
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the search did not settle the loaded vector index (the test no longer covers Close's wait)")
	}
	if err := eng.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if !settled.Load() {
		t.Fatal("Close returned while the vector index was still settling")
	}
	if left := goroutinesIn("cairn/engine.", "cairn/vector.(*Index).Settle"); len(left) > 0 {
		t.Fatalf("goroutines left after Close:\n%s", strings.Join(left, "\n\n"))
	}
	// Nothing starts after Close.
	eng.background(func() { t.Error("background work ran after Close") })
}

// goroutinesIn returns the stacks of the other goroutines with a frame
// whose function name contains one of the markers. A goroutine whose
// WaitGroup.Done has run may still be on its way out, so it looks again
// for up to 10 s before it reports one (a bound, not a measure: it returns
// as soon as none is left).
func goroutinesIn(markers ...string) []string {
	var out []string
	for range 1000 {
		if out = matchingGoroutines(markers); len(out) == 0 {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return out
}

func matchingGoroutines(markers []string) []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i == 0 || strings.Contains(g, "testing.tRunner") { // this goroutine, the test runner
			continue
		}
		for _, m := range markers {
			if strings.Contains(g, m) {
				out = append(out, g)
				break
			}
		}
	}
	return out
}
