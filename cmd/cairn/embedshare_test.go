package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
)

// conceptEmbedServer is an OpenAI-compatible embedding endpoint that
// counts its requests and maps words to two concepts.
func conceptEmbedServer(t *testing.T, calls *atomic.Int64) *httptest.Server {
	groups := map[string]int{"support": 0, "group": 0, "meetup": 0, "lgbtq": 0, "garden": 1, "compost": 1}
	return wordGroupEmbedder(t, "concepts", groups, []float64{0, 0, 0.01}, calls)
}

// startStoppableServe runs cairn serve in this process and returns a
// function that stops it and waits for it to exit (startShareServe without
// its stderr).
func startStoppableServe(t *testing.T) (stop func()) {
	t.Helper()
	stop, _ = startShareServe(t)
	return stop
}

func vectorTop(t *testing.T, c *cli, query string) string {
	t.Helper()
	var res struct{ Results []struct{ Path string } }
	out := c.ok("search", query, "--mode", "vector", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Results) == 0 {
		t.Fatalf("search %q: %s", query, out)
	}
	return res.Results[0].Path
}

// TestCLISearchThroughRunningServer: with cairn serve running for the same
// data directory, a one-shot hybrid or vector search is answered by the
// server's engine (the server answers; its embedder embeds the query) and
// prints exactly what an in-process search prints; once the server stops,
// the record is gone and the search runs in process again, with the same
// hits; a record left by a dead server is tried, then passed over.
func TestCLISearchThroughRunningServer(t *testing.T) {
	var calls atomic.Int64
	srv := conceptEmbedServer(t, &calls)
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Week\n\nCaroline went to the support group.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "b.md"), []byte("# Garden\n\nMore compost this spring.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	f, _ := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"openai\"\nmodel = \"concepts\"\nbase_url = %q\n", srv.URL+"/v1")
	f.Close()
	c.ok("sync")
	_, dataDir := newEnv(io.Discard, io.Discard).paths()
	record := filepath.Join(dataDir, "agents", "default", embedShareFile)

	stop := startStoppableServe(t)
	fi, err := os.Stat(record)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record of the running server: %v, %v; want a 0600 file", fi, err)
	}
	served, before := sharedSearches.Load(), calls.Load()
	if got := vectorTop(t, c, "LGBTQ meetup"); got != "cairn://notes/a.md" {
		t.Errorf("through the server: top hit %s, want a.md", got)
	}
	if sharedSearches.Load() != served+1 || calls.Load() != before+1 {
		t.Errorf("through the server: server answered %d, endpoint called %d; want 1 and 1 (the server's embedder)",
			sharedSearches.Load()-served, calls.Load()-before)
	}
	// The same output as in process (the record made untrusted for one
	// search), in both output forms.
	for _, args := range [][]string{{"search", "support group", "--json", "--explain"}, {"search", "compost", "--explain"}} {
		remote := c.ok(args...)
		os.Chmod(record, 0o644)
		served := sharedSearches.Load()
		local := c.ok(args...)
		os.Chmod(record, 0o600)
		if sharedSearches.Load() != served {
			t.Errorf("%v: an untrusted record was used", args)
		}
		if remote != local || !strings.Contains(local, "a.md") && !strings.Contains(local, "b.md") {
			t.Errorf("%v: through the server\n%s\nin process\n%s", args, remote, local)
		}
	}

	stop()
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("record after the server stopped: %v; want it removed", err)
	}
	served = sharedSearches.Load()
	if got := vectorTop(t, c, "compost garden"); got != "cairn://notes/b.md" {
		t.Errorf("without a server: top hit %s, want b.md", got)
	}
	if sharedSearches.Load() != served {
		t.Error("without a server: a server answered")
	}

	// A record left by a server that died (its port closed): the search
	// tries it, then searches in process.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	cfg, _ := newEnv(io.Discard, io.Discard).loadConfig()
	inProcess, err := newEnv(io.Discard, io.Discard).embedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := embedShareRecord{Dir: filepath.Dir(record), Addr: addr, Token: "t", PID: os.Getpid(), Config: configHash(cfg),
		Embedder: *cfg.Embedder, Identity: inProcess.Identity()}
	if err := writePrivateJSON(record, rec); err != nil {
		t.Fatal(err)
	}
	if _, ok := findShare(rec.Dir, configHash(cfg), cfg.Embedder); !ok {
		t.Fatal("the dead server's record is not trusted: the case below tests nothing")
	}
	if got := vectorTop(t, c, "LGBTQ meetup"); got != "cairn://notes/a.md" {
		t.Errorf("with a dead server's record: top hit %s, want a.md", got)
	}
	// Its embedder too: the query vector comes from the configured model.
	emb := newRemoteEmbedder(rec, shareFor{Dir: rec.Dir, Agent: "default"}, inProcess, nil)
	if v, err := emb.Embed(context.Background(), cairn.EmbedQuery, []string{"garden"}); err != nil || len(v) != 1 || v[0][1] == 0 {
		t.Errorf("remote embedder without a server = %v, %v; want the in-process vector", v, err)
	}
}

