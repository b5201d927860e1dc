// Command embedbench measures sync's embedding phase on real chunks with
// the in-process USE-lite encoder: chunks per second, CPU per chunk and
// peak memory, for two cairn builds side by side. Each run is a child
// process (peak RSS is a process's, and ONNX Runtime is loaded once per
// process) that syncs the same corpus into a fresh data directory; the
// driver alternates the two binaries run by run, so load from the rest of
// the machine falls on both alike.
//
//	go build -tags sqlite_fts5 -o /tmp/embedbench-after ./bench/cmd/embedbench
//	# the same file built in a copy of the commit to compare: /tmp/embedbench-before
//	/tmp/embedbench-after -before /tmp/embedbench-before -after /tmp/embedbench-after \
//	    -repo . -shared ../shared -runs 3
//
// The corpus is real text: every Markdown file of the repository (-repo)
// and the conversations of the LoCoMo development split rendered one
// session a file ("**Speaker:** text" a turn), up to -sessions sessions.
// The child mode (-child DIR) syncs DIR and prints one JSON line;
// -quantize int8 makes it embed with int8 weights (onnx.Options.Quantize),
// and -before-quantize / -after-quantize pass that to each side's child,
// so one binary can be compared with itself FP32 against INT8:
//
//	/tmp/eb -before /tmp/eb -after /tmp/eb -after-quantize int8 -repo . -shared ../shared
//
// -cache opens the model in the children as cairn does, from the
// optimized-graph cache (the first run of each quantization builds it).
// Each child reports three peaks (VmHWM): after the model loaded, when
// embedding began (the index phase added) and at the end.
//
// -explore KIND -memory is the embedder's memory by stage (memory.go).
//
// -explore is the embedder alone (explore.go); -quality and -queries
// compare FP32 and INT8 weights on real texts (quant.go), -hybrid their
// warm hybrid search latency over a kept index (hybrid.go).
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/cairnmemory/cairn/bench/procstat"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/tokenize"
)

