// Command clusterbench measures the cluster package on labelled corpora:
// notes generated from 16 known topics (plus near-duplicates, exact
// duplicates and noise notes), embedded with the shared USE-lite model.
// It reports the adjusted Rand index and the noise share against the
// labels, and the time and peak memory of clustering, per corpus size.
//
//	go run -tags sqlite_fts5 ./bench/cmd/clusterbench -shared ../shared -sizes 1000,10000
//
// Embeddings are cached in -cache (a smaller corpus is a prefix of a larger
// one, so one file serves every size; a larger size embeds only the new
// tail). Each size is clustered in a child process that never loads ONNX
// Runtime, so its peak RSS (VmHWM) is the clustering's, the vectors
// included.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/tokenize"
)

var (
	shared    = flag.String("shared", "../shared", "the shared folder (models/use-lite, lib/onnxruntime)")
	sizes     = flag.String("sizes", "1000,10000", "comma-separated corpus sizes in chunks")
	cacheDir  = flag.String("cache", filepath.Join(os.TempDir(), "clusterbench"), "folder of the embedding cache")
	seed      = flag.Uint64("seed", 1, "corpus generator seed")
	child     = flag.Int("child", 0, "internal: cluster this many chunks from the cache and print one JSON result")
	method    = flag.String("method", "", "space.method (umap or none; default umap)")
	ncomp     = flag.Int("ncomponents", 0, "space.nComponents (0: default)")
	minSize   = flag.Int("min-cluster-size", 0, "hdbscan.minClusterSize (0: automatic)")
	minSample = flag.Int("min-samples", 0, "hdbscan.minSamples (0: automatic)")
	selection = flag.String("selection", "", "hdbscan.clusterSelectionMethod (eom or leaf)")
	profile   = flag.String("cpuprofile", "", "write a CPU profile of the clustering (each size's child overwrites it)")
	synthetic = flag.Bool("synthetic", false, "vectors made in process (synth.go), no model: time and memory at sizes too large to embed here")
)

func main() {
	flag.Parse()
	var err error
	if *child > 0 {
		err = runChild(context.Background(), *child)
	} else {
		err = runParent(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "clusterbench:", err)
		os.Exit(1)
	}
}

func cachePath() string { return filepath.Join(*cacheDir, fmt.Sprintf("vectors-seed%d.bin", *seed)) }

func modelDigest() (string, error) {
	f, err := os.Open(filepath.Join(*shared, "models", "use-lite", onnx.ModelFile))
	if err != nil {
		return "", fmt.Errorf("open model: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read model: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func runParent(ctx context.Context) error {
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 10 {
			return fmt.Errorf("read -sizes %q: want sizes of at least 10", *sizes)
		}
		ns = append(ns, n)
	}
	largest := 0
	for _, n := range ns {
		largest = max(largest, n)
	}
	chunks := generate(largest, *seed)
	if !*synthetic {
		if err := ensureEmbedded(ctx, chunks); err != nil {
			return err
		}
	}
	fmt.Println("| chunks | unique | exact duplicates (found / made) | topics found | noise share | true noise as noise | ARI all | ARI topic chunks | ARI clustered | time s | CPU s | peak RSS MB |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, n := range ns {
		args := append([]string{"-child", strconv.Itoa(n)}, passThrough()...)
		cmd := exec.CommandContext(ctx, os.Args[0], args...)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("cluster %d chunks: %w", n, err)
		}
		var r result
		if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
			return fmt.Errorf("read result of %d chunks: %w", n, err)
		}
		fmt.Printf("| %d | %d | %d / %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f | %.0f |\n", r.Chunks, r.Unique,
			r.DuplicatesFound, r.DuplicatesMade, r.Clusters, r.NoiseShare, r.TrueNoiseCaught, r.ARIAll, r.ARITopics,
			r.ARIClustered, r.Seconds, r.CPUSeconds, r.PeakRSSMB)
	}
	return nil
}

// passThrough repeats the clustering flags for the child.
func passThrough() []string {
	var args []string
	flag.Visit(func(f *flag.Flag) {
		if f.Name != "sizes" && f.Name != "child" {
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	return args
}

// ensureEmbedded embeds the chunks missing from the cache and saves it.
func ensureEmbedded(ctx context.Context, chunks []chunk) error {
	digest, err := modelDigest()
	if err != nil {
		return err
	}
	c, err := loadCache(cachePath(), digest, chunks)
	if err != nil {
		return err
	}
	if len(c.vecs) >= len(chunks) {
		return nil
	}
	emb, err := onnx.New(onnx.Options{ModelDir: filepath.Join(*shared, "models", "use-lite"),
		Library:       filepath.Join(*shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }})
	if err != nil {
		return err
	}
	defer emb.Close()
	fmt.Fprintf(os.Stderr, "embedding chunks %d to %d\n", len(c.vecs), len(chunks))
	const batch = 500
	for lo := len(c.vecs); lo < len(chunks); lo += batch {
		hi := min(len(chunks), lo+batch)
		texts := make([]string, 0, hi-lo)
		for _, ch := range chunks[lo:hi] {
			texts = append(texts, ch.text)
		}
		vs, err := emb.Embed(ctx, cairn.EmbedDocument, texts)
		if err != nil {
			return fmt.Errorf("embed chunks %d to %d: %w", lo, hi, err)
		}
		c.vecs = append(c.vecs, vs...)
		c.dim = len(vs[0])
		if hi%5000 == 0 || hi == len(chunks) {
			fmt.Fprintf(os.Stderr, "embedded %d\n", hi)
			if err := c.save(cachePath(), chunks); err != nil {
				return err
			}
		}
	}
	return nil
}
