// Command explorebench measures explore (the concept graph walk) over
// generated memories: the graph's build time and memory, and explore's
// p50/p99 with four kinds of nearest-neighbour edges: none, a cached
// table in memory, the same lists stored in SQLite and read per memory as
// the engine reads them (cairn.RecallStore), and live searches of a
// vector index (vector.Index, one key vector per memory).
//
//	go run -tags sqlite_fts5 ./bench/cmd/explorebench -sizes 10000,100000
//
// The generator: memories in topics of about 50 (a project, a person, a
// subject); each names 3 to 12 concepts, seven in ten from its topic's 20
// and the rest from 200 shared ones (the first few named by many
// memories, as "git" or "README.md" are); a tenth of them have a related
// link to a memory of their topic; a tenth are superseded, which the
// filter of every exploration keeps out (a Mask, as the engine's default
// filter would be; the last mode calls the filter instead). A query's seeds are 10 memories
// of one topic, as a topic's search hits would be. Vectors are the
// topic's direction plus noise, unit length, 384 dimensions.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/explore"
	"github.com/cairnmemory/cairn/sqlite"
	"github.com/cairnmemory/cairn/vector"
)

func main() {
	sizes := flag.String("sizes", "10000,100000", "memory counts, comma-separated")
	queries := flag.Int("queries", 300, "explorations per size and mode")
	dim := flag.Int("dim", 384, "vector dimension (0: no vector mode)")
	seed := flag.Uint64("seed", 1, "generator seed")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the explorations here")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			if err := f.Close(); err != nil {
				log.Print(err)
			}
		}()
	}
	fmt.Printf("| memories | concepts | edges | build ms | graph MB (arrays, est.) | heap MB after build | mode | p50 ms | p99 ms | mean ms | CPU ms/query | pushes | touched | nearest calls |\n")
	fmt.Printf("|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 100 {
			log.Fatalf("explorebench: size %q: want a number of at least 100", s)
		}
		if err := run(n, *queries, *dim, *seed); err != nil {
			log.Print(err)
			return
		}
	}
}

type corpus struct {
	memories   []cairn.Memory
	links      []cairn.MemoryLink
	topic      []int // memory -> topic
	members    [][]int
	superseded map[string]bool
}

func generate(n int, seed uint64) *corpus {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	topics := max(n/50, 1)
	c := &corpus{topic: make([]int, n), members: make([][]int, topics), superseded: map[string]bool{}}
	for i := range n {
		t := rng.IntN(topics)
		c.topic[i] = t
		c.members[t] = append(c.members[t], i)
		m := cairn.Memory{ID: fmt.Sprintf("mem-%07d", i), Kind: cairn.MemoryObservation, Status: cairn.StatusActive}
		for range 3 + rng.IntN(10) {
			if rng.Float64() < 0.7 {
				m.Concepts = append(m.Concepts, fmt.Sprintf("topic%d-thing%d", t, rng.IntN(20)))
			} else {
				m.Concepts = append(m.Concepts, fmt.Sprintf("shared%d", int(200*math.Pow(rng.Float64(), 3))))
			}
		}
		if rng.IntN(10) == 0 {
			m.Status = cairn.StatusSuperseded
			c.superseded[m.ID] = true
		}
		c.memories = append(c.memories, m)
	}
	for i := range n {
		if rng.IntN(10) == 0 {
			ms := c.members[c.topic[i]]
			c.links = append(c.links, cairn.MemoryLink{From: c.memories[i].ID, To: c.memories[ms[rng.IntN(len(ms))]].ID, Kind: cairn.LinkRelated})
		}
	}
	return c
}

// table is a cached nearest-neighbour table: five memories of the same
// topic per memory, similarity 0.70 to 0.95, best first.
type table map[string][]explore.Neighbour

func (t table) Nearest(_ context.Context, id string, k int) ([]explore.Neighbour, error) {
	l := t[id]
	return l[:min(k, len(l))], nil
}

