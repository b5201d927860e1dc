// Command transcriptbench measures the memory and time one session sync
// takes on hostile or very large transcripts (issue 13 item 5). It writes
// each input into a fresh source root, then syncs it in a child process (the
// same binary, re-executed with -child) so that each case's peak resident
// memory (VmHWM) is its own:
//
//	claude-10mb      one Claude Code session of about 10 MB (text, tool calls, tool results)
//	claude-200mb     one Claude Code session of about 200 MB (large tool results and images)
//	claude-200mb-text one Claude Code session of about 200 MB of plain messages only
//	claude-200mb-tiny one Claude Code session of about 200 MB of 10 to 40 byte messages (most records per byte)
//	codex-bomb       a Codex .jsonl.zst rollout of about 100 KB that expands to about 1 GB
//
//	go run -tags sqlite_fts5 ./bench/cmd/transcriptbench            # all cases
//	go run -tags sqlite_fts5 ./bench/cmd/transcriptbench -cases codex-bomb
//
// It prints one row per case: input bytes on disk, peak RSS, wall time of the
// sync, bytes of projections left under sessions/, documents indexed, and
// what the sync status reported as failed or cut.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

var cases = map[string]struct {
	source string
	gen    func(root string) (int64, error)
}{
	"claude-10mb":       {cairn.SourceClaudeCode, func(r string) (int64, error) { return genClaude(r, 10e6, true) }},
	"claude-200mb":      {cairn.SourceClaudeCode, func(r string) (int64, error) { return genClaude(r, 200e6, true) }},
	"claude-200mb-text": {cairn.SourceClaudeCode, func(r string) (int64, error) { return genClaude(r, 200e6, false) }},
	"claude-200mb-tiny": {cairn.SourceClaudeCode, func(r string) (int64, error) { return genClaudeSized(r, 200e6, false, 10, 30) }},
	"codex-bomb":        {cairn.SourceCodex, genCodexBomb},
}

var order = []string{"claude-10mb", "claude-200mb", "claude-200mb-text", "claude-200mb-tiny", "codex-bomb"}

// result is what a child reports, one JSON line on stdout.
type result struct {
	Case       string         `json:"case"`
	InputBytes int64          `json:"inputBytes"`
	PeakRSSMB  float64        `json:"peakRssMB"`
	Seconds    float64        `json:"seconds"`
	ProjBytes  int64          `json:"projectionBytes"`
	Documents  int            `json:"documents"`
	Failures   []string       `json:"failures,omitempty"`
	Truncated  map[string]int `json:"truncated,omitempty"`
	Error      string         `json:"error,omitempty"`
}

func main() {
	list := flag.String("cases", strings.Join(order, ","), "comma-separated cases: "+strings.Join(order, ", "))
	child := flag.String("child", "", "internal: run one case in this process")
	work := flag.String("work", "", "internal: the case's work directory")
	gen := flag.String("gen", "", "only write the inputs of -cases under this directory (DIR/CASE/root), for profiling a child by hand")
	flag.Parse()
	if *gen != "" {
		for _, name := range strings.Split(*list, ",") {
			if _, err := cases[name].gen(filepath.Join(*gen, name, "root")); err != nil {
				fmt.Fprintln(os.Stderr, "transcriptbench:", err)
				os.Exit(1)
			}
		}
		return
	}
	if *child != "" {
		r := runChild(*child, *work)
		json.NewEncoder(os.Stdout).Encode(r)
		return
	}
	if err := run(strings.Split(*list, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "transcriptbench:", err)
		os.Exit(1)
	}
}

func run(names []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Println("| case | input MB | peak RSS MB | sync s | projections MB | documents | failed / cut |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---|")
	for _, name := range names {
		c, ok := cases[name]
		if !ok {
			return fmt.Errorf("unknown case %q", name)
		}
		work, err := os.MkdirTemp("", "transcriptbench-")
		if err != nil {
			return err
		}
		size, err := c.gen(filepath.Join(work, "root"))
		if err != nil {
			os.RemoveAll(work)
			return fmt.Errorf("generate %s: %w", name, err)
		}
		out, err := exec.Command(self, "-child", name, "-work", work).Output()
		os.RemoveAll(work)
		var r result
		if jerr := json.Unmarshal(out, &r); jerr != nil {
			r = result{Case: name, Error: fmt.Sprintf("child: %v %v", err, jerr)}
		}
		r.InputBytes = size
		notes := strings.Join(r.Failures, "; ")
		for k, v := range r.Truncated {
			notes += fmt.Sprintf(" cut %s: %d;", k, v)
		}
		if r.Error != "" {
			notes += " error: " + r.Error
		}
		fmt.Printf("| %s | %.1f | %.0f | %.2f | %.1f | %d | %s |\n", name, float64(r.InputBytes)/1e6, r.PeakRSSMB,
			r.Seconds, float64(r.ProjBytes)/1e6, r.Documents, strings.TrimSpace(notes))
	}
	return nil
}

func runChild(name, work string) result {
	r := result{Case: name}
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: filepath.Join(work, "data"), Corpora: []cairn.Corpus{{
		Name: "sessions", Kind: cairn.KindSessions, Sources: []cairn.SourceSpec{{ID: cases[name].source, Roots: []string{filepath.Join(work, "root")}}},
	}}})
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer eng.Close(ctx)
	t0 := time.Now()
	res, err := eng.Sync(ctx, nil)
	r.Seconds = time.Since(t0).Seconds()
	r.PeakRSSMB = float64(peakRSS()) / (1 << 20)
	if err != nil {
		r.Error = err.Error()
	}
	if res != nil && len(res.Corpora) > 0 {
		c := res.Corpora[0]
		r.Documents = c.Added + c.Updated + c.Unchanged
		for _, f := range c.Failures {
			r.Failures = append(r.Failures, "index: "+cutText(f.Reason, 120))
		}
		if c.Sessions != nil {
			for _, s := range c.Sessions.Sources {
				for _, f := range s.Failures {
					r.Failures = append(r.Failures, "transcript: "+cutText(f.Reason, 120))
				}
				for k, v := range truncatedOf(s) {
					if r.Truncated == nil {
						r.Truncated = map[string]int{}
					}
					r.Truncated[k] += v
				}
			}
		}
	}
	filepath.WalkDir(filepath.Join(work, "data", engine.SessionsDir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				r.ProjBytes += fi.Size()
			}
		}
		return nil
	})
	return r
}

func cutText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// peakRSS returns VmHWM in bytes, 0 where /proc is missing.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
