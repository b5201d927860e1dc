// Command portbench builds the agent that cairn export and cairn import
// are measured on: a generated notes corpus (bench/cmd/gencorpus) synced
// into a SQLite data directory with a deterministic 384-dimension
// embedder (hashed words, unit length: no model, so the build takes
// minutes, not hours), one vector per chunk as a real embedder stores
// them. It prints the chunks and vectors stored; time the export and the
// import with the CLI (bench/RESULTS.md, "export and import").
//
//	go build -o /tmp/gencorpus ./bench/cmd/gencorpus && /tmp/gencorpus -out /tmp/port100k/notes -notes 48000
//	go run -tags sqlite_fts5 ./bench/cmd/portbench -notes /tmp/port100k/notes -data /tmp/port100k/agent
//
// With -corpus, -glob and -hashembed it embeds an existing index (a copy
// of cairnbench's 1M-chunk index, which has no vectors) with the stand-in
// embedder pgbench searches with, so hybrid search can be timed on it.
package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/hashembed"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

func main() {
	notes := flag.String("notes", "", "the notes folder to index")
	data := flag.String("data", "", "the data directory to build")
	corpusName := flag.String("corpus", "notes", "the corpus name (an existing data directory's, to embed what it holds)")
	glob := flag.String("glob", "**/*.md", "the corpus glob (\"default\": cairn.DefaultGlob, as cairnbench indexed)")
	hashed := flag.Bool("hashembed", false, "embed with bench/hashembed, the stand-in pgbench searches with, instead of this command's own")
	flag.Parse()
	if *notes == "" || *data == "" {
		fmt.Fprintln(os.Stderr, "portbench: -notes and -data are required")
		os.Exit(2)
	}
	if *glob == "default" {
		*glob = cairn.DefaultGlob
	}
	var emb cairn.Embedder = hashEmbedder{}
	if *hashed {
		emb = hashembed.Embedder{}
	}
	if err := run(context.Background(), *notes, *data, *corpusName, *glob, emb); err != nil {
		fmt.Fprintln(os.Stderr, "portbench:", err)
		os.Exit(1)
	}
}

// run syncs notes into data (an existing index: what changed, then the
// chunks without a vector of emb embedded).
func run(ctx context.Context, notes, data, name, glob string, emb cairn.Embedder) error {
	start := time.Now()
	eng, err := local.Open(ctx, engine.Options{Dir: data, OneShot: true, Embedder: emb,
		Corpora: []cairn.Corpus{{Name: name, Kind: cairn.KindFiles, Paths: []string{notes}, Glob: glob}}})
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	res, err := eng.Sync(ctx, nil)
	if err != nil {
		return err
	}
	chunks := 0
	for _, c := range res.Corpora {
		chunks += c.Chunks
	}
	fmt.Printf("synced %d chunks, embedded %d, pending %d, in %.0f s\n", chunks, res.Embedded, res.PendingEmbeddings, time.Since(start).Seconds())
	return nil
}

// hashEmbedder adds one per lower-cased word at its hashed dimension and
// normalizes: deterministic, and close for texts sharing words.
type hashEmbedder struct{}

const dim = 384

func (hashEmbedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "bench", Model: "hashed-words", Dimension: dim, Normalized: true}
}

func (hashEmbedder) Embed(_ context.Context, _ string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, dim)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return r < 'a' || r > 'z' }) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%dim]++
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n > 0 {
			for j := range v {
				v[j] = float32(float64(v[j]) / math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}