// findShare trusts only a private record of this user for this data
// directory, a loopback address, a live process and the same embedder.
func TestFindShareTrust(t *testing.T) {
	dir := t.TempDir()
	ec := &config.Embedder{Provider: "onnx", Model: "/models/use-lite"}
	good := embedShareRecord{Dir: dir, Addr: "127.0.0.1:4000", Token: "x", PID: os.Getpid(), Config: "c1", Embedder: *ec,
		Identity: cairn.EmbedderIdentity{Provider: "onnx", Model: "use-lite@1", Dimension: 512}}
	other := *ec
	other.Model = "/models/other"
	for _, tt := range []struct {
		name string
		edit func(*embedShareRecord)
		mode os.FileMode
		want bool
	}{
		{"good", func(*embedShareRecord) {}, 0o600, true},
		{"readable by others", func(*embedShareRecord) {}, 0o644, false},
		{"another data directory", func(r *embedShareRecord) { r.Dir = t.TempDir() }, 0o600, false},
		{"not loopback", func(r *embedShareRecord) { r.Addr = "192.0.2.1:4000" }, 0o600, false},
		{"a host name", func(r *embedShareRecord) { r.Addr = "example.com:4000" }, 0o600, false},
		{"another embedder", func(r *embedShareRecord) { r.Embedder = other }, 0o600, false},
		{"another configuration", func(r *embedShareRecord) { r.Config = "c2" }, 0o600, false},
		{"a dead process", func(r *embedShareRecord) { r.PID = 1 << 30 }, 0o600, false},
		{"no token", func(r *embedShareRecord) { r.Token = "" }, 0o600, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := good
			tt.edit(&rec)
			path := filepath.Join(dir, embedShareFile)
			if err := writePrivateJSON(path, rec); err != nil {
				t.Fatal(err)
			}
			os.Chmod(path, tt.mode)
			if _, ok := findShare(dir, "c1", ec); ok != tt.want {
				t.Errorf("findShare = %v, want %v", ok, tt.want)
			}
		})
	}
	os.Remove(filepath.Join(dir, embedShareFile))
	if _, ok := findShare(dir, "c1", ec); ok {
		t.Error("findShare without a record = true")
	}
}

// The endpoints refuse a caller without the token, a browser and too
// many texts; /embed answers with the embedder's vectors.
func TestEmbedShareRefuses(t *testing.T) {
	dir := t.TempDir()
	s, err := shareEmbedder(context.Background(), dir, "default", "serve", "", &config.Embedder{Provider: "openai", Model: "m"}, fixedTarget{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop(context.Background())
	rec, _ := readShareRecord(filepath.Join(dir, embedShareFile))
	post := func(path, token, origin string, texts int) int {
		body, _ := json.Marshal(embedShareRequest{shareFor: shareFor{Dir: dir, Agent: "default"}, Kind: cairn.EmbedQuery, Texts: make([]string, texts)})
		req, _ := http.NewRequest("POST", "http://"+rec.Addr+path, strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+token)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("/embed", rec.Token, "", 1); code != 200 {
		t.Errorf("with the token: %d", code)
	}
	for _, path := range []string{"/embed", "/search"} {
		if code := post(path, "wrong", "", 1); code != 401 {
			t.Errorf("%s, wrong token: %d, want 401", path, code)
		}
		if code := post(path, rec.Token, "http://evil.example", 1); code != 401 {
			t.Errorf("%s from a browser: %d, want 401", path, code)
		}
	}
	if code := post("/embed", rec.Token, "", embedShareMaxTexts+1); code != 400 {
		t.Errorf("too many texts: %d, want 400", code)
	}
	if code := post("/search", rec.Token, "", 1); code != 400 {
		t.Errorf("search with a JSON body: %d, want 400", code)
	}
	v, err := newRemoteEmbedder(rec, shareFor{Dir: dir, Agent: "default"}, fixedEmbedder{}, nil).Embed(context.Background(), cairn.EmbedQuery, []string{"q"})
	if err != nil || len(v) != 1 || v[0][0] != 1 {
		t.Errorf("remote Embed = %v, %v", v, err)
	}
}

// fixedEmbedder returns a constant vector.
type fixedEmbedder struct{}

func (fixedEmbedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "fake", Model: "fixed", Dimension: 2}
}

func (fixedEmbedder) Embed(_ context.Context, _ string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

// fixedTarget is an engine with fixedEmbedder and no hits.
type fixedTarget struct{}

func (fixedTarget) Embedder() cairn.Embedder { return fixedEmbedder{} }

func (fixedTarget) Search(context.Context, string, *cairn.SearchOptions) ([]cairn.Hit, error) {
	return nil, nil
}

func (fixedTarget) PendingEmbeddings(context.Context) (int, error) { return 0, nil }
