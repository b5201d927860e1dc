// Command lextail lists where lexical search spends its slowest queries:
// it opens an index read as it is (no sync), runs cairnbench's labelled
// query list through search.Searcher over the store, and prints p50/p99
// by query kind and the slowest queries with each store call they made
// (all-words and any-words passes with how many rows they scanned, term
// counts). The first round warms the page cache and the term-count cache,
// as a long-lived server's would be; the last round is reported.
//
// With -before and -after (two builds of this command) it is an A/B run
// instead: each binary serves engine searches over the index in a child
// process, every query goes to both in random order, and it prints wall
// and thread-CPU p50/p99 by kind for each side and how many queries got
// different hits (the CPU time moves less with the machine's load).
//
//	lextail -index /tmp/l1big/n480000/home/agents/default -queries 2000
//	lextail -before /tmp/lt-before -after /tmp/lt-after -index DIR -notes NOTES
//	lextail -before /tmp/lt -after /tmp/lt -index DIR -index-after DIR2 -notes NOTES
//	lextail -index COPY -merge small|optimize|idle   # segments before and after, and the time
//	lextail -index COPY -pairs 100                   # the table rebuilt with its 100 most frequent terms paired
//	lextail -index COPY -terms 200                   # the drift check's term counts: exact against sampled
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/search"
	"github.com/cairnmemory/cairn/sqlite"
)

