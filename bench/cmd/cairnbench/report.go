package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairnmemory/cairn/bench/corpus"
)

// printMarkdown writes one table for indexing, one for search and one for
// search by query kind.
func printMarkdown(w io.Writer, run *Run) error {
	p := &printer{w: w}
	p.f("cairnbench %s, %s, %s, %d CPUs, %d queries, seed %d\n\n", run.Date, run.GoVer, run.OS, run.CPUs, run.Queries, run.Seed)
	p.f("### Indexing\n\n")
	p.row("notes", "corpus MB", "first sync s", "docs/s", "chunks/s", "MB/s", "no-op sync s", "1% edit sync s", "index MB", "docs", "chunks", "peak RSS MB (sync)", "peak RSS MB (end)")
	p.rule(13)
	for _, r := range run.Results {
		p.row(d(r.Notes), mb(r.CorpusBytes), f2(r.FirstSync.Seconds), f0(r.FirstSync.DocsPerSec), f0(r.FirstSync.ChunksPerSec),
			f2(r.FirstSync.MBPerSec), f3(r.NoopSync.Seconds), fmt.Sprintf("%s (%d docs)", f3(r.EditSync.Seconds), r.EditSync.Updated),
			mb(r.IndexBytes), d(r.IndexDocs), d(r.IndexChunks), mb(r.PeakRSSAfterSync), mb(r.PeakRSS))
	}
	p.f("\n### Search (limit 10, ms)\n\n")
	p.row("notes", "kind", "n", "p50", "p95", "p99", "max", "mean", "0 hits", "10 hits", "errors")
	p.rule(11)
	kinds := []string{corpus.KindCommon, corpus.KindMid, corpus.KindRare, corpus.KindMixed, corpus.KindIdent, corpus.KindPhrase}
	for _, r := range run.Results {
		p.latency(d(r.Notes), "all (library)", r.Search)
		for _, k := range kinds {
			if l, ok := r.ByKind[k]; ok {
				p.latency(d(r.Notes), k, l)
			}
		}
		if r.CLI != nil {
			p.latency(d(r.Notes), "cli process", *r.CLI)
		}
	}
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) row(cells ...string) { p.f("| %s |\n", strings.Join(cells, " | ")) }

func (p *printer) rule(n int) { p.f("|%s\n", strings.Repeat("---:|", n)) }

func (p *printer) latency(notes, kind string, l Latency) {
	p.row(notes, kind, d(l.N), f2(l.P50), f2(l.P95), f2(l.P99), f2(l.Max), f2(l.Mean), d(l.ZeroHits), d(l.Full), d(l.Errors))
}

func d(n int) string      { return fmt.Sprint(n) }
func f0(x float64) string { return fmt.Sprintf("%.0f", x) }
func f2(x float64) string { return fmt.Sprintf("%.2f", x) }
func f3(x float64) string { return fmt.Sprintf("%.3f", x) }
func mb(n int64) string   { return fmt.Sprintf("%.1f", float64(n)/1e6) }
