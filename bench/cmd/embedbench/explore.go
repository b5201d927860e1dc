package main

// The -explore mode measures the embedder alone on real texts, one
// configuration after another in passes (so load from the rest of the
// machine falls on every configuration alike): texts/s, CPU-ms a text,
// real and padded tokens/s, and the model's arithmetic rate. It answers
// "how far is the compute floor" for issue 19 item 5:
//
//	go build -tags sqlite_fts5 -o /tmp/eb ./bench/cmd/embedbench
//	/tmp/eb -explore docs -docs /tmp/i1docs -n 384 -passes 2 -configs b1,b2,b4,b8,b16,b32
//
// Texts: "docs" chunks every Markdown file under -docs with the sync's
// chunker (chunk.New) and keeps every k-th non-noise chunk, "locomo" takes
// every k-th turn of the LoCoMo development split as "Speaker: text" (what
// an agent's transcript turn looks like), "sessions" renders LoCoMo
// sessions as embedbench's corpus does and chunks them, "questions" takes
// the split's questions (what a search embeds).
//
// A configuration is a dash-separated list of settings: bN (texts per
// batch, default 4), wN (sessions, default 2), tN (intra-op threads per
// session, default 1), nospin, int8 (weights quantized at load,
// onnx.QuantizeInt8; bits7 or bits8 forces onnx.Options.Int8Bits), capN (tokens kept per text), cache (the
// sessions made from the optimized-graph cache, as cairn makes them; in
// $TMPDIR/embedbench-graph-cache, built by the first run), and the batch
// order: "round" (default: what sync does, Embed calls of 64 texts, each
// sorted by token count inside Embed), "input" (no sorting: each worker
// pulls the next batch of the texts in their order) or "global" (all the
// texts sorted by token count first, then rounds of 64).

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"github.com/cairnmemory/cairn/bench/procstat"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/chunk"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/tokenize"
)

type exploreConfig struct {
	name                        string
	batch, workers, threads, mx int
	noSpin, cache, int8         bool
	bits                        int
	order                       string
}

func parseConfig(s string) (exploreConfig, error) {
	c := exploreConfig{name: s, batch: 4, workers: 2, threads: 1, mx: 128, order: "round"}
	for _, f := range strings.Split(s, "-") {
		num := func(prefix string) (int, bool) {
			if !strings.HasPrefix(f, prefix) {
				return 0, false
			}
			n, err := strconv.Atoi(f[len(prefix):])
			return n, err == nil && n > 0
		}
		if n, ok := num("cap"); ok {
			c.mx = n
		} else if n, ok := num("bits"); ok {
			c.bits = n
		} else if n, ok := num("b"); ok {
			c.batch = n
		} else if n, ok := num("w"); ok {
			c.workers = n
		} else if n, ok := num("t"); ok {
			c.threads = n
		} else if f == "nospin" {
			c.noSpin = true
		} else if f == "cache" {
			c.cache = true
		} else if f == "int8" {
			c.int8 = true
		} else if f == "round" || f == "input" || f == "global" {
			c.order = f
		} else {
			return c, fmt.Errorf("configuration %q: unknown setting %q", s, f)
		}
	}
	return c, nil
}

// macs is the multiply-adds of one USE-lite run over a batch padded to
// seq tokens (README of the model: two transformer layers of 256 and 512
// wide, feed-forward 512-1536-512, a 512x512 dense layer at the end):
// 4,653,056 a token in the dense layers, 1,536 a token pair in attention
// (scores and weighted sum over 256 + 512 dimensions), 262,144 a text.
func macs(texts, seq int) float64 {
	return float64(texts) * (4653056*float64(seq) + 1536*float64(seq)*float64(seq) + 262144)
}

