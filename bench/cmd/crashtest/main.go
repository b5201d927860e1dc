// Command crashtest kills `cairn sync` with SIGKILL at random moments and
// checks that the next sync recovers an index equal to a clean sync of the
// same files (issue 13's crash test). Each trial is one of four kinds,
// taken in turn: a fresh or an update sync (files modified, added,
// deleted, renamed and duplicated between a finished sync and the killed
// one), with or without an embedder (a fake OpenAI-compatible
// /v1/embeddings server in this process). The kill lands at a uniform
// random delay up to the time a sync of that kind takes; then `cairn sync`
// runs to the end, a clean sync indexes the same files in a fresh data
// directory, and the two indexes are compared: documents, content, chunks,
// full-text statistics, sizes and term matches, vectors, and the results of
// fixed queries.
//
//	go run -tags sqlite_fts5 ./bench/cmd/crashtest -trials 100
//	go run -tags sqlite_fts5 ./bench/cmd/crashtest -measure-checks DATADIR   # check costs
package main

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/engine"
	_ "github.com/mattn/go-sqlite3"
)

const fakeModel = "crashtest-fake"

type config struct {
	trials, notes int
	seed          uint64
	bin, work     string
	keep          bool
	measure       string
}

func main() {
	var c config
	flag.IntVar(&c.trials, "trials", 100, "kill -9 trials")
	flag.IntVar(&c.notes, "notes", 1500, "notes in the corpus (about 1.4 MB)")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed (kinds, delays, edits)")
	flag.StringVar(&c.bin, "bin", "", "cairn binary (default: built into the work directory)")
	flag.StringVar(&c.work, "work", "", "work directory (default: a temporary one, removed at the end)")
	flag.BoolVar(&c.keep, "keep", false, "keep the data directories of failed trials")
	flag.StringVar(&c.measure, "measure-checks", "", "instead of trials: time the integrity checks on this agent data directory")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	do := func() error { return run(ctx, c) }
	if c.measure != "" {
		do = func() error { return measureChecks(ctx, c.measure) }
	}
	if err := do(); err != nil {
		fmt.Fprintln(os.Stderr, "crashtest: "+err.Error())
		os.Exit(1)
	}
}

// kind is what a trial kills.
type kind struct {
	update, embed bool
}

func (k kind) String() string {
	s := "fresh"
	if k.update {
		s = "update"
	}
	if k.embed {
		return s + "+embed"
	}
	return s
}

var kinds = []kind{{false, false}, {false, true}, {true, false}, {true, true}}

// tally counts the trials of one kind.
type tally struct {
	trials, killed, gcPending, mismatched int
}

func run(ctx context.Context, c config) error {
	if c.work == "" {
		dir, err := os.MkdirTemp("", "crashtest-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c.work = dir
	}
	if c.bin == "" {
		c.bin = filepath.Join(c.work, "cairn")
		build := exec.CommandContext(ctx, "go", "build", "-tags", "sqlite_fts5", "-o", c.bin, "./cmd/cairn")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build cairn: %w", err)
		}
	}
	srv, embedded := fakeEmbeddings()
	defer srv.Close()
	r := rand.New(rand.NewPCG(c.seed, 0xc7a5))
	t := &trials{config: c, url: srv.URL + "/v1", r: r,
		queries: corpus.Queries(12, int64(c.seed)), budget: map[kind]time.Duration{}}
	for _, q := range t.queries {
		t.terms = append(t.terms, strings.FieldsFunc(q, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		})...)
	}
	// Calibrate: how long each kind of sync runs, killed nowhere.
	for _, k := range kinds {
		d, err := t.calibrate(ctx, k)
		if err != nil {
			return fmt.Errorf("calibrate %s: %w", k, err)
		}
		t.budget[k] = d
		fmt.Printf("calibration: a %s sync of %d notes takes %s\n", k, c.notes, d.Round(time.Millisecond))
	}
	tallies := map[kind]*tally{}
	failed := 0
	for i := range c.trials {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := kinds[i%len(kinds)]
		res, err := t.trial(ctx, i, k)
		if err != nil {
			return fmt.Errorf("trial %d (%s): %w", i, k, err)
		}
		tl := tallies[k]
		if tl == nil {
			tl = &tally{}
			tallies[k] = tl
		}
		tl.trials++
		if res.killed {
			tl.killed++
		}
		if res.gcPending {
			tl.gcPending++
		}
		status := "ok"
		if len(res.diff) > 0 {
			tl.mismatched++
			failed++
			status = "MISMATCH"
		}
		fmt.Printf("trial %3d %-13s kill at %6s killed=%-5v gc-pending=%-5v %s\n", i, k, res.delay.Round(time.Millisecond), res.killed, res.gcPending, status)
		for _, d := range res.diff {
			fmt.Println("    " + d)
		}
	}
	fmt.Printf("\n%-13s %7s %7s %11s %11s\n", "kind", "trials", "killed", "gc pending", "mismatches")
	for _, k := range kinds {
		if tl := tallies[k]; tl != nil {
			fmt.Printf("%-13s %7d %7d %11d %11d\n", k, tl.trials, tl.killed, tl.gcPending, tl.mismatched)
		}
	}
	fmt.Printf("%d trials, %d mismatches; the fake embedder embedded %d texts\n", c.trials, failed, embedded.Load())
	if failed > 0 {
		return fmt.Errorf("%d of %d trials recovered an index that differs from a clean sync", failed, c.trials)
	}
	return nil
}

