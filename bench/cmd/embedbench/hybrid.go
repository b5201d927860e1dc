package main

// -hybrid DATA: warm hybrid search latency with FP32 and INT8 query
// embeddings alternating query by query in one process, over a kept
// index (a copy of hybridbench's data directory: searches write nothing
// but the vector file's cache, still, use a copy):
//
//	/tmp/eb -hybrid /tmp/hbcopy/data -notes /tmp/hb50/notes -shared ../shared -queries 500
//
// One engine holds a switching embedder: both models' sessions, the
// identity of -index-quantize (the model that embedded the index, so the
// vector lane is the index's), and a switch that picks which model embeds
// the next query. The INT8 and FP32 vectors of a query are within cosine
// 0.998 (quant.go), so each side searches the same lane as it would with
// its own index; the cost measured is the query embedding's and the
// search's. Queries are hybridbench's (bench/corpus.Queries), one warm
// pass over them first; wall and process CPU per search at p50 and p99.

import (
	"context"
	"errors"
	"fmt"
	"github.com/cairnmemory/cairn/bench/procstat"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// switchEmbedder embeds with models[use], under the identity of models[id].
type switchEmbedder struct {
	models [2]*onnx.Embedder
	id     int
	use    atomic.Int32
}

func (s *switchEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	return s.models[s.use.Load()].Embed(ctx, kind, texts)
}

func (s *switchEmbedder) Identity() cairn.EmbedderIdentity { return s.models[s.id].Identity() }

func (s *switchEmbedder) Close() error {
	return errors.Join(s.models[0].Close(), s.models[1].Close())
}

func hybridAB(data, notes, shared, indexQuantize string, nq int) error {
	ctx := context.Background()
	sw := &switchEmbedder{}
	for i, q := range []string{"", onnx.QuantizeInt8} {
		e, err := quantEmbedder(shared, q)
		if err != nil {
			return err
		}
		sw.models[i] = e
		if q == indexQuantize {
			sw.id = i
		}
	}
	eng, err := local.Open(ctx, engine.Options{Dir: data, Embedder: sw,
		Corpora: []cairn.Corpus{{Name: "bench", Kind: cairn.KindFiles, Paths: []string{notes}}}})
	if err != nil {
		sw.Close()
		return err
	}
	defer eng.Close(ctx)
	qs := corpus.Queries(nq, 1)
	for side := range 2 { // warm: the index loaded, term counts cached
		sw.use.Store(int32(side))
		for _, q := range qs {
			if _, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeHybrid}); err != nil {
				return fmt.Errorf("warm-up search %q: %w", q, err)
			}
		}
	}
	runtime.GC()
	wall := [2][]float64{}
	cpu := [2][]float64{}
	load := procstat.Load1()
	for i, q := range qs {
		order := []int{0, 1}
		if i%2 == 1 {
			order = []int{1, 0}
		}
		for _, side := range order {
			sw.use.Store(int32(side))
			c0, t0 := cpuTime(), time.Now()
			if _, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeHybrid}); err != nil {
				return err
			}
			wall[side] = append(wall[side], time.Since(t0).Seconds()*1000)
			cpu[side] = append(cpu[side], (cpuTime()-c0).Seconds()*1000)
		}
	}
	fmt.Printf("warm hybrid search, %d queries each, FP32 and INT8 query embedding alternating; index embedded %s; load %.1f to %.1f\n",
		len(qs), map[string]string{"": "fp32", onnx.QuantizeInt8: "int8"}[indexQuantize], load, procstat.Load1())
	fmt.Printf("%-6s %9s %9s %9s %9s\n", "query", "wall p50", "wall p99", "cpu p50", "cpu p99")
	for side, name := range []string{"fp32", "int8"} {
		fmt.Printf("%-6s %9.2f %9.2f %9.2f %9.2f\n", name, pct(wall[side], 50), pct(wall[side], 99), pct(cpu[side], 50), pct(cpu[side], 99))
	}
	return nil
}
