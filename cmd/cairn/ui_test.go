package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestUIRefusesNonLoopback(t *testing.T) {
	c := newCLI(t)
	_, stderr, code := c.run("ui", "--addr", "0.0.0.0:0")
	if code != 2 || !strings.Contains(stderr, "loopback only") || !strings.Contains(stderr, "cairn serve") {
		t.Errorf("ui --addr 0.0.0.0:0: exit %d, stderr %q", code, stderr)
	}
}

// TestUIOpensBrowser: cairn ui serves the pages on loopback and hands the
// address to the desktop's opener (a stand-in xdg-open on PATH records
// it); the page answers.
func TestUIOpensBrowser(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the stand-in opener is xdg-open, the Linux one")
	}
	newCLI(t) // a fresh CAIRN_HOME
	bin := t.TempDir()
	opened := filepath.Join(bin, "opened")
	script := "#!/bin/sh\nprintf '%s' \"$1\" > " + opened + "\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"ui", "--addr", "127.0.0.1:0", "--watch=false"}, io.Discard, stderr) }()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("cairn ui exited %d: %s", code, stderr.String())
		}
	}()
	at := regexp.MustCompile(`pages at (http://127\.0\.0\.1:\d+/) `)
	var url string
	for range 600 {
		if m := at.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if url == "" {
		t.Fatalf("cairn ui printed no address: %s", stderr.String())
	}
	var got []byte
	for range 100 {
		if got, _ = os.ReadFile(opened); len(got) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if string(got) != url {
		t.Errorf("opener got %q, want %q", got, url)
	}
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "<title>Search · Cairn</title>") {
		t.Errorf("GET %s: %d\n%s", url, res.StatusCode, body)
	}
}