type trials struct {
	config
	url            string
	r              *rand.Rand
	queries, terms []string
	budget         map[kind]time.Duration
}

// home is one CAIRN_HOME: a config naming the notes and maybe the fake
// embedder.
type home struct {
	dir   string
	embed bool
}

func (t *trials) newHome(dir, notes string, embed bool) (home, error) {
	cfg := fmt.Sprintf("[[corpus]]\nname = \"notes\"\nkind = \"files\"\npaths = [%q]\n", notes)
	if embed {
		cfg += fmt.Sprintf("\n[embedder]\nprovider = \"openai\"\nmodel = %q\nbase_url = %q\n", fakeModel, t.url)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return home{}, err
	}
	return home{dir: dir, embed: embed}, os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o600)
}

func (h home) agentDir() string { return filepath.Join(h.dir, "agents", "default") }

func (t *trials) command(ctx context.Context, h home) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, t.bin, "sync", "--json")
	cmd.Env = append(os.Environ(), "CAIRN_HOME="+h.dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

// sync runs one sync to its end.
func (t *trials) sync(ctx context.Context, h home) error {
	cmd, out := t.command(ctx, h)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cairn sync: %w: %s", err, out.String())
	}
	return nil
}

// prepare writes the notes of a trial and, for an update, syncs them and
// changes them, leaving the sync to kill.
func (t *trials) prepare(ctx context.Context, dir string, k kind, seed int64) (string, home, error) {
	notes := filepath.Join(dir, "notes")
	if _, _, err := corpus.Generate(notes, corpus.Options{Notes: t.notes, Seed: seed}); err != nil {
		return "", home{}, err
	}
	h, err := t.newHome(filepath.Join(dir, "home"), notes, k.embed)
	if err != nil {
		return "", home{}, err
	}
	if k.update {
		if err := t.sync(ctx, h); err != nil {
			return "", home{}, err
		}
		if err := mutate(notes, seed); err != nil {
			return "", home{}, err
		}
	}
	return notes, h, nil
}

func (t *trials) calibrate(ctx context.Context, k kind) (time.Duration, error) {
	dir := filepath.Join(t.work, "calibrate-"+k.String())
	defer os.RemoveAll(dir)
	_, h, err := t.prepare(ctx, dir, k, 999)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := t.sync(ctx, h); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

type result struct {
	delay             time.Duration
	killed, gcPending bool
	diff              []string
}

func (t *trials) trial(ctx context.Context, i int, k kind) (*result, error) {
	dir := filepath.Join(t.work, fmt.Sprintf("trial-%03d", i))
	res := &result{delay: time.Duration(t.r.Int64N(int64(t.budget[k]) + 1))}
	notes, h, err := t.prepare(ctx, dir, k, int64(t.seed)*1000+int64(i))
	if err != nil {
		return nil, err
	}
	cmd, _ := t.command(ctx, h)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	time.Sleep(res.delay)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.killed = true
	} else if err != nil {
		return nil, fmt.Errorf("sync to kill failed on its own: %w", err)
	}
	res.gcPending = gcPending(h.agentDir())
	if err := t.sync(ctx, h); err != nil {
		return nil, fmt.Errorf("recover: %w", err)
	}
	clean, err := t.newHome(filepath.Join(dir, "clean"), notes, k.embed)
	if err != nil {
		return nil, err
	}
	if err := t.sync(ctx, clean); err != nil {
		return nil, fmt.Errorf("clean sync: %w", err)
	}
	corpora := []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}}
	url := ""
	if k.embed {
		url = t.url
	}
	want, err := takeSnapshot(ctx, clean.agentDir(), corpora, url, t.terms, t.queries)
	if err != nil {
		return nil, fmt.Errorf("read clean index: %w", err)
	}
	got, err := takeSnapshot(ctx, h.agentDir(), corpora, url, t.terms, t.queries)
	if err != nil {
		return nil, fmt.Errorf("read recovered index: %w", err)
	}
	res.diff = want.diff(got)
	if len(res.diff) == 0 || !t.keep {
		os.RemoveAll(dir)
	}
	return res, nil
}

// gcPending reads the gc marker of a killed sync's index (before the
// recovery sync): whether the kill fell where collection was still due.
func gcPending(dir string) bool {
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, engine.DBFile)+"?mode=ro")
	if err != nil {
		return false
	}
	defer db.Close()
	var v string
	if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'gc_pending'`).Scan(&v); err != nil {
		return false
	}
	return v == "1"
}
