package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/cluster"
	"github.com/cairnmemory/cairn/engine"
	"golang.org/x/term"
)

// Progress of long work, with the rate and the time left. On a terminal a
// bar is redrawn in place (at most every redrawEvery); elsewhere (a log, a
// pipe, CI) a plain line is written every lineEvery, so a long embedding
// run in a service log still says how far it got. --json turns it off:
// stderr then carries only errors and warnings.
const (
	redrawEvery = 100 * time.Millisecond
	lineEvery   = 5 * time.Second
	// stallAfter is how long a phase may go without an event before a
	// line says it is waiting (and again each stallAfter while it
	// waits): an embedding endpoint that accepts and never answers kept
	// sync silent for four minutes (ux F25).
	stallAfter = 10 * time.Second
)

// progress reports cairn.ProgressEvents. It remembers the last event even
// when it draws nothing, so an interrupted command can say what was kept.
type progress struct {
	w     io.Writer
	on    bool // draw anything at all
	tty   bool // redraw one line in place
	now   func() time.Time
	label func(name string) (what, unit string)

	phase      string    // the Corpus of the current phase
	phaseStart time.Time // when its first event came
	startDone  int       // its Done then: the rate counts work of this run
	lastDraw   time.Time
	drawn      bool // a line was drawn in this phase
	last       cairn.ProgressEvent
	lastEvent  time.Time // when the last event came
	lastStall  time.Time // when the last waiting line was written
	explained  bool      // the phase's first waiting line said what is done meanwhile

	mu sync.Mutex // update, tick and done run on the sync's and the watch's goroutines
}

func newProgress(w io.Writer, enabled bool) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return &progress{w: w, on: enabled, tty: tty, now: time.Now, label: syncLabel}
}

// syncLabel names the phases sync reports: the files of a corpus, the
// transcripts of a sessions corpus, and embedding.
func syncLabel(name string) (what, unit string) {
	if name == "embeddings" {
		return "embedding", "chunks"
	}
	if c, ok := strings.CutSuffix(name, " (transcripts)"); ok {
		return "reading transcripts of " + c, "files"
	}
	return "indexing " + name, "files"
}

func (p *progress) update(ev cairn.ProgressEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.lastEvent = now
	if ev.Corpus != p.phase {
		p.finishPhase()
		p.phase, p.phaseStart, p.startDone, p.drawn, p.explained = ev.Corpus, now, ev.Done, false, false
	}
	p.last = ev
	if !p.on || ev.Total == 0 {
		return
	}
	finished := ev.Done >= ev.Total
	switch {
	case p.tty:
		if now.Sub(p.lastDraw) < redrawEvery && !finished && p.drawn { // a new phase is drawn at once
			return
		}
		fmt.Fprintf(p.w, "\r%s\033[K", p.line(ev, now, true))
	default:
		// A line every lineEvery, counted from the phase's start, and the
		// last one of a phase that already printed one.
		since := p.lastDraw
		if !p.drawn {
			since = p.phaseStart
		}
		if now.Sub(since) < lineEvery && !(finished && p.drawn) {
			return
		}
		fmt.Fprintln(p.w, p.line(ev, now, false))
	}
	p.lastDraw, p.drawn = now, true
}

// line is "embedding: 12,000/30,000 chunks, 95/s, ~3m10s left", with a bar
// in front of the counts on a terminal.
func (p *progress) line(ev cairn.ProgressEvent, now time.Time, bar bool) string {
	what, unit := p.label(ev.Corpus)
	var b strings.Builder
	b.WriteString(what + ":")
	if unit == "" { // a step without counts: what it is, and once done, how long it took
		if ev.Done >= ev.Total && now.Sub(p.phaseStart) >= time.Second {
			fmt.Fprintf(&b, " done in %s", shortDuration(now.Sub(p.phaseStart)))
		}
		return strings.TrimSuffix(b.String(), ":")
	}
	if bar {
		const width = 24
		fill := width * min(ev.Done, ev.Total) / ev.Total
		fmt.Fprintf(&b, " [%s%s]", strings.Repeat("#", fill), strings.Repeat(".", width-fill))
	}
	fmt.Fprintf(&b, " %s/%s %s", thousands(ev.Done), thousands(ev.Total), unit)
	elapsed := now.Sub(p.phaseStart)
	if work := ev.Done - p.startDone; work > 0 && elapsed >= time.Second {
		rate := float64(work) / elapsed.Seconds()
		if rate >= 10 {
			fmt.Fprintf(&b, ", %d/s", int(rate+0.5))
		} else {
			fmt.Fprintf(&b, ", %.1f/s", rate)
		}
		if ev.Done < ev.Total {
			left := time.Duration(float64(ev.Total-ev.Done) / rate * float64(time.Second))
			fmt.Fprintf(&b, ", ~%s left", shortDuration(left))
		} else {
			fmt.Fprintf(&b, ", done in %s", shortDuration(elapsed))
		}
	}
	return b.String()
}

