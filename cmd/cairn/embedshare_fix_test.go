package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
)

// shareSetup is a CLI with two notes and the concept embedder at url;
// it returns the path of the default agent's server record.
func shareSetup(t *testing.T, url string, sync bool) (*cli, string) {
	t.Helper()
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Week\n\nCaroline went to the support group.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "b.md"), []byte("# Garden\n\nMore compost this spring.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	f, _ := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"openai\"\nmodel = \"concepts\"\nbase_url = %q\n", url+"/v1")
	f.Close()
	if sync {
		c.ok("sync")
	}
	_, dataDir := newEnv(io.Discard, io.Discard).paths()
	return c, filepath.Join(dataDir, "agents", "default", embedShareFile)
}

// trustedRecord is a record this CLI trusts, pointing at addr.
func trustedRecord(t *testing.T, record, addr, token string) embedShareRecord {
	t.Helper()
	cfg, err := newEnv(io.Discard, io.Discard).loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	emb, err := newEnv(io.Discard, io.Discard).embedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := embedShareRecord{Dir: filepath.Dir(record), Agent: "default", Addr: addr, Token: token, PID: os.Getpid(),
		Command: "serve", Config: configHash(cfg), Embedder: *cfg.Embedder, Identity: emb.Identity()}
	if err := writePrivateJSON(record, rec); err != nil {
		t.Fatal(err)
	}
	if _, ok := findShare(rec.Dir, rec.Config, cfg.Embedder); !ok {
		t.Fatal("the record is not trusted: the test tests nothing")
	}
	return rec
}

// silentListener accepts connections and never answers: a server stopped
// with SIGSTOP (the kernel still accepts on its port) or hung.
func silentListener(t *testing.T) (addr string, accepted *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = &atomic.Int64{}
	var conns []net.Conn
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String(), accepted
}

// A server that accepts and never answers is asked once: the search
// falls back in process after the first-byte deadline, says so in one
// line, and builds no remote embedder from the same record.
func TestShareSilentServerAskedOnce(t *testing.T) {
	var calls atomic.Int64
	c, record := shareSetup(t, conceptEmbedServer(t, &calls).URL, true)
	args := []string{"search", "support group", "--mode", "hybrid"}
	want := c.ok(args...)

	addr, accepted := silentListener(t)
	rec := trustedRecord(t, record, addr, "silent")
	out, errs, code := c.run(args...)
	if code != 0 || out != want {
		t.Fatalf("with a silent server: exit %d, stdout\n%s\nwant\n%s\nstderr %s", code, out, want, errs)
	}
	note := fmt.Sprintf("cairn: the server at %s (pid %d) did not answer; searching in process\n", addr, rec.PID)
	if strings.Count(errs, note) != 1 || strings.Count(errs, "did not answer") != 1 {
		t.Errorf("stderr %q; want the note %q once", errs, note)
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("the silent server was asked %d times; want 1 (no /embed after /search failed)", n)
	}

	// The embedder alone (recall, gather): one try, one note, then the
	// in-process model for every later query.
	cfg, _ := newEnv(io.Discard, io.Discard).loadConfig()
	inProcess, _ := newEnv(io.Discard, io.Discard).embedder(cfg)
	var failures atomic.Int64
	emb := newRemoteEmbedder(rec, shareFor{Dir: rec.Dir, Agent: "default"}, inProcess, func(error) { failures.Add(1) })
	before := accepted.Load()
	for range 3 {
		if v, err := emb.Embed(context.Background(), cairn.EmbedQuery, []string{"garden"}); err != nil || len(v) != 1 || v[0][1] == 0 {
			t.Fatalf("remote embedder with a silent server = %v, %v; want the in-process vector", v, err)
		}
	}
	if accepted.Load() != before+1 || failures.Load() != 1 {
		t.Errorf("three embeds: server asked %d times, failure reported %d times; want 1 and 1", accepted.Load()-before, failures.Load())
	}
}

// countingTarget is fixedTarget that counts its searches.
type countingTarget struct {
	fixedTarget
	searches atomic.Int64
}

func (c *countingTarget) Search(context.Context, string, *cairn.SearchOptions) ([]cairn.Hit, error) {
	c.searches.Add(1)
	return nil, nil
}