func main() {
	index := flag.String("index", "", "the data directory holding index.db")
	n := flag.Int("queries", 2000, "queries (cairnbench's list)")
	seed := flag.Int64("seed", 1, "query seed")
	rounds := flag.Int("rounds", 2, "rounds over the list; the last is reported")
	top := flag.Int("top", 25, "slowest queries listed")
	before := flag.String("before", "", "A/B: the binary before (this command built from the commit to compare)")
	after := flag.String("after", "", "A/B: the binary after")
	notes := flag.String("notes", "", "A/B: the notes folder the index was built from")
	indexAfter := flag.String("index-after", "", "A/B: the data directory the after binary searches (default -index): one binary over two copies of an index, e.g. before and after merging its segments")
	child := flag.Bool("serve", false, "internal: answer queries on stdin through the engine over -index")
	merge := flag.String("merge", "", "instead of searching: print -index's full-text segments, then 'small' merges same-level segments two or more at a time (up to 2,000 pages), 'optimize' merges all into one, 'idle' does it in serve's idle-time steps (sqlite MergeStep); WRITES the index: use a copy")
	pairs := flag.Int("pairs", -1, "instead of searching: rebuild -index's full-text table with its N most frequent terms (by chunks holding them) paired like the tokenizer's common words (0: the tokenizer's own list only, the cost of the same rebuild without them), and print the list, time and size; WRITES the index: use a copy")
	terms := flag.Int("terms", 0, "instead of searching: read -index's N most frequent terms exactly (every doclist) and as the drift check estimates them (sqlite EstimatedTerms), three times alternating, with the time, CPU and how the lists differ (read only)")
	pairStep := flag.Int("pair-step", 1<<30, "with -pairs: chunks a rebuild step indexes (each step one write transaction; the default does it in one)")
	flag.Parse()
	ctx := context.Background()
	var err error
	switch {
	case *terms > 0:
		err = compareTerms(ctx, *index, *terms)
	case *pairs >= 0:
		err = pairIndex(ctx, *index, *pairs, *pairStep)
	case *merge != "":
		err = mergeIndex(ctx, *index, *merge)
	case *child:
		err = serve(ctx, *index, *notes)
	case *before != "" || *after != "":
		ia := *indexAfter
		if ia == "" {
			ia = *index
		}
		err = ab(*before, *after, *index, ia, *notes, *n, *seed, *rounds)
	default:
		err = run(ctx, *index, *n, *seed, *rounds, *top)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// call is one store call a query made.
type call struct {
	what string
	took time.Duration
}

// timed forwards the store calls search.Searcher makes and records them.
type timed struct {
	st    cairn.Storage
	calls []call
}

func (t *timed) Lexical(ctx context.Context, q cairn.LexicalQuery) (*cairn.LexicalResult, error) {
	t0 := time.Now()
	res, err := t.st.Lexical(ctx, q)
	what := fmt.Sprintf("lexical %s", q.Match)
	if res != nil {
		what += fmt.Sprintf(" scanned=%d capped=%v hits=%d", res.Scanned, res.Capped, len(res.Candidates))
	}
	t.calls = append(t.calls, call{what, time.Since(t0)})
	return res, err
}

func (t *timed) MatchCount(ctx context.Context, m cairn.Match, max int) (cairn.MatchCount, error) {
	t0 := time.Now()
	c, err := t.st.MatchCount(ctx, m, max)
	t.calls = append(t.calls, call{fmt.Sprintf("count %s = %d", m, c.N), time.Since(t0)})
	return c, err
}

func (t *timed) Span(ctx context.Context) (cairn.IndexSpan, error) { return t.st.Span(ctx) }

func (t *timed) Generation() int64 {
	if g, ok := t.st.(interface{ Generation() int64 }); ok {
		return g.Generation()
	}
	return -1
}

type result struct {
	q     corpus.Query
	took  time.Duration // wall
	cpu   time.Duration // this thread's CPU time: the machine's load moves it less
	calls []call
}

// threadCPU is the calling thread's CPU time (0 where the clock is missing).
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

func run(ctx context.Context, index string, n int, seed int64, rounds, top int) error {
	st, err := sqlite.Backend{}.Open(ctx, index, cairn.StorageOptions{FeatureVersion: engine.FeatureVersion, Ident: search.IdentText})
	if err != nil {
		return err
	}
	defer st.Close()
	tm := &timed{st: st}
	s := &search.Searcher{Index: tm}
	// One thread runs every search (SQLite's calls run on the caller's
	// thread), so its CPU time is the searches'.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	qs := corpus.LabeledQueries(n, seed)
	var res []result
	for r := range rounds {
		res = res[:0]
		for _, q := range qs {
			tm.calls = nil
			t0, c0 := time.Now(), threadCPU()
			if _, err := s.Search(ctx, q.Text, &cairn.SearchOptions{Limit: 10}); err != nil && !strings.Contains(err.Error(), "invalid") {
				return fmt.Errorf("search %q: %w", q.Text, err)
			}
			res = append(res, result{q, time.Since(t0), threadCPU() - c0, slices.Clone(tm.calls)})
		}
		fmt.Printf("round %d: %s\n", r+1, summary(res, ""))
	}
	for _, k := range []string{corpus.KindCommon, corpus.KindMid, corpus.KindRare, corpus.KindMixed, corpus.KindIdent, corpus.KindPhrase} {
		fmt.Printf("  %-7s %s\n", k, summary(res, k))
	}
	slices.SortFunc(res, func(a, b result) int { return int(b.cpu - a.cpu) })
	for _, r := range res[:min(top, len(res))] {
		fmt.Printf("%7.2f ms (CPU %.2f)  %-6s %q\n", ms(r.took), ms(r.cpu), r.q.Kind, r.q.Text)
		for _, c := range r.calls {
			fmt.Printf("    %7.2f ms  %s\n", ms(c.took), c.what)
		}
	}
	return nil
}

func summary(res []result, kind string) string {
	var wall, cpu []time.Duration
	for _, r := range res {
		if kind == "" || r.q.Kind == kind {
			wall, cpu = append(wall, r.took), append(cpu, r.cpu)
		}
	}
	if len(wall) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d queries, wall %s; CPU %s", len(wall), pct(wall), pct(cpu))
}

func pct(l []time.Duration) string {
	slices.Sort(l)
	return fmt.Sprintf("p50 %.2f ms, p90 %.2f, p99 %.2f, max %.2f", ms(l[len(l)/2]), ms(l[len(l)*9/10]), ms(l[len(l)*99/100]), ms(l[len(l)-1]))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// mergeIndex prints the index's full-text segments, merges them as mode
// says, and prints them again with the time and CPU the merge took.
func mergeIndex(ctx context.Context, index, mode string) error {
	s, err := openSQLite(ctx, index, "merge")
	if err != nil {
		return err
	}
	defer s.Close()
	seg, err := s.FTSSegments(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("before: %d segments on %d levels, %d leaf pages, %d tombstones, pages by segment %v\n", seg.Count, seg.Levels, seg.Pages, seg.Tombstones, seg.Sizes)
	runtime.LockOSThread()
	t0, c0 := time.Now(), threadCPU()
	switch mode {
	case "small":
		err = s.MergeSmall(ctx, 2, 2000)
	case "optimize":
		err = s.Optimize(ctx)
	case "idle":
		// engine.MaintainIdle's check and steps back to back, as a quiet
		// server runs them: the check may start a rebuild with the index's
		// own pair words (sqlite pairs.go), which the steps then do.
		t1, c1 := time.Now(), threadCPU()
		var more bool
		if more, err = s.IdleMergeDue(ctx); err != nil {
			return err
		}
		fmt.Printf("idle check: %.2f s, %.2f s CPU\n", time.Since(t1).Seconds(), (threadCPU() - c1).Seconds())
		if !more {
			fmt.Println("idle merge: not due")
		}
		if err = idleSteps(ctx, s, more); err != nil {
			return err
		}
	default:
		return fmt.Errorf("merge %q: allowed small, optimize, idle", mode)
	}
	if err != nil {
		return err
	}
	wall, cpu := time.Since(t0), threadCPU()-c0
	if seg, err = s.FTSSegments(ctx); err != nil {
		return err
	}
	fmt.Printf("after %s (%.2f s, %.2f s CPU): %d segments on %d levels, %d leaf pages, %d tombstones, pages by segment %v\n",
		mode, wall.Seconds(), cpu.Seconds(), seg.Count, seg.Levels, seg.Pages, seg.Tombstones, seg.Sizes)
	words, err := s.PairWords(ctx)
	if err != nil {
		return err
	}
	size, err := s.LiveBytes(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("pair words of the index: %d %v; pages in use %.1f MB\n", len(words), words, float64(size)/1e6)
	return nil
}

// openSQLite opens index as the SQLite store it must be; what names the
// mode in the error when it is another kind of store.
func openSQLite(ctx context.Context, index, what string) (*sqlite.Store, error) {
	st, err := sqlite.Backend{}.Open(ctx, index, cairn.StorageOptions{FeatureVersion: engine.FeatureVersion, Ident: search.IdentText})
	if err != nil {
		return nil, err
	}
	s, ok := st.(*sqlite.Store)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("%s: %s is not a SQLite index", what, index)
	}
	return s, nil
}