// watch calls tick every second until stop is called, so a phase that
// stops sending events is reported while it waits.
func (p *progress) watch() (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				p.tick()
			}
		}
	}()
	return func() { close(quit); <-done }
}

// embedWaitNote is said once when embedding waits (ux F25): the sync's
// table comes only once the embedder answers or the tries run out.
const embedWaitNote = "embedding waits; the corpora are already indexed and searchable by words. " +
	"Ctrl-C stops the wait and keeps them; the next sync embeds the rest"

// tick writes a waiting line when the current phase, not finished, has
// had no event for stallAfter, and again each stallAfter while that
// lasts: "embedding: 0/4 chunks, waiting for the embedder: no answer for
// 10s". The phase's counts stay as the last event left them.
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	ev := p.last
	if !p.on || p.phase == "" || ev.Total == 0 || ev.Done >= ev.Total {
		return
	}
	quiet := now.Sub(p.lastEvent)
	if quiet < stallAfter || now.Sub(p.lastStall) < stallAfter {
		return
	}
	what, unit := p.label(ev.Corpus)
	wait := "waiting: no progress for " + shortDuration(quiet)
	if what == "embedding" {
		wait = "waiting for the embedder: no answer for " + shortDuration(quiet)
	}
	line := fmt.Sprintf("%s: %s/%s %s, %s", what, thousands(ev.Done), thousands(ev.Total), unit, wait)
	if unit == "" {
		line = what + ": " + wait
	}
	if what == "embedding" && !p.explained {
		// Once a phase: what the wait holds up, and what it does not.
		p.explained = true
		if p.tty {
			fmt.Fprint(p.w, "\r\033[K")
		}
		fmt.Fprintln(p.w, embedWaitNote)
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\033[K", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.lastStall, p.lastDraw, p.drawn = now, now, true
}

// finishPhase ends the terminal's line of the phase that is over.
func (p *progress) finishPhase() {
	if p.tty && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishPhase()
	p.drawn, p.phase = false, ""
}

// shortDuration rounds to what a person reads: 45s, 3m10s, 1h05m.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// tookDuration is a finished command's time in shortDuration's form, with
// milliseconds under a second and tenths under 10 s, so a quick sync does
// not say "done in 0s" or "done in 0.0s": 42 ms, 0.4s is 432 ms, 1.2s,
// 9.9s, 10s, 1m19s.
func tookDuration(d time.Duration) string {
	switch ms := d.Round(time.Millisecond) / time.Millisecond; {
	case ms < 1:
		return "under 1 ms"
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	}
	if d < 10*time.Second-50*time.Millisecond {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return shortDuration(d)
}

// thousands writes n with commas: 30,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// interrupted says what an interrupted sync kept, from its result (what
// was committed) and the last progress event (where it was).
func (p *progress) interrupted(res *cairn.SyncResult) error {
	ev := p.last
	switch what, unit := p.label(ev.Corpus); {
	case ev.Corpus == "":
		return fmt.Errorf("interrupted before anything was indexed; run cairn sync to start again")
	case what == "embedding":
		done, total := ev.Done, ev.Total
		if res != nil && res.Embedded+res.PendingEmbeddings > 0 {
			done, total = res.Embedded, res.Embedded+res.PendingEmbeddings
		}
		return fmt.Errorf("interrupted: %s of %s chunks embedded; run cairn sync to continue", thousands(done), thousands(total))
	default:
		done := ev.Done
		if res != nil {
			for _, c := range res.Corpora {
				if c.Name == ev.Corpus && c.Scanned > 0 {
					done = c.Added + c.Updated + c.Unchanged
				}
			}
		}
		return fmt.Errorf("interrupted while %s: %s of %s %s done and kept; run cairn sync to continue", what, thousands(done), thousands(ev.Total), unit)
	}
}

// clusterLabel names the phases of clusters rebuild (cluster.Run's, then
// the engine's write, which has no count).
func clusterLabel(name string) (what, unit string) {
	switch name {
	case cluster.PhaseNeighbours:
		return "kNN graph", "steps"
	case cluster.PhaseSpace:
		return "UMAP space", "epochs"
	case cluster.PhaseLayout:
		return "2-D layout and HDBSCAN", "steps"
	case engine.PhaseWriting:
		return "writing the run", ""
	}
	return name, "steps"
}

// progressEvent reports bytes as a progress event (in KiB, so the counts stay readable).
func progressEvent(name string, done, total int64) cairn.ProgressEvent {
	return cairn.ProgressEvent{Corpus: name, Done: int(done >> 10), Total: int(total >> 10)}
}

// downloadLabel names the phases of models pull: one per file.
func downloadLabel(name string) (what, unit string) { return "downloading " + name, "KiB" }