func explore(kind, docs, shared string, n, passes int, configs []string) error {
	cfgs := make([]exploreConfig, len(configs))
	for i, s := range configs {
		c, err := parseConfig(s)
		if err != nil {
			return err
		}
		cfgs[i] = c
	}
	texts, err := exploreTexts(kind, docs, shared, n)
	if err != nil {
		return err
	}
	tok, err := tokenize.Load(filepath.Join(shared, "models", "use-lite", onnx.TokenizerFile))
	if err != nil {
		return err
	}
	lens := make([]int, len(texts))
	for i, t := range texts {
		lens[i] = len(tok.Encode(t))
	}
	describe(kind, lens)
	for _, c := range cfgs {
		real, padded, share := padding(lens, c)
		fmt.Printf("padding %-22s real tokens %d, padded %d: padding share %.1f%%\n", c.name, real, padded, 100*share)
	}
	fmt.Printf("%-24s %4s %8s %9s %11s %10s %11s %8s %5s\n", "config", "pass", "texts/s", "cpu-ms/txt", "real tok/s", "GFLOP/s", "GFLOP/cpu-s", "wall s", "load")
	for p := 1; p <= passes; p++ {
		for _, c := range cfgs {
			if err := exploreRun(c, p, texts, lens, shared); err != nil {
				return err
			}
		}
	}
	return nil
}

func describe(kind string, lens []int) {
	s := slices.Clone(lens)
	slices.Sort(s)
	sum, at := 0, 0
	for _, l := range s {
		sum += l
		if l >= 128 {
			at++
		}
	}
	q := func(f float64) int { return s[min(len(s)-1, int(f*float64(len(s))))] }
	fmt.Printf("texts: %d %s, tokens before the cut: mean %.1f, p10 %d, p50 %d, p90 %d, max %d; at or past 128: %d (%.0f%%)\n",
		len(s), kind, float64(sum)/float64(len(s)), q(0.1), q(0.5), q(0.9), s[len(s)-1], at, 100*float64(at)/float64(len(s)))
}

// batches cuts the texts into batches as the configuration's order does;
// each entry holds text indexes.
func batches(lens []int, c exploreConfig) [][]int {
	idx := make([]int, len(lens))
	for i := range idx {
		idx[i] = i
	}
	cut := func(l int) int { return min(l, c.mx) }
	desc := func(a, b int) int { return cmp.Compare(cut(lens[b]), cut(lens[a])) }
	if c.order == "global" {
		slices.SortStableFunc(idx, desc)
	}
	var out [][]int
	for len(idx) > 0 {
		round := idx[:min(64, len(idx))]
		idx = idx[len(round):]
		if c.order == "input" {
			round, idx = append(round, idx...), nil
		} else {
			round = slices.Clone(round)
			slices.SortStableFunc(round, desc)
		}
		for len(round) > 0 {
			k := min(c.batch, len(round))
			out = append(out, round[:k])
			round = round[k:]
		}
	}
	return out
}

// padding counts real and padded tokens (each batch padded to its longest
// text, as the model does inside).
func padding(lens []int, c exploreConfig) (real, padded int, share float64) {
	for _, b := range batches(lens, c) {
		m := 0
		for _, i := range b {
			l := min(lens[i], c.mx)
			real += l
			m = max(m, l)
		}
		padded += m * len(b)
	}
	return real, padded, 1 - float64(real)/float64(padded)
}

