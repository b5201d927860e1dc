// Command lexab compares lexical search latency of two cairn binaries on
// one index with low spread: each binary serves searches from its own
// copy of the index in a child process, and the driver sends every query
// to both, in random order per query, so minute-to-minute machine noise
// falls on both sides alike. Each child collects garbage before every
// query (outside the timed call), so no query pays for another's heap;
// no embedder is configured, so no vector index loads or settles beside
// the lexical lane. The result is the median of the per-query differences
// (after minus before) with a bootstrap 95% interval, beside each side's
// p50.
//
//	lexab -before /tmp/lexab-before -after /tmp/lexab-after \
//	      -index /tmp/hb50/data -notes /tmp/hb50/notes -queries 3000
//
// A binary is this command built from the commit to measure; -serve DIR
// is the child mode. open.go opens the engine the way the current tree
// does (local.Open); for a commit before the storage seam, replace it
// with engine.Open (the lexab comment in bench/RESULTS.md has the file).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

func main() {
	serve := flag.String("serve", "", "child mode: serve searches from the data directory DIR")
	corpus := flag.String("corpus", "bench", "the corpus name of the index")
	notes := flag.String("notes", "", "the notes folder the index was built from (queries are drawn from it)")
	before := flag.String("before", "", "the binary before")
	after := flag.String("after", "", "the binary after")
	index := flag.String("index", "", "the data directory to copy for each binary (index.db, memory.db)")
	queries := flag.Int("queries", 3000, "queries, each sent to both")
	seed := flag.Uint64("seed", 1, "query and order seed")
	flag.Parse()
	if *serve != "" {
		if err := child(*serve, *corpus, *notes); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := drive(*before, *after, *index, *notes, *corpus, *queries, *seed); err != nil {
		log.Fatal(err)
	}
}

// child answers one query per line of stdin with the microseconds the
// search took and its hit count.
func child(dir, corpus, notes string) error {
	ctx := context.Background()
	eng, err := openEngine(ctx, dir, []cairn.Corpus{{Name: corpus, Kind: cairn.KindFiles, Paths: []string{notes}}})
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "ready")
	out.Flush()
	for in.Scan() {
		runtime.GC()
		t0 := time.Now()
		hits, err := eng.Search(ctx, in.Text(), &cairn.SearchOptions{Limit: 10, Mode: cairn.ModeLexical})
		us := time.Since(t0).Microseconds()
		if err != nil {
			fmt.Fprintf(out, "error %v\n", err)
		} else {
			fmt.Fprintf(out, "%d %d\n", us, len(hits))
		}
		out.Flush()
	}
	return in.Err()
}

type side struct {
	name string
	dir  string // the index copy, removed at the end
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
	us   []float64
}

func start(name, bin, index, notes, corpus string) (*side, error) {
	dir, err := os.MkdirTemp("", "lexab-"+name)
	if err != nil {
		return nil, err
	}
	for _, f := range []string{"index.db", "memory.db"} {
		if err := copyFile(filepath.Join(index, f), filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	cmd := exec.Command(bin, "-serve", dir, "-corpus", corpus, "-notes", notes)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s := &side{name: name, dir: dir, cmd: cmd, in: in, out: bufio.NewScanner(outPipe)}
	if !s.out.Scan() || s.out.Text() != "ready" {
		return nil, fmt.Errorf("%s did not start: %q", bin, s.out.Text())
	}
	return s, nil
}

func (s *side) ask(q string) (float64, error) {
	if _, err := fmt.Fprintln(s.in, q); err != nil {
		return 0, err
	}
	if !s.out.Scan() {
		return 0, fmt.Errorf("%s: no answer", s.name)
	}
	if strings.HasPrefix(s.out.Text(), "error ") {
		return -1, nil // a query the parser refuses (only common words): skipped on both sides
	}
	f := strings.Fields(s.out.Text())
	us, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %s", s.name, s.out.Text())
	}
	return us, nil
}

func drive(before, after, index, notes, corpus string, n int, seed uint64) error {
	qs, err := drawQueries(notes, n+100, seed)
	if err != nil {
		return err
	}
	a, err := start("before", before, index, notes, corpus)
	if err != nil {
		return err
	}
	b, err := start("after", after, index, notes, corpus)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	var diffs []float64
	for i, q := range qs {
		pair := []*side{a, b}
		if rng.IntN(2) == 0 {
			pair[0], pair[1] = b, a
		}
		var got [2]float64
		for j, s := range pair {
			if got[j], err = s.ask(q); err != nil {
				return err
			}
		}
		if i < 100 || got[0] < 0 || got[1] < 0 {
			continue // warm-up (pages into the cache, statements prepared), or refused
		}
		for j, s := range pair {
			s.us = append(s.us, got[j])
		}
		if pair[0] == a {
			diffs = append(diffs, got[1]-got[0])
		} else {
			diffs = append(diffs, got[0]-got[1])
		}
	}
	for _, s := range []*side{a, b} {
		s.in.Close()
		s.cmd.Wait()
		os.RemoveAll(s.dir)
	}
	lo, hi := bootstrap(diffs, rng)
	fmt.Printf("| queries | before p50 ms | after p50 ms | before mean | after mean | median of after - before, ms | 95%% interval | after slower in |\n|---:|---:|---:|---:|---:|---:|---|---:|\n")
	slower := 0
	for _, d := range diffs {
		if d > 0 {
			slower++
		}
	}
	fmt.Printf("| %d | %.3f | %.3f | %.3f | %.3f | %+.3f | %+.3f to %+.3f | %.1f%% |\n", len(diffs), median(a.us)/1000, median(b.us)/1000,
		mean(a.us)/1000, mean(b.us)/1000, median(diffs)/1000, lo/1000, hi/1000, 100*float64(slower)/float64(len(diffs)))
	return nil
}

// drawQueries makes n queries of two or three words from lines of the
// notes (words of four letters or more), as hybridbench's are words of
// the corpus.
func drawQueries(notes string, n int, seed uint64) ([]string, error) {
	var words []string
	err := filepath.WalkDir(notes, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(words) > 200000 {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(string(b)), func(r rune) bool { return r < 'a' || r > 'z' }) {
			if len(w) >= 4 {
				words = append(words, w)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("no words under %s", notes)
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([]string, n)
	for i := range out {
		k := 2 + rng.IntN(2)
		ws := make([]string, k)
		for j := range ws {
			ws[j] = words[rng.IntN(len(words))]
		}
		out[i] = strings.Join(ws, " ")
	}
	return out, nil
}

func bootstrap(d []float64, rng *rand.Rand) (float64, float64) {
	meds := make([]float64, 1000)
	s := make([]float64, len(d))
	for i := range meds {
		for j := range s {
			s[j] = d[rng.IntN(len(d))]
		}
		meds[i] = median(s)
	}
	slices.Sort(meds)
	return meds[25], meds[974]
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func mean(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t / float64(len(v))
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return fmt.Errorf("copy %s: %w", from, err)
	}
	return dst.Close()
}
