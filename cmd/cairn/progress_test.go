package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func testProgress(tty bool) (*progress, *bytes.Buffer, *fakeClock) {
	var buf bytes.Buffer
	clock := &fakeClock{t: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)}
	return &progress{w: &buf, on: true, tty: tty, now: clock.now, label: syncLabel}, &buf, clock
}

// TestProgressLinesWithoutTerminal: off a terminal, a line every 5 s with
// the rate and the time left (before, nothing at all was written there).
func TestProgressLinesWithoutTerminal(t *testing.T) {
	p, buf, clock := testProgress(false)
	for done := 0; done <= 30000; done += 95 {
		p.update(cairn.ProgressEvent{Corpus: "embeddings", Done: done, Total: 30000})
		clock.advance(time.Second)
	}
	p.update(cairn.ProgressEvent{Corpus: "embeddings", Done: 30000, Total: 30000})
	p.done()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if want := "embedding: 475/30,000 chunks, 95/s, ~5m11s left"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if want := "embedding: 950/30,000 chunks, 95/s, ~5m06s left"; lines[1] != want {
		t.Errorf("second line %q, want %q", lines[1], want)
	}
	// 316 s of work: a line every 5 s, and the last one says it is done.
	if len(lines) != 64 {
		t.Errorf("%d lines, want 64 (one every 5 s, and the last)", len(lines))
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "embedding: 30,000/30,000 chunks, 95/s, done in 5m1") {
		t.Errorf("last line %q", last)
	}
	if strings.Contains(buf.String(), "\r") {
		t.Errorf("carriage returns off a terminal: %q", buf.String())
	}
}

// TestProgressShortPhaseSilent: a phase done within 5 s prints nothing off
// a terminal, so a quick sync's log stays clean.
func TestProgressShortPhaseSilent(t *testing.T) {
	p, buf, clock := testProgress(false)
	for done := 0; done <= 40; done += 10 {
		p.update(cairn.ProgressEvent{Corpus: "notes", Done: done, Total: 40})
		clock.advance(time.Second)
	}
	p.done()
	if buf.Len() != 0 {
		t.Errorf("a 4 s phase printed %q", buf.String())
	}
}

// TestProgressTerminal: a terminal gets a bar redrawn in place, at most
// every 100 ms, with the rate and the time left, and the line is cleared
// at the end.
func TestProgressTerminal(t *testing.T) {
	p, buf, clock := testProgress(true)
	for done := 0; done < 2000; done += 10 {
		p.update(cairn.ProgressEvent{Corpus: "notes", Done: done, Total: 2000})
		clock.advance(20 * time.Millisecond)
	}
	draws := strings.Count(buf.String(), "\r")
	if draws < 35 || draws > 45 {
		t.Errorf("%d redraws in 4 s of events every 20 ms, want about 40", draws)
	}
	if !strings.Contains(buf.String(), "\rindexing notes: [############............] 1,000/2,000 files, 500/s, ~2s left\033[K") {
		t.Errorf("no half-way bar in %q", buf.String())
	}
	p.done()
	if !strings.HasSuffix(buf.String(), "\r\033[K") {
		t.Errorf("line not cleared at the end: %q", buf.String()[buf.Len()-40:])
	}
}

// TestProgressOffStillKnowsWhere: with --json nothing is drawn, and an
// interruption still says what was kept.
func TestProgressOffStillKnowsWhere(t *testing.T) {
	p, buf, _ := testProgress(false)
	p.on = false
	p.update(cairn.ProgressEvent{Corpus: "embeddings", Done: 11968, Total: 30000})
	if buf.Len() != 0 {
		t.Errorf("progress off wrote %q", buf.String())
	}
	res := &cairn.SyncResult{Embedded: 12000, PendingEmbeddings: 18000}
	if got, want := p.interrupted(res).Error(), "interrupted: 12,000 of 30,000 chunks embedded; run cairn sync to continue"; got != want {
		t.Errorf("interrupted = %q, want %q", got, want)
	}
	p.update(cairn.ProgressEvent{Corpus: "notes", Done: 700, Total: 3000})
	res = &cairn.SyncResult{Corpora: []cairn.CorpusSyncResult{{Name: "notes", Scanned: 3000, Added: 600, Unchanged: 40}}}
	if got, want := p.interrupted(res).Error(), "interrupted while indexing notes: 640 of 3,000 files done and kept; run cairn sync to continue"; got != want {
		t.Errorf("interrupted = %q, want %q", got, want)
	}
}

