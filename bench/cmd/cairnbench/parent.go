package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
)

// Run is the whole output of one cairnbench invocation.
type Run struct {
	Date    string   `json:"date"`
	GoVer   string   `json:"go"`
	OS      string   `json:"os"`
	CPUs    int      `json:"cpus"`
	Queries int      `json:"queries"`
	Seed    int64    `json:"seed"`
	Results []Result `json:"results"`
}

// runParent runs each size in a child process and prints the results.
func runParent(ctx context.Context, c *config, stdout, stderr io.Writer) error {
	out := c.out
	if out == "" {
		tmp, err := os.MkdirTemp("", "cairnbench-")
		if err != nil {
			return fmt.Errorf("create work directory: %w", err)
		}
		defer os.RemoveAll(tmp)
		out = tmp
	}
	out, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("resolve -out: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own binary: %w", err)
	}
	run := Run{
		Date: time.Now().UTC().Format(time.RFC3339), GoVer: runtime.Version(),
		OS: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU(),
		Queries: c.queries, Seed: c.seed,
	}
	for _, n := range c.sizes {
		r, err := runSize(ctx, self, c, n, filepath.Join(out, fmt.Sprintf("n%d", n)), stderr)
		if err != nil {
			return fmt.Errorf("size %d: %w", n, err)
		}
		run.Results = append(run.Results, *r)
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(run)
	}
	return printMarkdown(stdout, &run)
}

// runSize re-executes this binary for one size and decodes its JSON result.
func runSize(ctx context.Context, self string, c *config, n int, dir string, stderr io.Writer) (*Result, error) {
	args := []string{"-child", strconv.Itoa(n), "-queries", strconv.Itoa(c.queries),
		"-out", dir, "-seed", strconv.FormatInt(c.seed, 10)}
	if c.cli != "" {
		args = append(args, "-cli", c.cli)
	}
	cmd := exec.CommandContext(ctx, self, args...)
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("run child: %w", err)
	}
	var r Result
	if err := json.Unmarshal(buf.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("decode child result: %w", err)
	}
	return &r, nil
}
