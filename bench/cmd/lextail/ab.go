package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// serve is the child of an A/B run: it opens the engine over index (no
// sync) and answers each query line with the search's wall and thread CPU
// microseconds and its hits (chunk path and line), or "error ...".
func serve(ctx context.Context, index, notes string) error {
	corp := cairn.Corpus{Name: "bench", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}
	eng, err := local.Open(ctx, engine.Options{Dir: index, Corpora: []cairn.Corpus{corp}})
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	runtime.LockOSThread()
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "ready")
	out.Flush()
	for in.Scan() {
		runtime.GC() // outside the timed call: no query pays for another's garbage
		t0, c0 := time.Now(), threadCPU()
		hits, err := eng.Search(ctx, in.Text(), &cairn.SearchOptions{Limit: 10, Mode: cairn.ModeLexical})
		wall, cpu := time.Since(t0).Microseconds(), (threadCPU() - c0).Microseconds()
		if err != nil {
			fmt.Fprintf(out, "error %v\n", strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			ids := make([]string, len(hits))
			for i, h := range hits {
				ids[i] = fmt.Sprintf("%s:%d", h.Path, h.StartLine)
			}
			fmt.Fprintf(out, "%d %d %s\n", wall, cpu, strings.Join(ids, ","))
		}
		out.Flush()
	}
	return in.Err()
}

// child is one binary of an A/B run.
type child struct {
	name      string
	cmd       *exec.Cmd
	in        io.WriteCloser
	out       *bufio.Scanner
	wall, cpu map[string][]float64 // by query kind, "" for all
}

func startChild(name, bin, index, notes string) (*child, error) {
	cmd := exec.Command(bin, "-serve", "-index", index, "-notes", notes)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	c := &child{name: name, cmd: cmd, in: in, out: bufio.NewScanner(out), wall: map[string][]float64{}, cpu: map[string][]float64{}}
	c.out.Buffer(make([]byte, 1<<20), 1<<20)
	if !c.out.Scan() || c.out.Text() != "ready" {
		return nil, fmt.Errorf("%s did not start: %q", bin, c.out.Text())
	}
	return c, nil
}

// ask sends one query and returns the answer's fields: wall, CPU, hits
// (ok false for a query the search refused).
func (c *child) ask(q string) (wall, cpu float64, hits string, ok bool, err error) {
	if _, err := fmt.Fprintln(c.in, q); err != nil {
		return 0, 0, "", false, err
	}
	if !c.out.Scan() {
		return 0, 0, "", false, fmt.Errorf("%s: no answer", c.name)
	}
	line := c.out.Text()
	if strings.HasPrefix(line, "error ") {
		return 0, 0, line, false, nil
	}
	f := strings.SplitN(line, " ", 3)
	if len(f) < 2 {
		return 0, 0, "", false, fmt.Errorf("%s: %q", c.name, line)
	}
	wall, _ = strconv.ParseFloat(f[0], 64)
	cpu, _ = strconv.ParseFloat(f[1], 64)
	if len(f) == 3 {
		hits = f[2]
	}
	return wall, cpu, hits, true, nil
}

func (c *child) close() {
	c.in.Close()
	c.cmd.Wait()
}

// ab sends every query to both binaries, in random order per query, and
// compares latency percentiles by kind and the hits each returned.
func ab(before, after, index, indexAfter, notes string, n int, seed int64, rounds int) error {
	a, err := startChild("before", before, index, notes)
	if err != nil {
		return err
	}
	defer a.close()
	b, err := startChild("after", after, indexAfter, notes)
	if err != nil {
		return err
	}
	defer b.close()
	qs := corpus.LabeledQueries(n, seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 9))
	differ := 0
	for r := range rounds {
		for _, q := range qs {
			pair := []*child{a, b}
			if rng.IntN(2) == 0 {
				pair[0], pair[1] = b, a
			}
			var hits [2]string
			var walls, cpus [2]float64
			var oks [2]bool
			for i, c := range pair {
				if walls[i], cpus[i], hits[i], oks[i], err = c.ask(q.Text); err != nil {
					return err
				}
			}
			if hits[0] != hits[1] {
				if r == rounds-1 {
					differ++
					if differ <= 5 {
						fmt.Printf("hits differ for %q:\n  %s: %s\n  %s: %s\n", q.Text, pair[0].name, hits[0], pair[1].name, hits[1])
					}
				}
			}
			if r < rounds-1 || !oks[0] || !oks[1] {
				continue // warm-up round, or a query both refuse
			}
			for i, c := range pair {
				for _, k := range []string{"", q.Kind} {
					c.wall[k] = append(c.wall[k], walls[i]/1000)
					c.cpu[k] = append(c.cpu[k], cpus[i]/1000)
				}
			}
		}
	}
	fmt.Printf("%d queries, %d rounds (the last measured), hits differ for %d\n\n", len(qs), rounds, differ)
	fmt.Println("| kind | queries | before wall p50 / p99 ms | after wall p50 / p99 ms | before CPU p50 / p99 ms | after CPU p50 / p99 ms |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, k := range []string{"", corpus.KindCommon, corpus.KindMid, corpus.KindRare, corpus.KindMixed, corpus.KindIdent, corpus.KindPhrase} {
		name := k
		if k == "" {
			name = "all"
		}
		fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", name, len(a.wall[k]), p5099(a.wall[k]), p5099(b.wall[k]), p5099(a.cpu[k]), p5099(b.cpu[k]))
	}
	return nil
}

func p5099(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return fmt.Sprintf("%.2f / %.2f", s[len(s)/2], s[len(s)*99/100])
}