func makeTable(c *corpus, rng *rand.Rand) table {
	t := table{}
	for i, m := range c.memories {
		ms := c.members[c.topic[i]]
		var l []explore.Neighbour
		for range 5 {
			l = append(l, explore.Neighbour{ID: c.memories[ms[rng.IntN(len(ms))]].ID, Similarity: 0.7 + 0.25*rng.Float64()})
		}
		slices.SortFunc(l, func(a, b explore.Neighbour) int { return -cmpFloat(a.Similarity, b.Similarity) })
		t[m.ID] = l
	}
	return t
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// stored reads the lists from a store, one read per memory, as the
// engine's explore does.
type stored struct{ st cairn.Storage }

const benchIdentity = "explorebench"

func (s stored) Nearest(ctx context.Context, id string, k int) ([]explore.Neighbour, error) {
	lists, err := s.st.Neighbours(ctx, benchIdentity, []string{id})
	if err != nil {
		return nil, err
	}
	var out []explore.Neighbour
	for _, nb := range lists[id].Near[:min(k, len(lists[id].Near))] {
		out = append(out, explore.Neighbour{ID: nb.ID, Similarity: nb.Similarity})
	}
	return out, nil
}

// makeStored writes t into a SQLite store in a temporary folder.
func makeStored(ctx context.Context, t table) (stored, func(), error) {
	dir, err := os.MkdirTemp("", "explorebench")
	if err != nil {
		return stored{}, nil, err
	}
	st, err := sqlite.Backend{}.Open(ctx, dir, cairn.StorageOptions{FeatureVersion: "explorebench"})
	if err != nil {
		return stored{}, nil, err
	}
	var lists []cairn.NeighbourList
	for id, l := range t {
		nl := cairn.NeighbourList{ID: id, Hash: "h"}
		for _, nb := range l {
			nl.Near = append(nl.Near, cairn.MemoryNeighbour{ID: nb.ID, Similarity: nb.Similarity})
		}
		lists = append(lists, nl)
	}
	if err := st.PutNeighbours(ctx, benchIdentity, lists); err != nil {
		return stored{}, nil, err
	}
	return stored{st}, func() { st.Close(); os.RemoveAll(dir) }, nil
}

// live searches a vector index with the memory's own vector.
type live struct {
	ix   *vector.Index
	vecs [][]float32
	ids  []string
	slot map[string]int
}

func (l *live) Nearest(_ context.Context, id string, k int) ([]explore.Neighbour, error) {
	i := l.slot[id]
	var out []explore.Neighbour
	for _, r := range l.ix.Search(l.vecs[i], k+1, nil) {
		if int(r.Key) != i {
			out = append(out, explore.Neighbour{ID: l.ids[r.Key], Similarity: float64(r.Score)})
		}
	}
	return out[:min(k, len(out))], nil
}

func makeLive(c *corpus, dim int, rng *rand.Rand) (*live, error) {
	dirs := make([][]float32, len(c.members))
	for t := range dirs {
		dirs[t] = unit(func(int) float64 { return rng.NormFloat64() }, dim)
	}
	l := &live{ix: vector.New(dim), slot: map[string]int{}}
	for i, m := range c.memories {
		v := unit(func(j int) float64 { return float64(dirs[c.topic[i]][j])*2 + rng.NormFloat64()*0.08 }, dim)
		if err := l.ix.Add(int64(i), v); err != nil {
			return nil, fmt.Errorf("add vector: %w", err)
		}
		l.vecs = append(l.vecs, v)
		l.ids = append(l.ids, m.ID)
		l.slot[m.ID] = i
	}
	return l, nil
}

func unit(f func(int) float64, dim int) []float32 {
	v := make([]float32, dim)
	s := 0.0
	for j := range v {
		x := f(j)
		v[j] = float32(x)
		s += x * x
	}
	for j := range v {
		v[j] /= float32(math.Sqrt(s))
	}
	return v
}

func heapMB() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

func run(n, queries, dim int, seed uint64) error {
	c := generate(n, seed)
	rng := rand.New(rand.NewPCG(seed, 99))
	before := heapMB()
	start := time.Now()
	g := explore.Build(c.memories, c.links)
	build := time.Since(start)
	graphHeap := heapMB() - before
	st := g.Stats()
	tab := makeTable(c, rng)
	sq, done, err := makeStored(context.Background(), tab)
	if err != nil {
		return err
	}
	defer done()
	modes := []struct {
		name string
		near explore.Neighbours
	}{{"graph only", nil}, {"cached neighbour table", tab}, {"neighbour lists in SQLite", sq}}
	if dim > 0 {
		l, err := makeLive(c, dim, rng)
		if err != nil {
			return err
		}
		modes = append(modes, struct {
			name string
			near explore.Neighbours
		}{fmt.Sprintf("vector index search (%d-d)", dim), l})
	}
	seedsOf := make([][]string, queries)
	for q := range seedsOf {
		ms := c.members[rng.IntN(len(c.members))]
		for _, i := range ms[:min(10, len(ms))] {
			seedsOf[q] = append(seedsOf[q], c.memories[i].ID)
		}
	}
	filter := func(id string) bool { return !c.superseded[id] }
	mask := g.Mask(filter)
	modes = append(modes, modes[0])
	modes[len(modes)-1].name = "graph only, filter callback (not a mask)"
	for mi, mode := range modes {
		x := explore.New(g, nil, mode.near)
		var times []float64
		var pushes, touched, calls int
		var cpu0 time.Duration
		for q := -1; q < queries; q++ { // q = -1 warms up
			seeds := seedsOf[max(q, 0)]
			if q == 0 {
				cpu0 = cpuTime()
			}
			t0 := time.Now()
			req := &explore.Request{IDs: seeds, Mask: mask}
			if mi == len(modes)-1 {
				req = &explore.Request{IDs: seeds, Filter: filter}
			}
			res, err := x.Explore(context.Background(), req)
			if err != nil {
				return err
			}
			if q >= 0 {
				times = append(times, float64(time.Since(t0).Microseconds())/1000)
				pushes, touched, calls = pushes+res.Stats.Pushes, touched+res.Stats.Touched, calls+res.Stats.NeighbourCalls
			}
		}
		cpu := float64((cpuTime() - cpu0).Microseconds()) / 1000 / float64(queries)
		slices.Sort(times)
		mean := 0.0
		for _, t := range times {
			mean += t
		}
		mean /= float64(len(times))
		fmt.Printf("| %d | %d | %d | %.0f | %.1f | %.1f | %s | %.2f | %.2f | %.2f | %.2f | %d | %d | %d |\n",
			st.Memories, st.Concepts, st.ConceptEdges+st.RelatedEdges, float64(build.Milliseconds()), float64(st.Bytes)/(1<<20), graphHeap,
			mode.name, pct(times, 0.50), pct(times, 0.99), mean, cpu, pushes/queries, touched/queries, calls/queries)
	}
	fmt.Fprintf(os.Stderr, "explorebench: %d memories done\n", n)
	return nil
}

// cpuTime is the process's user and system time: a busy machine's
// waiting for a core is not in it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func pct(sorted []float64, p float64) float64 {
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}
