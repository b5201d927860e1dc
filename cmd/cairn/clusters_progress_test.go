package main

import (
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/cluster"
	"github.com/cairnmemory/cairn/engine"
)

// feedRebuild plays a clusters rebuild's steps into p: 14 kNN steps of
// 0.5 s, 500 UMAP epochs of 20 ms, 101 layout steps of 10 ms, the write
// of 2 s.
func feedRebuild(p *progress, clock *fakeClock) {
	step := func(phase string, total int, each time.Duration) {
		for done := 0; done <= total; done++ {
			p.update(cairn.ProgressEvent{Corpus: phase, Done: done, Total: total})
			if done < total {
				clock.advance(each)
			}
		}
	}
	step(cluster.PhaseNeighbours, 14, 500*time.Millisecond)
	step(cluster.PhaseSpace, 500, 20*time.Millisecond)
	step(cluster.PhaseLayout, 101, 10*time.Millisecond)
	p.update(cairn.ProgressEvent{Corpus: engine.PhaseWriting, Total: 1})
	clock.advance(2 * time.Second)
	p.update(cairn.ProgressEvent{Corpus: engine.PhaseWriting, Done: 1, Total: 1})
	p.done()
}

// TestClustersRebuildProgress: on a terminal, clusters rebuild shows each
// phase with its bar, rate and time left (before, nothing for the whole
// run); off a terminal, a line every 5 s of a phase.
func TestClustersRebuildProgress(t *testing.T) {
	p, buf, clock := testProgress(true)
	p.label = clusterLabel
	feedRebuild(p, clock)
	out := buf.String()
	for _, want := range []string{"\rkNN graph: [", " 7/14 steps, 2.0/s, ~4s left", "\rUMAP space: [", "/500 epochs, 50/s, ~", "\r2-D layout and HDBSCAN: [",
		"\rwriting the run\x1b[K", "\rwriting the run: done in 2s\x1b[K"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q: ...%q", want, out[max(0, len(out)-300):])
		}
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("the last line is not cleared: %q", out[max(0, len(out)-80):])
	}
	p, buf, clock = testProgress(false)
	p.label = clusterLabel
	feedRebuild(p, clock)
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{"kNN graph: 10/14 steps, 2.0/s, ~2s left", "kNN graph: 14/14 steps, 2.0/s, done in 7s",
		"UMAP space: 250/500 epochs, 50/s, ~5s left", "UMAP space: 500/500 epochs, 50/s, done in 10s"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("log lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
