package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn/redact/redacttest"
)

// findSecrets reports every planted secret that data holds, by kind.
func findSecrets(data []byte) []string { return redacttest.Leaked(string(data)) }

// modelFake is one OpenAI-compatible endpoint for both the embedder and the
// consolidation model. It keeps every request body it received. The chat
// answer leaks a secret into a memory on purpose (a model can repeat what it
// saw elsewhere): the gate must redact it before it is stored.
type modelFake struct {
	mu     sync.Mutex
	bodies map[string][]string // by URL path
	leak   string
}

func (m *modelFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	if m.bodies == nil {
		m.bodies = map[string][]string{}
	}
	m.bodies[r.URL.Path] = append(m.bodies[r.URL.Path], string(body))
	m.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/v1/embeddings":
		var req struct{ Input []string }
		json.Unmarshal(body, &req)
		var data []string
		for i, in := range req.Input {
			data = append(data, fmt.Sprintf(`{"index":%d,"embedding":[%d,1,0.5]}`, i, len(in)%7+1))
		}
		fmt.Fprintf(w, `{"data":[%s]}`, strings.Join(data, ","))
	case "/v1/chat/completions":
		answer := `{"observations":[]}`
		if !bytes.Contains(body, []byte("cairn_observations")) {
			n := 1
			if mt := regexp.MustCompile(`=== Record (\d+)`).FindSubmatch(body); mt != nil {
				fmt.Sscan(string(mt[1]), &n)
			}
			ep := map[string]any{"request": n, "outcome": "success", "keep": true, "title": "Rotate the deploy credentials",
				"summary": "The deploy token " + m.leak + " was rotated.", "cues": []string{"deploy token"}, "concepts": []string{"credentials"}}
			it := map[string]any{"kind": "fact", "title": "Where the deploy token lives", "summary": "It is " + m.leak + ".",
				"body": "Use " + m.leak + " for deploys.", "applies_when": "When deploying.", "scope": "project", "requests": []int{n},
				"confidence": "stated", "importance": 3, "contested": false, "ambiguous": false, "cues": []string{"deploy"}, "concepts": []string{"deploy"}}
			b, _ := json.Marshal(map[string]any{"segment_summary": "Credentials were rotated; " + m.leak, "episodes": []any{ep}, "items": []any{it}})
			answer = string(b)
		}
		out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
			"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 5}})
		w.Write(out)
	default:
		http.NotFound(w, r)
	}
}

