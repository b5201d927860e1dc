// Command growbench times a first index of a large folder window by window,
// so what grows with the index shows (bench/RESULTS.md, issue 19 item 4:
// chunks per second at 1M chunks against 100k):
//
//	go build -tags sqlite_fts5 -o /tmp/growbench ./bench/cmd/growbench
//	nice -n 10 /tmp/growbench -dir /tmp/big1m/notes -index /tmp/ix -profiles /tmp/prof
//	/tmp/growbench -dir NEW -index COPY_OF_BIG -fresh=false -corpus extra   # the same files into a big index
//	/tmp/growbench -dir NEW -index COPY_OF_BIG -fresh=false -open           # open it only (migrates an older schema)
//
// Every -every seconds it prints one line: elapsed seconds, files handed to
// the writer, files per second and process CPU seconds in the window, and
// the load average. With -profiles it writes a CPU profile of the window
// from 5% to 15% of the files (early.prof) and of the one from 80% to 90%
// (late.prof): the difference is what a bigger index costs. The last line
// is a JSON summary (wall and CPU seconds, chunks, chunks per second, the
// seconds spent after the last file was handed over: the final commit,
// garbage collection and the full-text merge).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/cairnmemory/cairn/bench/procstat"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// Summary is the JSON line growbench prints last.
type Summary struct {
	Seconds      float64 `json:"seconds"`
	CPUSeconds   float64 `json:"cpuSeconds"` // user + sys of the whole process
	Files        int     `json:"files"`
	Chunks       int     `json:"chunks"`
	ChunksPerSec float64 `json:"chunksPerSec"`
	TailSeconds  float64 `json:"tailSeconds"` // after the last file was handed to the writer
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "growbench: "+err.Error())
		os.Exit(1)
	}
}

type config struct {
	dir, index, corpus, profiles string
	every                        time.Duration
	fresh, openOnly              bool
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	c := &config{}
	fs := flag.NewFlagSet("growbench", flag.ContinueOnError)
	fs.StringVar(&c.dir, "dir", "", "folder of Markdown files to index (required)")
	fs.StringVar(&c.index, "index", "", "data directory for the index (required; emptied first unless -fresh=false)")
	fs.BoolVar(&c.fresh, "fresh", true, "empty -index first (false: add the corpus to the index there, which keeps its other corpora)")
	fs.StringVar(&c.corpus, "corpus", "bench", "corpus name")
	fs.StringVar(&c.profiles, "profiles", "", "folder for early.prof and late.prof (CPU profiles of two windows)")
	fs.DurationVar(&c.every, "every", 30*time.Second, "time between progress lines")
	fs.BoolVar(&c.openOnly, "open", false, "only open -index (migrating an older schema), print its seconds and CPU seconds as JSON, close")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.dir == "" || c.index == "" {
		return fmt.Errorf("-dir and -index are required")
	}
	dir, err := filepath.Abs(c.dir)
	if err != nil {
		return fmt.Errorf("resolve -dir: %w", err)
	}
	if c.fresh {
		if err := os.RemoveAll(c.index); err != nil {
			return fmt.Errorf("empty index: %w", err)
		}
	}
	corp := cairn.Corpus{Name: c.corpus, Kind: cairn.KindFiles, Paths: []string{dir}, Glob: cairn.DefaultGlob}
	start := time.Now()
	eng, err := local.Open(ctx, engine.Options{Dir: c.index, Corpora: []cairn.Corpus{corp}})
	if err != nil {
		return err
	}
	if c.openOnly {
		opened := struct {
			OpenSeconds float64 `json:"openSeconds"`
			CPUSeconds  float64 `json:"cpuSeconds"`
		}{time.Since(start).Seconds(), cpuSeconds()}
		if err := eng.Close(ctx); err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(opened)
	}
	s, err := measure(ctx, eng, c, stdout)
	if cerr := eng.Close(ctx); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(s)
}

// meter turns progress events into window lines and profile switches. Sync
// serializes its progress calls, but the ticker runs beside them: mu
// guards the counters.
type meter struct {
	mu       sync.Mutex
	out      io.Writer
	start    time.Time
	done     int
	total    int
	lastDone int
	lastAt   time.Time
	lastCPU  float64
	allIn    time.Time // when the last file was handed over
	profiles string
	prof     *os.File
	profName string
	profErr  error
	windows  [][3]float64 // start, end (fractions of the files), name index
}

