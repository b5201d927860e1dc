package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"golang.org/x/term"
)

// progress draws a one-line bar on a terminal and nothing elsewhere.
type progress struct {
	w     io.Writer
	on    bool
	last  time.Time
	drawn bool
}

func newProgress(w io.Writer, enabled bool) *progress {
	on := false
	if f, ok := w.(*os.File); ok && enabled {
		on = term.IsTerminal(int(f.Fd()))
	}
	return &progress{w: w, on: on}
}

func (p *progress) update(ev cairn.ProgressEvent) {
	if !p.on || ev.Total == 0 || time.Since(p.last) < 100*time.Millisecond && ev.Done < ev.Total {
		return
	}
	p.last = time.Now()
	const width = 30
	fill := width * ev.Done / ev.Total
	fmt.Fprintf(p.w, "\r%-16s [%s%s] %d/%d", ev.Corpus, strings.Repeat("#", fill), strings.Repeat(".", width-fill), ev.Done, ev.Total)
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// progressEvent reports bytes as a progress event (in KiB, so the counts stay readable).
func progressEvent(name string, done, total int64) cairn.ProgressEvent {
	return cairn.ProgressEvent{Corpus: name, Done: int(done >> 10), Total: int(total >> 10)}
}
