package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
)

// impostor is a plain listener on a loopback port that a stale
// server.json names: another local user's process after the server died
// by kill -9 (ux F17). It keeps every byte it receives and answers each
// request with answer (a status line, headers and body).
func impostor(t *testing.T, answer string) (addr string, got func() string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var all bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					var head bytes.Buffer
					req.Header.Write(&head)
					body, _ := io.ReadAll(req.Body)
					mu.Lock()
					fmt.Fprintf(&all, "%s %s\n%s\n%s\n", req.Method, req.URL.Path, head.String(), body)
					mu.Unlock()
					if _, err := io.WriteString(conn, answer); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().String(), func() string {
		mu.Lock()
		defer mu.Unlock()
		return all.String()
	}
}

// A trusted-looking record (ours, 0600, a live pid) whose port another
// process now holds: the one-shot search and remember's embedding send
// that listener neither the query, nor the memory's text, nor the token,
// and the note names why the server was not used.
func TestShareImpostorGetsNothing(t *testing.T) {
	const token = "f17tokenf17tokenf17tokenf17token"
	for _, tt := range []struct {
		name, answer, why string
	}{
		{"500 with no body", "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n", "500 Internal Server Error"},
		{"a made-up proof", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"mac\":\"00ff\"}\n", "wrong proof"},
		{"200 to anything", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "wrong proof"},
		// A server of a cairn before hello: its mux has no /hello.
		{"an older server", "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 19\r\n\r\n404 page not found\n", "did not prove it holds the token: 404 page not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			c, record := shareSetup(t, conceptEmbedServer(t, &calls).URL, true)
			args := []string{"search", "my secret question about payroll", "--mode", "hybrid"}
			want := c.ok(args...)
			addr, got := impostor(t, tt.answer)
			rec := trustedRecord(t, record, addr, token)

			out, errs, code := c.run(args...)
			if code != 0 || out != want {
				t.Fatalf("search with an impostor: exit %d, stdout\n%s\nwant\n%s\nstderr %s", code, out, want, errs)
			}
			note := fmt.Sprintf("cairn: the server at %s (pid %d) ", addr, rec.PID)
			t.Logf("stderr: %s", errs)
			if !strings.Contains(errs, note) || !strings.Contains(errs, tt.why) || strings.Contains(errs, "refused: ;") {
				t.Errorf("stderr %q; want a note on %s naming %q", errs, addr, tt.why)
			}
			if _, errs, code := c.run("remember", "--kind", "fact", "--title", "Payroll", "Salaries are paid on the 25th; the HR contact is Jo."); code != 0 ||
				!strings.Contains(errs, "; embedding in process\n") {
				t.Errorf("remember with an impostor: exit %d, stderr %q; want the note ending 'embedding in process'", code, errs)
			}
			cfg, _ := newEnv(io.Discard, io.Discard).loadConfig()
			inProcess, _ := newEnv(io.Discard, io.Discard).embedder(cfg)
			emb := newRemoteEmbedder(rec, shareFor{Dir: rec.Dir, Agent: "default"}, inProcess, nil)
			if v, err := emb.Embed(context.Background(), cairn.EmbedDocument, []string{"the HR contact is Jo"}); err != nil || len(v) != 1 {
				t.Errorf("remote embedder with an impostor = %v, %v; want the in-process vector", v, err)
			}
			if err := pingShare(context.Background(), rec, shareFor{Dir: rec.Dir, Agent: "default"}); err == nil {
				t.Error("ping of an impostor succeeded")
			}

			seen := got()
			if seen == "" {
				t.Fatal("the impostor was never asked: the test tests nothing")
			}
			for _, secret := range []string{token, "payroll", "Salaries", "HR contact", "Bearer", rec.Dir} {
				if strings.Contains(seen, secret) {
					t.Errorf("the impostor received %q:\n%s", secret, seen)
				}
			}
		})
	}
}

// hello answers a nonce with the MAC under the server's token, refuses a
// browser and a nonce of the wrong size, and needs no token itself.
func TestShareHello(t *testing.T) {
	dir := t.TempDir()
	s, err := shareEmbedder(context.Background(), dir, "default", "serve", "", &config.Embedder{Provider: "openai", Model: "m"}, fixedTarget{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop(context.Background())
	rec, _ := readShareRecord(filepath.Join(dir, embedShareFile))
	conn, err := helloShare(context.Background(), rec)
	if err != nil {
		t.Fatalf("hello of the record's own server: %v", err)
	}
	conn.Close()
	wrong := rec
	wrong.Token = "not-the-token"
	var unproven *shareUnproven
	if _, err := helloShare(context.Background(), wrong); !errors.As(err, &unproven) {
		t.Errorf("hello checked under another token: %v; want *shareUnproven", err)
	}
	post := func(body, origin string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+rec.Addr+"/hello", strings.NewReader(body))
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
	good := fmt.Sprintf(`{"nonce":%q}`, strings.Repeat("ab", shareNonceBytes))
	if code := post(good, ""); code != 200 {
		t.Errorf("hello: %d, want 200", code)
	}
	if code := post(good, "http://evil.example"); code != 400 {
		t.Errorf("hello from a browser: %d, want 400", code)
	}
	if code := post(`{"nonce":"abab"}`, ""); code != 400 {
		t.Errorf("hello with a 2-byte nonce: %d, want 400", code)
	}
	if got := refusalText(500, []byte(" \n")); got != "status 500 Internal Server Error" {
		t.Errorf("the reason of a refusal with no body = %q", got) // was "refused: ;"
	}
}
