package main

// -explore KIND -memory: where the embedder's memory goes. Each
// configuration runs in a child process of its own (a process's peak
// resident set cannot be reset, and ONNX Runtime loads once a process),
// which reports its memory at four points: the texts read and tokenized
// (the baseline: the Go runtime, the texts, the tokenizer), onnx.New done
// (the runtime, the sessions and their weights, and whatever of the model
// bytes Go still holds), the same after a garbage collection, and the
// texts embedded as sync embeds them (rounds of 64: the arenas grown). At each point: resident
// set (VmRSS), its anonymous and file-backed parts (RssAnon, RssFile: a
// mapped graph cache file is file-backed), the peak so far (VmHWM) and
// the Go heap (HeapSys less HeapReleased: what Go holds of it). The
// configuration names are explore.go's, plus noarena and nopattern
// (onnx.Options.NoArena, NoMemPattern) and cache (the mapped graph cache,
// as cairn opens the model; built by the first run into a fresh folder
// of the parent's):
//
//	/tmp/eb -explore docs -docs /tmp/i1docs -n 256 -memory -configs b4,b4-int8,b4-cache,b4-int8-cache,b4-int8-cache-noarena

import (
	"bytes"
	"context"
	"fmt"
	"github.com/cairnmemory/cairn/bench/procstat"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/tokenize"
)

// memoryParent runs each configuration in a child of this binary, passes
// times, in the configurations' order.
func memoryParent(kind, docs, shared string, n, passes int, configs []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cache, err := os.MkdirTemp("", "embedbench-memory-cache")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	fmt.Printf("memory by stage, MB (rss = anon + file; go = Go heap held), load %.1f\n", procstat.Load1())
	fmt.Printf("%-26s %4s %-9s %7s %7s %7s %7s %7s\n", "config", "pass", "stage", "rss", "anon", "file", "peak", "go")
	for p := 1; p <= passes; p++ {
		for _, c := range configs {
			if _, err := parseMemConfig(c); err != nil {
				return err
			}
			var out bytes.Buffer
			cmd := exec.Command(self, "-memory-child", c, "-memory-cache", cache, "-explore", kind,
				"-docs", docs, "-shared", shared, "-n", strconv.Itoa(n))
			cmd.Stdout, cmd.Stderr = &out, os.Stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("memory child %s: %w", c, err)
			}
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				fmt.Printf("%-26s %4d %s\n", c, p, l)
			}
		}
	}
	return nil
}

// memConfig is an explore configuration plus the memory settings.
type memConfig struct {
	exploreConfig
	noArena, noPattern bool
}

func parseMemConfig(s string) (memConfig, error) {
	var m memConfig
	var rest []string
	for _, f := range strings.Split(s, "-") {
		switch f {
		case "noarena":
			m.noArena = true
		case "nopattern":
			m.noPattern = true
		default:
			rest = append(rest, f)
		}
	}
	c, err := parseConfig(strings.Join(rest, "-"))
	c.name = s
	m.exploreConfig = c
	return m, err
}

// memoryChild measures one configuration and prints a line a stage.
func memoryChild(name, cacheDir, kind, docs, shared string, n int) error {
	ctx := context.Background()
	c, err := parseMemConfig(name)
	if err != nil {
		return err
	}
	texts, err := exploreTexts(kind, docs, shared, n)
	if err != nil {
		return err
	}
	tok, err := tokenize.Load(filepath.Join(shared, "models", "use-lite", onnx.TokenizerFile))
	if err != nil {
		return err
	}
	for _, t := range texts {
		tok.Encode(t)
	}
	stage("texts")
	q, dir := "", ""
	if c.int8 {
		q = onnx.QuantizeInt8
	}
	if c.cache {
		dir = cacheDir
	}
	emb, err := onnx.New(onnx.Options{CacheDir: dir, Quantize: q, ModelDir: filepath.Join(shared, "models", "use-lite"),
		Library: filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"), Tokenizer: tok,
		Workers: c.workers, Batch: c.batch, Threads: c.threads, NoSpin: c.noSpin, MaxTokens: c.mx,
		NoArena: c.noArena, NoMemPattern: c.noPattern, Int8Bits: c.bits})
	if err != nil {
		return err
	}
	defer emb.Close()
	stage("new")
	runtime.GC()
	stage("new+gc")
	for len(texts) > 0 {
		round := texts[:min(64, len(texts))]
		texts = texts[len(round):]
		if _, err := emb.Embed(ctx, cairn.EmbedDocument, round); err != nil {
			return err
		}
	}
	stage("embedded")
	return nil
}

// stage prints the process's memory now.
func stage(name string) {
	st := procStatus()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mb := func(k string) float64 { return float64(st[k]) / 1024 }
	fmt.Printf("%-9s %7.1f %7.1f %7.1f %7.1f %7.1f\n", name, mb("VmRSS"), mb("RssAnon"), mb("RssFile")+mb("RssShmem"),
		mb("VmHWM"), float64(ms.HeapSys-ms.HeapReleased)/(1<<20))
}

// procStatus reads the kB fields of /proc/self/status.
func procStatus() map[string]int64 {
	out := map[string]int64{}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return out
	}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		f := strings.Fields(v)
		if !ok || len(f) != 2 || f[1] != "kB" {
			continue
		}
		if x, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			out[k] = x
		}
	}
	return out
}
