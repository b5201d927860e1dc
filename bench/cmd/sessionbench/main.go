// Command sessionbench measures session ingestion: it writes a corpus of
// Claude Code transcripts (sessions × messages, deterministic), syncs it into
// a fresh index, reports throughput and peak RSS, then appends messages to
// one session and times the re-sync that picks them up.
//
//	go run -tags sqlite_fts5 ./bench/cmd/sessionbench -sessions 1000 -messages 100
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

func main() {
	sessions := flag.Int("sessions", 1000, "sessions to generate")
	messages := flag.Int("messages", 100, "messages per session")
	appends := flag.Int("append", 10, "messages appended to one session before each timed re-sync")
	rounds := flag.Int("rounds", 10, "timed append re-syncs")
	flag.Parse()
	if err := run(*sessions, *messages, *appends, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "sessionbench:", err)
		os.Exit(1)
	}
}

func run(nSessions, nMessages, nAppend, rounds int) error {
	ctx := context.Background()
	work, err := os.MkdirTemp("", "sessionbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	root := filepath.Join(work, "claude")
	t0 := time.Now()
	bytes, err := generate(root, nSessions, nMessages)
	if err != nil {
		return err
	}
	fmt.Printf("generated %d sessions × %d messages (%.1f MB) in %.1fs\n", nSessions, nMessages, float64(bytes)/1e6, time.Since(t0).Seconds())
	eng, err := local.Open(ctx, engine.Options{Dir: filepath.Join(work, "data"), Corpora: []cairn.Corpus{{
		Name: "sessions", Kind: cairn.KindSessions, Sources: []cairn.SourceSpec{{ID: cairn.SourceClaudeCode, Roots: []string{root}}},
	}}})
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	t0 = time.Now()
	res, err := eng.Sync(ctx, nil)
	if err != nil {
		return err
	}
	first := time.Since(t0)
	src := res.Corpora[0].Sessions.Sources[0]
	msgs := nSessions * nMessages
	fmt.Printf("first sync: %.2fs, %d sessions projected, %d chunks, %.0f messages/s, %.2f MB/s of transcript, peak RSS %.0f MB\n",
		first.Seconds(), src.Projected, res.Corpora[0].Chunks, float64(msgs)/first.Seconds(), float64(bytes)/1e6/first.Seconds(), peakRSS())
	t0 = time.Now()
	if _, err := eng.Sync(ctx, nil); err != nil {
		return err
	}
	fmt.Printf("re-sync with nothing changed: %.3fs\n", time.Since(t0).Seconds())
	var times []time.Duration
	target := sessionFile(root, nSessions/2)
	for r := range rounds {
		if err := appendMessages(target, nSessions/2, nMessages+r*nAppend, nAppend); err != nil {
			return err
		}
		t0 = time.Now()
		res, err := eng.Sync(ctx, nil)
		if err != nil {
			return err
		}
		times = append(times, time.Since(t0))
		if s := res.Corpora[0].Sessions.Sources[0]; s.Projected != 1 {
			return fmt.Errorf("append round %d projected %d sessions, want 1", r, s.Projected)
		}
	}
	slices.Sort(times)
	fmt.Printf("append %d messages to one session, re-sync: median %.1f ms, max %.1f ms over %d rounds\n",
		nAppend, ms(times[len(times)/2]), ms(times[len(times)-1]), rounds)
	hits, err := eng.Search(ctx, "pelican migration", nil)
	if err != nil {
		return err
	}
	fmt.Printf("search check: %d hits\n", len(hits))
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

var words = strings.Fields(`the deploy failed because the migration locked the sessions table pelican retry
backoff token refresh cache invalidation flaky test timeout config yaml docker compose port 8081 postgres
index vacuum wal checkpoint goroutine leak context cancel error wrap lint format release tag branch merge
rebase conflict review comment approve pipeline runner artifact upload download checksum sha256 verify`)

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	return strings.Join(w, " ")
}

func sessionID(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }

func sessionFile(root string, i int) string {
	return filepath.Join(root, "projects", fmt.Sprintf("-home-dev-p%02d", i%20), sessionID(i)+".jsonl")
}

func line(sid string, n int, parent string, role string, text string, ts time.Time) (string, string) {
	id := fmt.Sprintf("%s-%06d", sid[len(sid)-8:], n)
	id = "aaaaaaaa-0000-4000-8000-" + id[len(id)-12:]
	p := "null"
	if parent != "" {
		p = fmt.Sprintf("%q", parent)
	}
	msg := fmt.Sprintf(`{"role":"user","content":%q}`, text)
	if role == "assistant" {
		msg = fmt.Sprintf(`{"id":"msg_%s","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":%q}]}`, id[24:], text)
	}
	return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"cwd":"/home/dev/p","sessionId":%q,"type":%q,"message":%s,"uuid":%q,"timestamp":%q}`,
		p, sid, role, msg, id, ts.UTC().Format("2006-01-02T15:04:05.000Z")), id
}

func writeMessages(w *bufio.Writer, i, from, n int, parent string) (string, error) {
	r := rand.New(rand.NewPCG(uint64(i), uint64(from)))
	sid := sessionID(i)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
	for m := from; m < from+n; m++ {
		role := "user"
		if m%2 == 1 {
			role = "assistant"
		}
		l, id := line(sid, m, parent, role, sentence(r, 8+r.IntN(40)), start.Add(time.Duration(m)*time.Second))
		if _, err := w.WriteString(l + "\n"); err != nil {
			return "", err
		}
		parent = id
	}
	return parent, w.Flush()
}

func generate(root string, nSessions, nMessages int) (int64, error) {
	var total int64
	for i := range nSessions {
		p := sessionFile(root, i)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return 0, err
		}
		f, err := os.Create(p)
		if err != nil {
			return 0, err
		}
		if _, err := writeMessages(bufio.NewWriter(f), i, 0, nMessages, ""); err != nil {
			f.Close()
			return 0, err
		}
		fi, _ := f.Stat()
		total += fi.Size()
		f.Close()
	}
	return total, nil
}

func appendMessages(p string, i, from, n int) error {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	sid := sessionID(i)
	id := fmt.Sprintf("%s-%06d", sid[len(sid)-8:], from-1)
	parent := "aaaaaaaa-0000-4000-8000-" + id[len(id)-12:]
	_, err = writeMessages(bufio.NewWriter(f), i, from, n, parent)
	return err
}

func peakRSS() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			var kb float64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "VmHWM:"), "kB")), &kb)
			return kb / 1024
		}
	}
	return 0
}