// TestCLIPlantedSecretsNeverStoredOrSent plants every sample secret in a
// Markdown note and in a Claude Code session (its messages and its working
// folder), configures an embedder and a consolidation model on one fake
// endpoint, and runs the everyday commands: sync, search, get, consolidate,
// memories list. No secret may reach a file under the data directory
// (index, memory store, vectors file, projections, status), a command's
// output, or a request body either model received.
func TestCLIPlantedSecretsNeverStoredOrSent(t *testing.T) {
	samples := redacttest.Samples()
	fake := &modelFake{leak: samples[5].Secret} // the GitHub token
	if samples[5].Kind != "github-token" {
		t.Fatalf("sample 5 is %s, want github-token", samples[5].Kind)
	}
	srv := httptest.NewServer(fake)
	defer srv.Close()

	c := newCLI(t)
	notes := t.TempDir()
	var note strings.Builder
	note.WriteString("# Deploy notes\n\nThe walrus deploy runbook.\n\n")
	for _, s := range samples {
		note.WriteString("walrus " + s.Line + "\n\n")
	}
	if err := os.WriteFile(filepath.Join(notes, "deploy.md"), []byte(note.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	// A Claude Code session whose working folder holds a token too.
	ccRoot := t.TempDir()
	cwd := "/home/dev/" + samples[5].Secret + "/api"
	var cc strings.Builder
	parent := "null"
	for i, s := range samples {
		id := fmt.Sprintf("d0d0d0d0-0000-4000-8000-%012d", i)
		msg, _ := json.Marshal("walrus deploy: " + s.Line)
		fmt.Fprintf(&cc, `{"parentUuid":%s,"isSidechain":false,"cwd":%q,"sessionId":"5ec2e700-0000-4000-8000-00000000beef","type":"user","message":{"role":"user","content":%s},"uuid":%q,"timestamp":"2026-05-06T10:%02d:00.000Z"}`+"\n",
			parent, cwd, msg, id, i)
		parent = fmt.Sprintf("%q", id)
	}
	proj := filepath.Join(ccRoot, "projects", "-home-dev-api")
	os.MkdirAll(proj, 0o755)
	if err := os.WriteFile(filepath.Join(proj, "5ec2e700-0000-4000-8000-00000000beef.jsonl"), []byte(cc.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	c.ok("corpus", "add", "notes", notes)
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "claude-code", "--root", "claude-code="+ccRoot)
	f, err := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"openai\"\nmodel = \"fake\"\nbase_url = %q\n", srv.URL+"/v1")
	fmt.Fprintf(f, "\n[llm.consolidate]\napi = \"openai\"\nbase_url = %q\nmodel = \"test\"\n", srv.URL+"/v1")
	f.Close()

	type output struct{ cmd, out string }
	var outputs []output
	run := func(args ...string) string {
		t.Helper()
		out := c.ok(args...)
		outputs = append(outputs, output{"cairn " + strings.Join(args, " "), out})
		return out
	}
	run("sync", "--json")
	run("consolidate", "--idle", "0", "--json")
	run("sync", "--json") // indexes and embeds the memories
	run("sync", "status", "--json")
	run("memories", "list", "--json")
	for _, q := range []string{"walrus", "walrus deploy", "deploy token", "REDACTED", "password", "AKIA"} {
		for _, mode := range []string{"lexical", "vector", "hybrid"} {
			out := run("search", q, "--mode", mode, "--limit", "50", "--json")
			var res struct{ Results []struct{ Path string } }
			json.Unmarshal([]byte(out), &res)
			for _, h := range res.Results {
				run("get", h.Path, "--lines", "1000", "--json")
			}
		}
	}
	// A query that holds a secret is redacted before it reaches the
	// embedder (the request bodies are checked below); a session filter
	// naming the working folder as it is on disk matches its stored,
	// redacted form.
	for _, smp := range samples {
		run("search", "walrus "+smp.Line, "--mode", "vector", "--json") // as pasted, with its context
	}
	if out := c.ok("search", "walrus deploy", "--cwd", cwd, "--json"); !strings.Contains(out, `"cwd":"/home/dev/[REDACTED:github-token]/api"`) {
		t.Errorf("search --cwd with the folder on disk finds no session: %s", out)
	}
	// The notes were found, whole, with placeholders in place of secrets.
	got := run("get", "cairn://notes/deploy.md", "--lines", "1000", "--json")
	if !strings.Contains(got, "[REDACTED:github-token]") || !strings.Contains(got, "walrus deploy runbook") {
		t.Errorf("the note is not indexed with its placeholders: %s", got)
	}
	var list struct{ Memories []json.RawMessage }
	json.Unmarshal([]byte(outputs[4].out), &list)
	if len(list.Memories) == 0 {
		t.Fatalf("consolidation wrote no memory: %s", outputs[1].out)
	}

	leaks := map[string]int{}   // command -> outputs with a secret
	for _, o := range outputs { // a command line may hold a secret; its output may not
		cmd := o.cmd
		if found := findSecrets([]byte(o.out)); len(found) > 0 {
			if leaks[cmd]++; leaks[cmd] == 1 {
				t.Errorf("secrets %v in the output of %s", found, cmd)
			}
		}
	}
	fake.mu.Lock()
	for path, bodies := range fake.bodies {
		for _, b := range bodies {
			if found := findSecrets([]byte(b)); len(found) > 0 {
				t.Errorf("secrets %v sent to %s", found, path)
			}
		}
	}
	if len(fake.bodies["/v1/embeddings"]) == 0 || len(fake.bodies["/v1/chat/completions"]) == 0 {
		t.Errorf("the models were not called: %d embedding and %d chat requests",
			len(fake.bodies["/v1/embeddings"]), len(fake.bodies["/v1/chat/completions"]))
	}
	fake.mu.Unlock()

	files := 0
	err = filepath.WalkDir(c.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "config.toml") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		if found := findSecrets(data); len(found) > 0 {
			t.Errorf("secrets %v stored in %s", found, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 3 {
		t.Errorf("only %d files under the data directory", files)
	}
}