func main() {
	child := flag.String("child", "", "child mode: sync the corpus folder DIR and print the measures as JSON")
	shared := flag.String("shared", "../shared", "folder holding models/use-lite, lib/onnxruntime and data/locomo")
	repo := flag.String("repo", ".", "repository whose Markdown files join the corpus")
	sessions := flag.Int("sessions", 60, "LoCoMo sessions in the corpus (0: none)")
	before := flag.String("before", "", "the binary before")
	after := flag.String("after", "", "the binary after")
	runs := flag.Int("runs", 3, "runs of each binary, alternating")
	work := flag.String("work", "", "work folder (default: a temporary one, removed)")
	exploreKind := flag.String("explore", "", "embedder alone on real texts: docs, locomo or sessions (explore.go)")
	docs := flag.String("docs", "/tmp/i1docs", "-explore docs: folder of Markdown files")
	n := flag.Int("n", 384, "-explore: texts, spread evenly over the corpus (0: all)")
	passes := flag.Int("passes", 2, "-explore: passes over the configurations")
	configs := flag.String("configs", "b4", "-explore: comma-separated configurations (explore.go)")
	quantize := flag.String("quantize", "", "-child: onnx.Options.Quantize (\"\", none or int8)")
	beforeQ := flag.String("before-quantize", "", "-quantize for the before binary's children")
	afterQ := flag.String("after-quantize", "", "-quantize for the after binary's children")
	quality := flag.Bool("quality", false, "with -explore: cosine of INT8 against FP32 vectors of the texts (quant.go)")
	queries := flag.Int("queries", 0, "with -explore: N single-text query embeddings, FP32 and INT8 alternating: wall and CPU p50/p99 (quant.go)")
	hybrid := flag.String("hybrid", "", "warm hybrid search over this data directory (a copy of hybridbench's), FP32 and INT8 query embeddings alternating (hybrid.go)")
	notes := flag.String("notes", "", "-hybrid: the notes folder the index was synced from")
	indexQ := flag.String("index-quantize", "", "-hybrid: the quantization that embedded the index (\"\" or int8)")
	graphCache := flag.Bool("cache", false, "children open the model as cairn does, with the optimized-graph cache (onnx.Options.CacheDir) in the work folder's graph-cache: the first run of each quantization builds it, later ones map it")
	childCache := flag.String("child-cache", "", "-child: onnx.Options.CacheDir")
	flag.IntVar(&int8Bits, "int8-bits", 0, "-quality, -queries, -hybrid: onnx.Options.Int8Bits of the INT8 side (0: by the CPU, 7 or 8)")
	memory := flag.Bool("memory", false, "with -explore: memory by stage, each configuration in a child process (memory.go)")
	memChild := flag.String("memory-child", "", "internal: one -memory configuration")
	memCache := flag.String("memory-cache", "", "internal: -memory's graph cache folder")
	flag.Parse()
	if *memChild != "" {
		if err := memoryChild(*memChild, *memCache, *exploreKind, *docs, *shared, *n); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *exploreKind != "" && *memory {
		if err := memoryParent(*exploreKind, *docs, *shared, *n, *passes, strings.Split(*configs, ",")); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *hybrid != "" {
		if err := hybridAB(*hybrid, *notes, *shared, *indexQ, cmp.Or(*queries, 500)); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *exploreKind != "" && (*quality || *queries > 0) {
		if err := compareQuant(*exploreKind, *docs, *shared, *n, *quality, *queries); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *exploreKind != "" {
		if err := explore(*exploreKind, *docs, *shared, *n, *passes, strings.Split(*configs, ",")); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *child != "" {
		if err := runChild(*child, *shared, *quantize, *childCache); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := drive(*before, *after, *repo, *shared, *work, *sessions, *runs, [2]string{*beforeQ, *afterQ}, *graphCache); err != nil {
		log.Fatal(err)
	}
}

// measure is what a child reports.
type measure struct {
	Chunks     int     `json:"chunks"`        // embedded
	Seconds    float64 `json:"seconds"`       // the embedding phase, wall
	CPUSeconds float64 `json:"cpu_seconds"`   // the process's CPU in that phase
	PeakMB     float64 `json:"peak_mb"`       // VmHWM at the end of the sync
	PeakIndex  float64 `json:"peak_index_mb"` // VmHWM when embedding began
	PeakModel  float64 `json:"peak_model_mb"` // VmHWM after onnx.New, before the sync
	Load       float64 `json:"load"`          // 1-minute load average at the start
}

func runChild(corpusDir, shared, quantize, cacheDir string) error {
	ctx := context.Background()
	data, err := os.MkdirTemp("", "embedbench-data")
	if err != nil {
		return err
	}
	defer os.RemoveAll(data)
	m := measure{Load: procstat.Load1()}
	emb, err := onnx.New(onnx.Options{ModelDir: filepath.Join(shared, "models", "use-lite"),
		Library:       filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }, Quantize: quantize, CacheDir: cacheDir})
	if err != nil {
		return err
	}
	defer emb.Close()
	m.PeakModel = procstat.PeakMB()
	eng, err := local.Open(ctx, engine.Options{Dir: data, Embedder: emb,
		Corpora: []cairn.Corpus{{Name: "real", Kind: cairn.KindFiles, Paths: []string{corpusDir}}}})
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	var start, end time.Time
	var cpu0, cpu1 time.Duration
	res, err := eng.Sync(ctx, &cairn.SyncOptions{Progress: func(ev cairn.ProgressEvent) {
		if ev.Corpus != "embeddings" {
			return
		}
		if start.IsZero() {
			start, cpu0, m.PeakIndex = time.Now(), cpuTime(), procstat.PeakMB()
		}
		end, cpu1 = time.Now(), cpuTime()
	}})
	if err != nil {
		return err
	}
	m.Chunks, m.Seconds, m.CPUSeconds, m.PeakMB = res.Embedded, end.Sub(start).Seconds(), (cpu1 - cpu0).Seconds(), procstat.PeakMB()
	return json.NewEncoder(os.Stdout).Encode(m)
}

// drive writes the corpus once and runs the two binaries in turn; quant
// is each side's -quantize ("" passes none: a build without the flag);
// with cache the children get -child-cache (a build with the flag).
func drive(before, after, repo, shared, work string, sessions, runs int, quant [2]string, cache bool) error {
	if before == "" || after == "" {
		return fmt.Errorf("set -before and -after (or -child DIR)")
	}
	if work == "" {
		tmp, err := os.MkdirTemp("", "embedbench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	corpusDir := filepath.Join(work, "corpus")
	files, err := writeCorpus(corpusDir, repo, filepath.Join(shared, "data", "locomo", "locomo-dev.json"), sessions)
	if err != nil {
		return err
	}
	fmt.Printf("corpus: %d files (repository Markdown and %d LoCoMo sessions)\n", files, sessions)
	fmt.Printf("%-7s %3s %6s %8s %9s %12s %10s %10s %10s %5s\n", "binary", "run", "chunks", "seconds", "chunks/s", "cpu-ms/chunk", "peak MB", "model MB", "index MB", "load")
	for r := 1; r <= runs; r++ {
		for _, b := range []struct{ name, bin, q string }{{"before", before, quant[0]}, {"after", after, quant[1]}} {
			var out bytes.Buffer
			args := []string{"-child", corpusDir, "-shared", shared}
			if b.q != "" {
				args = append(args, "-quantize", b.q)
			}
			if cache {
				args = append(args, "-child-cache", filepath.Join(work, "graph-cache"))
			}
			cmd := exec.Command(b.bin, args...)
			cmd.Stdout, cmd.Stderr = &out, os.Stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("run %s: %w", b.bin, err)
			}
			var m measure
			if err := json.Unmarshal(out.Bytes(), &m); err != nil {
				return fmt.Errorf("read %s's measures %q: %w", b.name, out.String(), err)
			}
			fmt.Printf("%-7s %3d %6d %8.1f %9.1f %12.2f %10.0f %10.0f %10.0f %5.1f\n", b.name, r, m.Chunks, m.Seconds,
				float64(m.Chunks)/m.Seconds, 1000*m.CPUSeconds/float64(m.Chunks), m.PeakMB, m.PeakModel, m.PeakIndex, m.Load)
		}
	}
	return nil
}

// writeCorpus copies the repository's Markdown files (outside hidden and
// node_modules folders) and renders LoCoMo sessions into dir.
func writeCorpus(dir, repo, locomo string, sessions int) (int, error) {
	n := 0
	err := filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != repo && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		return writeFile(filepath.Join(dir, "repo", fmt.Sprintf("%04d-%s", n, d.Name())), b)
	})
	if err != nil || sessions == 0 {
		return n, err
	}
	raw, err := os.ReadFile(locomo)
	if err != nil {
		return n, fmt.Errorf("read locomo: %w", err)
	}
	var samples []struct {
		ID           string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		return n, fmt.Errorf("read locomo: %w", err)
	}
	left := sessions
	for _, s := range samples {
		for k := 1; left > 0; k++ {
			v, ok := s.Conversation[fmt.Sprintf("session_%d", k)]
			if !ok {
				break
			}
			var turns []struct{ Speaker, Text string }
			if err := json.Unmarshal(v, &turns); err != nil {
				return n, fmt.Errorf("read locomo %s session %d: %w", s.ID, k, err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "# %s, session %d\n\n", s.ID, k)
			for _, t := range turns {
				fmt.Fprintf(&b, "**%s:** %s\n\n", t.Speaker, t.Text)
			}
			if err := writeFile(filepath.Join(dir, "locomo", fmt.Sprintf("%s-%02d.md", s.ID, k)), []byte(b.String())); err != nil {
				return n, err
			}
			n++
			left--
		}
	}
	return n, nil
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