func exploreRun(c exploreConfig, pass int, texts []string, lens []int, shared string) error {
	ctx := context.Background()
	cacheDir := ""
	if c.cache {
		cacheDir = filepath.Join(os.TempDir(), "embedbench-graph-cache")
	}
	q := ""
	if c.int8 {
		q = onnx.QuantizeInt8
	}
	emb, err := onnx.New(onnx.Options{CacheDir: cacheDir, Quantize: q, ModelDir: filepath.Join(shared, "models", "use-lite"),
		Library:       filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) },
		Workers:       c.workers, Batch: c.batch, Threads: c.threads, NoSpin: c.noSpin, MaxTokens: c.mx, Int8Bits: c.bits})
	if err != nil {
		return err
	}
	defer emb.Close()
	// Warm up: the arenas grow to a batch's working set on the first runs.
	if _, err := emb.Embed(ctx, cairn.EmbedDocument, texts[:min(len(texts), 2*c.batch*c.workers)]); err != nil {
		return err
	}
	bs := batches(lens, c)
	var flop float64
	real := 0
	for _, b := range bs {
		m := 0
		for _, i := range b {
			l := min(lens[i], c.mx)
			real += l
			m = max(m, l)
		}
		flop += 2 * macs(len(b), m)
	}
	load := procstat.Load1()
	cpu0, t0 := cpuTime(), time.Now()
	if c.order == "input" {
		// Each worker pulls the next batch: one Embed call a batch, so
		// Embed's own sorting sees one batch only.
		var next atomic.Int64
		var wg sync.WaitGroup
		errs := make([]error, c.workers)
		for w := range c.workers {
			wg.Go(func() {
				for j := int(next.Add(1) - 1); j < len(bs); j = int(next.Add(1) - 1) {
					in := make([]string, len(bs[j]))
					for k, i := range bs[j] {
						in[k] = texts[i]
					}
					if _, err := emb.Embed(ctx, cairn.EmbedDocument, in); err != nil {
						errs[w] = err
						return
					}
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
	} else {
		order := make([]int, 0, len(texts))
		for _, b := range bs {
			order = append(order, b...)
		}
		for len(order) > 0 {
			round := order[:min(64, len(order))]
			order = order[len(round):]
			in := make([]string, len(round))
			for k, i := range round {
				in[k] = texts[i]
			}
			if _, err := emb.Embed(ctx, cairn.EmbedDocument, in); err != nil {
				return err
			}
		}
	}
	wall, cpu := time.Since(t0).Seconds(), (cpuTime() - cpu0).Seconds()
	fmt.Printf("%-24s %4d %8.1f %9.2f %11.0f %10.1f %11.1f %8.2f %5.1f\n", c.name, pass, float64(len(texts))/wall,
		1000*cpu/float64(len(texts)), float64(real)/wall, flop/wall/1e9, flop/cpu/1e9, wall, load)
	return nil
}

// exploreTexts picks n texts of the kind, spread evenly over the corpus.
func exploreTexts(kind, docs, shared string, n int) ([]string, error) {
	var all []string
	ck := chunk.New()
	addChunks := func(text string) {
		for _, c := range ck.Chunk(text) {
			if !c.Noise {
				all = append(all, text[c.Pos:c.Pos+c.Len])
			}
		}
	}
	switch kind {
	case "docs":
		err := filepath.WalkDir(docs, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			addChunks(string(b))
			return nil
		})
		if err != nil {
			return nil, err
		}
	case "locomo", "sessions", "questions":
		raw, err := os.ReadFile(filepath.Join(shared, "data", "locomo", "locomo-dev.json"))
		if err != nil {
			return nil, err
		}
		var samples []struct {
			ID           string                     `json:"sample_id"`
			Conversation map[string]json.RawMessage `json:"conversation"`
			QA           []struct {
				Question string `json:"question"`
			} `json:"qa"`
		}
		if err := json.Unmarshal(raw, &samples); err != nil {
			return nil, fmt.Errorf("read locomo: %w", err)
		}
		for _, s := range samples {
			if kind == "questions" {
				for _, q := range s.QA {
					all = append(all, q.Question)
				}
				continue
			}
			for k := 1; ; k++ {
				v, ok := s.Conversation[fmt.Sprintf("session_%d", k)]
				if !ok {
					break
				}
				var turns []struct{ Speaker, Text string }
				if err := json.Unmarshal(v, &turns); err != nil {
					return nil, fmt.Errorf("read locomo %s session %d: %w", s.ID, k, err)
				}
				var b strings.Builder
				fmt.Fprintf(&b, "# %s, session %d\n\n", s.ID, k)
				for _, t := range turns {
					if kind == "locomo" {
						all = append(all, t.Speaker+": "+t.Text)
					}
					fmt.Fprintf(&b, "**%s:** %s\n\n", t.Speaker, t.Text)
				}
				if kind == "sessions" {
					addChunks(b.String())
				}
			}
		}
	default:
		return nil, fmt.Errorf("-explore %q: want docs, locomo, sessions or questions", kind)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no %s texts found", kind)
	}
	if n <= 0 || n >= len(all) {
		return all, nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = all[i*len(all)/n]
	}
	return out, nil
}