var windowNames = []string{"early.prof", "late.prof"}

func (m *meter) progress(ev cairn.ProgressEvent) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done, m.total = ev.Done, ev.Total
	if ev.Total > 0 && ev.Done == ev.Total && m.allIn.IsZero() {
		m.allIn = time.Now()
	}
	if m.profiles == "" || ev.Total == 0 {
		return
	}
	f := float64(ev.Done) / float64(ev.Total)
	for _, w := range m.windows {
		name := windowNames[int(w[2])]
		switch {
		case m.prof == nil && f >= w[0] && f < w[1] && m.profName != name && !m.profiled(name):
			p, err := os.Create(filepath.Join(m.profiles, name))
			if err == nil {
				err = pprof.StartCPUProfile(p)
			}
			if err != nil {
				m.profErr = err
				return
			}
			m.prof, m.profName = p, name
			fmt.Fprintf(m.out, "# profiling %s from %.0f%% of the files\n", name, 100*f)
		case m.prof != nil && m.profName == name && f >= w[1]:
			m.stopProfile()
			fmt.Fprintf(m.out, "# %s done at %.0f%%\n", name, 100*f)
		}
	}
}

// profiled reports whether the window name was already written.
func (m *meter) profiled(name string) bool {
	_, err := os.Stat(filepath.Join(m.profiles, name))
	return err == nil
}

func (m *meter) stopProfile() {
	pprof.StopCPUProfile()
	if err := m.prof.Close(); err != nil && m.profErr == nil {
		m.profErr = err
	}
	m.prof = nil
}

func (m *meter) line(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cpu := cpuSeconds()
	dt := now.Sub(m.lastAt).Seconds()
	fmt.Fprintf(m.out, "%7.0f s  files %8d / %d  %7.0f files/s  cpu %5.1f s  load %.1f\n",
		now.Sub(m.start).Seconds(), m.done, m.total, float64(m.done-m.lastDone)/dt, cpu-m.lastCPU, procstat.Load1())
	m.lastDone, m.lastAt, m.lastCPU = m.done, now, cpu
}

func measure(ctx context.Context, eng *engine.Engine, c *config, out io.Writer) (*Summary, error) {
	if c.profiles != "" {
		if err := os.MkdirAll(c.profiles, 0o755); err != nil {
			return nil, fmt.Errorf("create profile folder: %w", err)
		}
		for _, n := range windowNames {
			if err := os.Remove(filepath.Join(c.profiles, n)); err != nil && !os.IsNotExist(err) {
				return nil, fmt.Errorf("remove old profile: %w", err)
			}
		}
	}
	start := time.Now()
	m := &meter{out: out, start: start, lastAt: start, lastCPU: cpuSeconds(), profiles: c.profiles,
		windows: [][3]float64{{0.05, 0.15, 0}, {0.80, 0.90, 1}}}
	tick := time.NewTicker(c.every)
	stopTick := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // owned: stopped and awaited below
		defer wg.Done()
		for {
			select {
			case now := <-tick.C:
				m.line(now)
			case <-stopTick:
				return
			}
		}
	}()
	// Naming the corpus syncs it alone and prunes no other.
	res, err := eng.Sync(ctx, &cairn.SyncOptions{Corpora: []string{c.corpus}, Progress: m.progress})
	end := time.Now()
	tick.Stop()
	close(stopTick)
	wg.Wait()
	m.mu.Lock()
	if m.prof != nil {
		m.stopProfile()
	}
	profErr, allIn := m.profErr, m.allIn
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if profErr != nil {
		return nil, fmt.Errorf("write profile: %w", profErr)
	}
	s := &Summary{Seconds: end.Sub(start).Seconds(), CPUSeconds: cpuSeconds()}
	if !allIn.IsZero() {
		s.TailSeconds = end.Sub(allIn).Seconds()
	}
	for _, cr := range res.Corpora {
		s.Files += cr.Added + cr.Updated
		s.Chunks += cr.Chunks
	}
	s.ChunksPerSec = float64(s.Chunks) / s.Seconds
	return s, nil
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
