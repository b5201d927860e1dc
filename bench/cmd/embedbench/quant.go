package main

// FP32 against INT8 weights (onnx.Options.Quantize) on real texts:
//
//	/tmp/eb -explore docs -docs /tmp/i1docs -n 384 -quality      # cosine of each text's two vectors
//	/tmp/eb -explore questions -n 400 -queries 400               # query embedding latency
//
// -quality embeds the texts with both models (batch 4, two sessions, as
// sync does) and prints the cosine of each text's INT8 vector with its
// FP32 one: min, p1, p10, mean. -queries N embeds N texts one call each
// as queries (what a hybrid search does), the FP32 and the INT8 embedder
// alternating call by call (the order flipped every call), and prints
// wall and process CPU per call at p50 and p99. "questions" are the
// LoCoMo development split's questions (exploreTexts).

import (
	"context"
	"fmt"
	"github.com/cairnmemory/cairn/bench/procstat"
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/tokenize"
)

func compareQuant(kind, docs, shared string, n int, quality bool, queries int) error {
	texts, err := exploreTexts(kind, docs, shared, max(n, queries))
	if err != nil {
		return err
	}
	fp32, err := quantEmbedder(shared, "")
	if err != nil {
		return err
	}
	defer fp32.Close()
	int8, err := quantEmbedder(shared, onnx.QuantizeInt8)
	if err != nil {
		return err
	}
	defer int8.Close()
	fmt.Printf("%d %s texts, load %.1f\n", len(texts), kind, procstat.Load1())
	if quality {
		if err := cosines(fp32, int8, texts); err != nil {
			return err
		}
	}
	if queries > 0 {
		return queryLatency(fp32, int8, texts[:min(queries, len(texts))])
	}
	return nil
}

// int8Bits is -int8-bits: onnx.Options.Int8Bits of the INT8 side (0: by
// the CPU).
var int8Bits int

func quantEmbedder(shared, q string) (*onnx.Embedder, error) {
	return onnx.New(onnx.Options{ModelDir: filepath.Join(shared, "models", "use-lite"),
		Library:       filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }, Quantize: q, Int8Bits: int8Bits})
}

func cosines(a, b *onnx.Embedder, texts []string) error {
	ctx := context.Background()
	va, err := a.Embed(ctx, cairn.EmbedDocument, texts)
	if err != nil {
		return err
	}
	vb, err := b.Embed(ctx, cairn.EmbedDocument, texts)
	if err != nil {
		return err
	}
	cs := make([]float64, len(texts))
	sum := 0.0
	for i := range texts {
		cs[i] = cosine(va[i], vb[i])
		sum += cs[i]
	}
	slices.Sort(cs)
	fmt.Printf("cosine int8 vs fp32: min %.5f  p1 %.5f  p10 %.5f  mean %.5f\n",
		cs[0], cs[len(cs)/100], cs[len(cs)/10], sum/float64(len(cs)))
	return nil
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// queryLatency embeds each text as a query with both embedders, the
// order flipped every text.
func queryLatency(fp32, int8 *onnx.Embedder, texts []string) error {
	ctx := context.Background()
	type side struct {
		name      string
		emb       *onnx.Embedder
		wall, cpu []float64
	}
	sides := []*side{{name: "fp32", emb: fp32}, {name: "int8", emb: int8}}
	for _, s := range sides { // warm up
		if _, err := s.emb.Embed(ctx, cairn.EmbedQuery, texts[:min(8, len(texts))]); err != nil {
			return err
		}
	}
	for i, t := range texts {
		order := sides
		if i%2 == 1 {
			order = []*side{sides[1], sides[0]}
		}
		for _, s := range order {
			c0, t0 := cpuTime(), time.Now()
			if _, err := s.emb.Embed(ctx, cairn.EmbedQuery, []string{t}); err != nil {
				return err
			}
			s.wall = append(s.wall, time.Since(t0).Seconds()*1000)
			s.cpu = append(s.cpu, (cpuTime()-c0).Seconds()*1000)
		}
	}
	fmt.Printf("query embedding, %d calls each, alternating (ms a call), load %.1f:\n", len(texts), procstat.Load1())
	fmt.Printf("%-6s %9s %9s %9s %9s\n", "model", "wall p50", "wall p99", "cpu p50", "cpu p99")
	for _, s := range sides {
		fmt.Printf("%-6s %9.2f %9.2f %9.2f %9.2f\n", s.name, pct(s.wall, 50), pct(s.wall, 99), pct(s.cpu, 50), pct(s.cpu, 99))
	}
	return nil
}

func pct(v []float64, p int) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}
