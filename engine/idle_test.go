package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/sqlite"
)

// TestMaintainIdle drives the idle-time merge tick by tick on a fake
// clock: it waits for the quiet time, steps, stops for a sync and for
// searches until the index has been quiet again, finishes with one
// full-text segment and no tombstones, answers every query as before, and
// returns when its context ends.
func TestMaintainIdle(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 6))
	words := strings.Fields("harbor lantern copper meadow violet engine quartz saddle tundra willow ember falcon")
	note := func() string {
		var b strings.Builder
		b.WriteString("# " + words[r.IntN(len(words))] + "\n\n")
		for p := range 3 {
			for range 20 + r.IntN(40) {
				b.WriteString(words[r.IntN(len(words))] + " ")
			}
			fmt.Fprintf(&b, "p%d\n\n", p)
		}
		return b.String()
	}
	files := map[string]string{}
	for i := range 400 {
		files[fmt.Sprintf("n%03d.md", i)] = note()
	}
	f := newFixture(t, files, Options{})
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 400; i += 8 { // an edit sync: deleted rows leave tombstones
		f.write(fmt.Sprintf("n%03d.md", i), note())
	}
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	st := f.eng.store.(*sqlite.Store)
	before, err := st.FTSSegments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if due, err := st.IdleMergeDue(ctx); err != nil || !due {
		seg, _ := st.FTSSegments(ctx)
		t.Fatalf("after the edit sync a merge is not due (%v, %+v); the test needs one", err, seg)
	}

	ticks := make(chan time.Time)
	heard := make(chan string, 1)
	clock := time.Unix(1_000_000, 0)
	const quiet = time.Minute
	o := IdleOptions{Quiet: quiet, Pages: 2, ticks: ticks,
		now: func() time.Time { return clock }, report: func(s string) { heard <- s }}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- f.eng.MaintainIdle(mctx, o) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("MaintainIdle returned %v", err)
		}
	}()
	tick := func(want ...string) string {
		t.Helper()
		ticks <- clock
		got := <-heard
		for _, w := range want {
			if got == w {
				return got
			}
		}
		t.Fatalf("tick: %q, want one of %q", got, want)
		return got
	}

	tick("quiet")
	clock = clock.Add(quiet)
	tick("step")

	// A sync writes: no step until the index has been quiet again.
	f.write("new.md", "# Extra\n\nnothing the queries ask for\n")
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	tick("busy")
	tick("quiet")

	queries := []string{"harbor lantern", "copper", "violet quartz saddle", `"meadow violet"`, "ember falcon tundra willow", "p1 engine"}
	answers := func() []string {
		var out []string
		for _, q := range queries {
			hits, err := f.eng.Search(ctx, q, &cairn.SearchOptions{Limit: 10, Mode: cairn.ModeLexical})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				out = append(out, fmt.Sprintf("%s %s:%d %.12g", q, h.Path, h.StartLine, h.Score))
			}
		}
		return out
	}
	want := answers()
	if len(want) < 30 {
		t.Fatalf("%d hits; the test needs more", len(want))
	}
	// Searches are use too.
	tick("busy")
	tick("quiet")

	clock = clock.Add(quiet)
	steps := 0
	for tick("step", "done") == "step" {
		steps++
		if steps > 100000 {
			t.Fatal("the merge never finished")
		}
	}
	seg, err := st.FTSSegments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("segments before %+v, after %d steps %+v", before, steps+2, seg)
	if seg.Count != 1 || seg.Tombstones != 0 || seg.Merging != 0 {
		t.Errorf("after the idle merge (%d steps of 2 pages): %+v, want one segment, no tombstones, no merge in progress", steps+2, seg)
	}
	if steps < 2 {
		t.Errorf("the merge took %d steps of 2 pages: it was not bounded", steps+2)
	}
	got := answers()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("answers changed by the merge:\nbefore %q\nafter  %q", want, got)
	}
	// Done: nothing more until the index is used, and then nothing due.
	clock = clock.Add(quiet)
	tick("busy") // the searches above
	clock = clock.Add(quiet)
	tick("not due")
	clock = clock.Add(quiet)
	tick("quiet")
}

// TestMaintainIdleTimers runs the loop on its own timers (a quiet time of
// a millisecond): it merges an edited index into one segment and returns
// once its context ends.
func TestMaintainIdleTimers(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nharbor lantern copper %d meadow\n", i, i)
	}
	f := newFixture(t, files, Options{})
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 60; i += 3 {
		f.write(fmt.Sprintf("n%02d.md", i), fmt.Sprintf("# Note %d\n\nwillow ember %d\n", i, i))
	}
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	st := f.eng.store.(*sqlite.Store)
	if due, err := st.IdleMergeDue(ctx); err != nil || !due {
		t.Fatalf("no merge due after the edit sync (%v); the test needs one", err)
	}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- f.eng.MaintainIdle(mctx, IdleOptions{Quiet: time.Millisecond, Pause: time.Millisecond, Pages: 1})
	}()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		seg, err := st.FTSSegments(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if seg.Count == 1 && seg.Tombstones == 0 && seg.Merging == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not merged after a minute: %+v", seg)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("MaintainIdle returned %v", err)
	}
}