// A record that names this data directory but points at a server of
// another one: the request says which directory and agent it is for, the
// server refuses, and the search runs in process.
func TestShareRefusesAnotherDirectory(t *testing.T) {
	var calls atomic.Int64
	c, record := shareSetup(t, conceptEmbedServer(t, &calls).URL, true)
	args := []string{"search", "support group", "--mode", "hybrid"}
	want := c.ok(args...)

	other := t.TempDir()
	target := &countingTarget{}
	s, err := shareEmbedder(context.Background(), other, "default", "serve", "", &config.Embedder{Provider: "openai", Model: "m"}, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop(context.Background())
	theirs, _ := readShareRecord(filepath.Join(other, embedShareFile))
	rec := trustedRecord(t, record, theirs.Addr, theirs.Token)

	out, errs, code := c.run(args...)
	if code != 0 || out != want {
		t.Fatalf("with another directory's server: exit %d, stdout\n%s\nwant\n%s\nstderr %s", code, out, want, errs)
	}
	if target.searches.Load() != 0 {
		t.Errorf("the other directory's engine searched %d times; want 0", target.searches.Load())
	}
	if !strings.Contains(errs, fmt.Sprintf("the server at %s (pid %d) refused: this server serves agent default in %s", rec.Addr, rec.PID, other)) {
		t.Errorf("stderr %q; want the refusal named", errs)
	}
	// Its embedder refuses too, and the configured model embeds.
	cfg, _ := newEnv(io.Discard, io.Discard).loadConfig()
	inProcess, _ := newEnv(io.Discard, io.Discard).embedder(cfg)
	embeds := sharedEmbeds.Load()
	emb := newRemoteEmbedder(rec, shareFor{Dir: rec.Dir, Agent: "default"}, inProcess, nil)
	if v, err := emb.Embed(context.Background(), cairn.EmbedQuery, []string{"garden"}); err != nil || len(v) != 1 || v[0][1] == 0 {
		t.Errorf("remote embedder of another directory = %v, %v; want the in-process vector", v, err)
	}
	if sharedEmbeds.Load() != embeds {
		t.Error("the other directory's server embedded the query")
	}
	// Another agent's request to the right directory is refused as well.
	if err := pingShare(context.Background(), theirs, shareFor{Dir: other, Agent: "work"}); err == nil {
		t.Error("ping for another agent answered")
	}
}

// startShareServe runs cairn serve in this process until the returned stop.
func startShareServe(t *testing.T) (stop func(), stderr *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr = &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--watch=false", "--ui=false"}, io.Discard, stderr)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("cairn serve exited %d: %s", code, stderr.String())
			}
		})
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(60 * time.Second)
	for !servingOn.MatchString(stderr.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("cairn serve did not listen: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return stop, stderr
}

// startTwoShareServers starts two servers of one synced data directory,
// the first before the second, and fails the test unless the second left
// the first's live record in place. It returns the first's record.
func startTwoShareServers(t *testing.T) (c *cli, record string, first embedShareRecord, stop1, stop2 func(), stderr2 *syncBuffer) {
	t.Helper()
	var calls atomic.Int64
	c, record = shareSetup(t, conceptEmbedServer(t, &calls).URL, true)
	stop1, _ = startShareServe(t)
	first, err := readShareRecord(record)
	if err != nil {
		t.Fatal(err)
	}
	stop2, stderr2 = startShareServe(t)
	if rec, _ := readShareRecord(record); rec.Token != first.Token {
		t.Fatal("the second server replaced the first's live record")
	}
	return c, record, first, stop1, stop2, stderr2
}

// Two servers of one data directory: the second keeps the first's live
// record (and says so), stopping the second leaves it, searches still go
// to the first, and stopping the first removes it. A record whose server
// is alive but does not answer is replaced.
func TestShareTwoServersOneDirectory(t *testing.T) {
	c, record, first, stop1, stop2, stderr2 := startTwoShareServers(t)
	kept := fmt.Sprintf("stay with another server: cairn serve (pid %d) at %s already answers them; its server.json is kept\n", first.PID, first.Addr)
	if n := strings.Count(stderr2.String(), "one-shot searches of"); n != 1 || !strings.Contains(stderr2.String(), kept) {
		t.Errorf("second server's stderr %q; want one line about the kept record", stderr2.String())
	}
	stop2()
	if rec, err := readShareRecord(record); err != nil || rec.Token != first.Token {
		t.Fatalf("after the second server stopped: record %+v, %v; want the first's", rec, err)
	}
	served := sharedSearches.Load()
	if got := vectorTop(t, c, "LGBTQ meetup"); got != "cairn://notes/a.md" || sharedSearches.Load() != served+1 {
		t.Errorf("after the second server stopped: top %s, answered by a server %d times; want a.md, 1", got, sharedSearches.Load()-served)
	}
	stop1()
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("record after both stopped: %v; want it removed", err)
	}

	addr, _ := silentListener(t)
	trustedRecord(t, record, addr, "silent")
	stop3, _ := startShareServe(t)
	if rec, _ := readShareRecord(record); rec.Token == "silent" {
		t.Error("a server kept the record of one that does not answer")
	}
	stop3()
}

// During a server's first sync (held in its embedding step here), a
// search it answers says that server is embedding the waiting chunks,
// not "run cairn sync" (which would wait for its lock); an in-process
// search names the lock's holder.
func TestSharePendingWhileServerSyncs(t *testing.T) {
	var calls atomic.Int64
	inner := conceptEmbedServer(t, &calls)
	blocked, release := make(chan struct{}), make(chan struct{})
	var blockOnce sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), "spring") { // the notes' texts: the sync's embedding step
			blockOnce.Do(func() { close(blocked) })
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		resp, err := http.Post(inner.URL+r.URL.Path, "application/json", strings.NewReader(string(body)))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	defer close(release)
	c, record := shareSetup(t, srv.URL, false)
	stop, _ := startShareServe(t)
	defer stop()
	select {
	case <-blocked:
	case <-time.After(60 * time.Second):
		t.Fatal("the server's first sync did not reach its embedding step")
	}
	rec, err := readShareRecord(record)
	if err != nil {
		t.Fatal(err)
	}
	served := sharedSearches.Load()
	_, errs, code := c.run("search", "support group", "--mode", "hybrid")
	if code != 0 || sharedSearches.Load() != served+1 {
		t.Fatalf("search during the first sync: exit %d, answered by the server %d times; stderr %s", code, sharedSearches.Load()-served, errs)
	}
	want := fmt.Sprintf("only the lexical lane answered; a running cairn serve (pid %d) is embedding them\n", rec.PID)
	if !strings.Contains(errs, want) || strings.Contains(errs, "run cairn sync") {
		t.Errorf("stderr %q; want %q", errs, want)
	}
	os.Chmod(record, 0o644) // untrusted: in process
	_, errs, _ = c.run("search", "support group", "--mode", "hybrid")
	os.Chmod(record, 0o600)
	if want := fmt.Sprintf("a running cairn (pid %d) holds the sync lock and is embedding them\n", rec.PID); !strings.Contains(errs, want) {
		t.Errorf("in process: stderr %q; want %q", errs, want)
	}
}
