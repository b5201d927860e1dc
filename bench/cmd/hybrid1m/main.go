// Command hybrid1m measures warm hybrid search end to end over a large
// index whose chunks have no vectors yet, as the 1M-chunk cairnbench
// index (/tmp/l1big) has none: embedding a million chunks takes about
// two hours here. -prepare gives every chunk a vector through the
// store's own listing and write (one in -every embedded by USE-lite, the
// others synthetic neighbours of the last real one: gen.go), and the
// measurement then opens the engine as cairn serve does (long-lived,
// memory-mapped, the vector file and its coarse lists written by the
// first search) and times hybrid searches with real query embedding:
// p50/p90/p99 of the whole search and of its parts, process CPU, peak
// RSS, the load beside each line.
//
//	cp -r /tmp/l1big/n480000/home/agents/default /tmp/h1m/d1m
//	hybrid1m -data /tmp/h1m/d1m -notes /tmp/l1big/n480000/notes -shared ../shared -quantize int8 -prepare -every 100
//	hybrid1m -data /tmp/h1m/d1m -notes /tmp/l1big/n480000/notes -shared ../shared -quantize int8 -int8 -queries 500
//
// Run it on a copy: -prepare writes the index, and the first search
// writes vectors.bin and vectors.bin.lists beside it. bench/h1m-remeasure.sh
// does both sizes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/tokenize"
)

func main() {
	var c config
	flag.StringVar(&c.data, "data", "", "the agent data directory (index.db): a copy, written by -prepare and the first search")
	flag.StringVar(&c.notes, "notes", "", "the corpus folder the index was synced from (corpus bench; only named, never read or synced)")
	flag.StringVar(&c.corpus, "corpus", "bench", "the corpus name in the index")
	flag.StringVar(&c.shared, "shared", "../shared", "folder holding models/use-lite and lib/onnxruntime")
	flag.StringVar(&c.quantize, "quantize", "int8", "the index's model: none (FP32) or int8; -prepare embeds with it, its identity keys the vectors")
	flag.BoolVar(&c.int8, "int8", false, "time queries with the FP32 and the INT8 query model alternating query by query, both under the index's identity")
	flag.BoolVar(&c.prepare, "prepare", false, "give every chunk without a vector one (gen.go), then measure")
	flag.IntVar(&c.every, "every", 100, "-prepare: embed one chunk in this many (id order) with the model; the others get synthetic neighbours")
	flag.Float64Var(&c.noise, "noise", 0.1, "-prepare: expected length of the noise added to a real vector for a synthetic neighbour (before normalizing)")
	flag.Uint64Var(&c.seed, "seed", 1, "-prepare: noise seed")
	flag.StringVar(&c.cpuprofile, "cpuprofile", "", "write a CPU profile of the timed hybrid and lexical searches to this file")
	flag.IntVar(&c.slowest, "slowest", 0, "also list the N hybrid searches of the most CPU per model, with their parts")
	flag.IntVar(&c.queries, "queries", 500, "queries timed (corpus.Queries, seed 1: hybridbench's list); 0 with -prepare: prepare only")
	flag.Parse()
	if c.data == "" || c.notes == "" {
		fmt.Fprintln(os.Stderr, "hybrid1m: -data and -notes are required")
		os.Exit(2)
	}
	if err := run(context.Background(), &c); err != nil {
		fmt.Fprintln(os.Stderr, "hybrid1m:", err)
		os.Exit(1)
	}
}

type config struct {
	data, notes, corpus, shared, quantize string
	cpuprofile                            string
	int8, prepare                         bool
	every, queries, slowest               int
	noise                                 float64
	seed                                  uint64
}

func run(ctx context.Context, c *config) error {
	switch c.quantize {
	case "none", "fp32":
		c.quantize = onnx.QuantizeNone
	case onnx.QuantizeInt8:
	default:
		return fmt.Errorf("-quantize %q: want none or int8", c.quantize)
	}
	if _, err := os.Stat(filepath.Join(c.data, "index.db")); err != nil {
		return err
	}
	emb, err := newEmbedder(c.shared, c.quantize)
	if err != nil {
		return err
	}
	sw := &switchEmbedder{models: []cairn.Embedder{emb}}
	names := []string{modelName(c.quantize)}
	if c.int8 {
		other := onnx.QuantizeInt8
		if c.quantize == onnx.QuantizeInt8 {
			other = onnx.QuantizeNone
		}
		e2, err := newEmbedder(c.shared, other)
		if err != nil {
			emb.Close()
			return err
		}
		sw.models = append(sw.models, e2)
		names = append(names, modelName(other))
	}
	if c.prepare {
		if err := prepare(ctx, c.data, emb, c.every, c.noise, c.seed); err != nil {
			sw.Close()
			return err
		}
		if c.queries == 0 {
			return sw.Close()
		}
	}
	return measure(ctx, c, sw, names)
}

func modelName(quantize string) string {
	if quantize == onnx.QuantizeInt8 {
		return "int8"
	}
	return "fp32"
}

func newEmbedder(shared, quantize string) (*onnx.Embedder, error) {
	return onnx.New(onnx.Options{ModelDir: filepath.Join(shared, "models", "use-lite"),
		Library:       filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }, Quantize: quantize})
}

// switchEmbedder is the engine's embedder: it embeds with models[use]
// under the identity of models[0] (the index's model), and keeps the
// duration and vector of its last call, so a hybrid search's query
// embedding can be told from the rest (one search at a time: the engine
// embeds a query on the goroutine that called Search).
type switchEmbedder struct {
	models []cairn.Embedder
	use    atomic.Int32
	last   atomic.Int64 // nanoseconds of the last Embed
	vec    atomic.Pointer[[]float32]
	calls  atomic.Int64
}

func (s *switchEmbedder) Identity() cairn.EmbedderIdentity { return s.models[0].Identity() }

func (s *switchEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	t := time.Now()
	vs, err := s.models[s.use.Load()].Embed(ctx, kind, texts)
	s.last.Store(int64(time.Since(t)))
	s.calls.Add(1)
	if err == nil && len(vs) == 1 {
		s.vec.Store(&vs[0])
	}
	return vs, err
}

// Close closes every model (the engine's Close calls it).
func (s *switchEmbedder) Close() error {
	var errs []error
	for _, m := range s.models {
		if c, ok := m.(interface{ Close() error }); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// processCPU is the process's user and system time so far (every thread).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// residentMB is the process's resident set now and on huge pages, in MB.
func residentMB() (rss, huge int64) {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "Rss:" {
			fmt.Sscan(f[1], &rss)
		} else if len(f) >= 2 && f[0] == "AnonHugePages:" {
			fmt.Sscan(f[1], &huge)
		}
	}
	return rss >> 10, huge >> 10
}