func TestShortDurationAndThousands(t *testing.T) {
	for d, want := range map[time.Duration]string{44 * time.Second: "44s", 190 * time.Second: "3m10s", 3900 * time.Second: "1h05m"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
	for d, want := range map[time.Duration]string{432 * time.Millisecond: "432 ms", 41999999: "42 ms", 999 * time.Millisecond: "999 ms",
		999600 * time.Microsecond: "1.0s", 200 * time.Microsecond: "under 1 ms", 1240 * time.Millisecond: "1.2s", 9940 * time.Millisecond: "9.9s", 9960 * time.Millisecond: "10s", 79494 * time.Millisecond: "1m19s"} {
		if got := tookDuration(d); got != want {
			t.Errorf("tookDuration(%v) = %q, want %q", d, got, want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 30000: "30,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestSyncInterruptSaysWhatWasKept interrupts a sync in its third
// embedding request, as Ctrl-C does: the error says how many chunks were
// embedded (not "context canceled"), and the next sync embeds the rest.
func TestSyncInterruptSaysWhatWasKept(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	requests, embedded := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		requests++
		n := requests
		mu.Unlock()
		if n == 3 {
			cancel() // the user presses Ctrl-C while this batch is embedded
			<-r.Context().Done()
			return
		}
		var data []string
		for i := range req.Input {
			data = append(data, fmt.Sprintf(`{"index":%d,"embedding":[1,0,%d]}`, i, i))
		}
		mu.Lock()
		embedded += len(req.Input)
		mu.Unlock()
		fmt.Fprintf(w, `{"data":[%s]}`, strings.Join(data, ","))
	}))
	defer srv.Close()
	c := newCLI(t)
	notes := t.TempDir()
	for i := range 200 {
		os.WriteFile(filepath.Join(notes, fmt.Sprintf("n%03d.md", i)), []byte(fmt.Sprintf("# Note %d\n\nword%d here\n", i, i)), 0o644)
	}
	c.ok("corpus", "add", "notes", notes)
	f, _ := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"openai\"\nmodel = \"fake\"\nbase_url = %q\n", srv.URL+"/v1")
	f.Close()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"sync"}, &out, &errb)
	want := "cairn: interrupted: 128 of 200 chunks embedded; run cairn sync to continue\n"
	if code != 1 || errb.String() != want || embedded != 128 {
		t.Fatalf("interrupted sync: exit %d, stderr %q (embedded %d); want 1 and %q", code, errb.String(), embedded, want)
	}
	if got := c.ok("sync"); !strings.Contains(got, "embedded 72 chunks, 0 waiting") {
		t.Errorf("the next sync: %s", got)
	}
}

// TestModelsPullInterrupt: Ctrl-C during a download says what was kept and
// that the next pull resumes, not "context canceled".
func TestModelsPullInterrupt(t *testing.T) {
	p, _, _ := testProgress(false)
	p.label = downloadLabel
	if got, want := p.pullInterrupted("acme/mini").Error(), "interrupted before any file was downloaded; run cairn models pull acme/mini to start again"; got != want {
		t.Errorf("before any event: %q, want %q", got, want)
	}
	p.update(progressEvent("model.onnx", 2048, 4096))
	if got, want := p.pullInterrupted("acme/mini").Error(), "interrupted: 2 of 4 KiB of model.onnx downloaded and kept; run cairn models pull acme/mini to resume"; got != want {
		t.Errorf("pullInterrupted = %q, want %q", got, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/models/acme/mini":
			fmt.Fprint(w, `{"siblings":[{"rfilename":"model.onnx","size":4096}]}`)
		case "/acme/mini/resolve/main/model.onnx":
			w.Header().Set("Content-Length", "4096")
			w.Write(make([]byte, 2048))
			w.(http.Flusher).Flush()
			cancel() // Ctrl-C half way
			<-r.Context().Done()
		default:
			http.NotFound(w, r)
		}
	}))
	defer hub.Close()
	newCLI(t)
	var out, errb bytes.Buffer
	code := run(ctx, []string{"models", "pull", "acme/mini", "--hub", hub.URL}, &out, &errb)
	if code != 1 || !strings.HasPrefix(errb.String(), "cairn: interrupted") ||
		!strings.Contains(errb.String(), "run cairn models pull acme/mini to") || strings.Contains(errb.String(), "context canceled") {
		t.Errorf("interrupted pull: exit %d, stderr %q", code, errb.String())
	}
}

// TestProgressWaitingLine: a phase with no event for 10 s gets a line
// saying it waits, again every 10 s while it does (the first time for the
// embedder with a note that the corpora are indexed already), none once it is done
// or with progress off (ux F25: an embedding endpoint that accepted and
// never answered kept sync silent for four minutes).
func TestProgressWaitingLine(t *testing.T) {
	p, buf, clock := testProgress(false)
	p.tick() // no phase yet
	p.update(cairn.ProgressEvent{Corpus: "embeddings", Done: 0, Total: 4})
	for _, step := range []struct {
		after time.Duration
		want  string
	}{
		{5 * time.Second, ""},
		{5 * time.Second, embedWaitNote + "\nembedding: 0/4 chunks, waiting for the embedder: no answer for 10s\n"}, // what is done meanwhile, once
		{5 * time.Second, ""},
		{5 * time.Second, "embedding: 0/4 chunks, waiting for the embedder: no answer for 20s\n"},
	} {
		clock.advance(step.after)
		buf.Reset()
		p.tick()
		if buf.String() != step.want {
			t.Errorf("tick: %q, want %q", buf.String(), step.want)
		}
	}
	p.update(cairn.ProgressEvent{Corpus: "notes", Done: 2, Total: 5})
	clock.advance(11 * time.Second)
	buf.Reset()
	p.tick()
	if want := "indexing notes: 2/5 files, waiting: no progress for 11s\n"; buf.String() != want {
		t.Errorf("a stalled file phase: %q, want %q", buf.String(), want)
	}
	p.update(cairn.ProgressEvent{Corpus: "embeddings", Done: 4, Total: 4})
	clock.advance(time.Minute)
	buf.Reset()
	p.tick()
	if buf.Len() != 0 {
		t.Errorf("a finished phase: %q", buf.String())
	}
	off, offBuf, offClock := testProgress(false)
	off.on = false
	off.update(cairn.ProgressEvent{Corpus: "embeddings", Done: 0, Total: 4})
	offClock.advance(time.Minute)
	off.tick()
	if offBuf.Len() != 0 {
		t.Errorf("progress off (--json): %q", offBuf.String())
	}
	stop := p.watch() // the goroutine starts and stops cleanly
	stop()
}
