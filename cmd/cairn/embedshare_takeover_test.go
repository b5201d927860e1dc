package main

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
)

// A second server of a data directory leaves the first's live record,
// and takes the record over when the first stops (it removes its own):
// one-shot searches then go to the second, which says so once, and
// removes the record when it stops in turn.
func TestShareSecondServerTakesOver(t *testing.T) {
	c, record, first, stop1, stop2, stderr2 := startTwoShareServers(t)
	stop1()
	deadline := time.Now().Add(60 * time.Second)
	var second embedShareRecord
	var err error
	for {
		second, err = readShareRecord(record)
		if err == nil && second.Token != first.Token {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second server did not take the record over after the first stopped: %+v, %v; stderr %s", second, err, stderr2.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := strings.Count(stderr2.String(), "was stale; one-shot searches of"); n != 1 {
		t.Errorf("second server's stderr %q; want one line saying it took the record over", stderr2.String())
	}
	served := sharedSearches.Load()
	if got := vectorTop(t, c, "LGBTQ meetup"); got != "cairn://notes/a.md" || sharedSearches.Load() != served+1 {
		t.Errorf("after the take-over: top %s, answered by a server %d times; want a.md, 1", got, sharedSearches.Load()-served)
	}
	stop2()
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("record after both stopped: %v; want it removed", err)
	}
}

// A server that waits for another's record stops waiting when it stops:
// the wait ends, no record of its own is written, the other's stays.
func TestShareWaitEndsWithServer(t *testing.T) {
	_, record, first, stop1, stop2, _ := startTwoShareServers(t)
	stop2()
	time.Sleep(shareRetry + 500*time.Millisecond) // a wait left running would have ticked
	if rec, err := readShareRecord(record); err != nil || rec.Token != first.Token {
		t.Errorf("after the waiting server stopped: record %+v, %v; want the first's", rec, err)
	}
	stop1()
}

// A request from a cairn that predates naming the data directory (no dir,
// no agent) is refused like any other (the old binary searches in process,
// silently), and the server says so once on stderr with what to do.
func TestShareOldClientHint(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var hints []string
	hint := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		hints = append(hints, fmt.Sprintf(format, args...))
	}
	target := &countingTarget{}
	s, err := shareEmbedder(context.Background(), dir, "default", "serve", "", &config.Embedder{Provider: "openai", Model: "m"}, target, hint)
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop(context.Background())
	rec, err := readShareRecord(filepath.Join(dir, embedShareFile))
	if err != nil {
		t.Fatal(err)
	}
	post := func(path, contentType string, body []byte) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+rec.Addr+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+rec.Token)
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// The old wire forms: /embed's JSON without dir and agent, /search's
	// gob without For.
	old, _ := json.Marshal(map[string]any{"kind": cairn.EmbedQuery, "texts": []string{"q"}})
	var search bytes.Buffer
	gob.NewEncoder(&search).Encode(struct {
		Query string
		Opts  cairn.SearchOptions
	}{"q", cairn.SearchOptions{Mode: cairn.ModeHybrid}})
	for range 2 {
		if code := post("/embed", "application/json", old); code != http.StatusForbidden {
			t.Errorf("old /embed: status %d, want 403", code)
		}
		if code := post("/search", "application/x-gob", search.Bytes()); code != http.StatusForbidden {
			t.Errorf("old /search: status %d, want 403", code)
		}
	}
	// A new client of another directory is refused without the hint.
	other, _ := json.Marshal(embedShareRequest{shareFor: shareFor{Dir: t.TempDir(), Agent: "default"}, Kind: cairn.EmbedQuery, Texts: []string{"q"}})
	if code := post("/embed", "application/json", other); code != http.StatusForbidden {
		t.Errorf("another directory's /embed: status %d, want 403", code)
	}
	mu.Lock()
	defer mu.Unlock()
	abs, _ := filepath.Abs(dir)
	if len(hints) != 1 || !strings.Contains(hints[0], "older cairn binary") || !strings.Contains(hints[0], abs) {
		t.Errorf("hints %q; want one naming the older binary and %s", hints, abs)
	}
	if target.searches.Load() != 0 {
		t.Errorf("the engine searched %d times for refused requests", target.searches.Load())
	}
}
