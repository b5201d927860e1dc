package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// embeddingsServer is an OpenAI-compatible /v1/embeddings endpoint that
// embeds as topicEmbedder does, so cairn (the binary) has vectors to
// cluster without a model file.
func embeddingsServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "topics" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		vecs, _ := topicEmbedder{}.Embed(r.Context(), "", req.Input)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Data []item `json:"data"`
		}{}
		for i, v := range vecs {
			out.Data = append(out.Data, item{i, v})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// curationHome builds cairn and a CAIRN_HOME over the curation notes (and
// what more writes into the notes folder) and the Claude Code fixture
// sessions, embedded by embeddingsServer, synced once. extra is appended
// to the configuration.
func curationHome(t *testing.T, extra string, more func(notes string)) (bin string, env []string, notes string) {
	t.Helper()
	dir := t.TempDir()
	bin = buildCairn(t)
	home, sessions := filepath.Join(dir, "home"), filepath.Join(dir, "claude")
	notes = filepath.Join(dir, "notes")
	writeCurationNotes(t, notes)
	if more != nil {
		more(notes)
	}
	copyTree(t, "../ingest/testdata/transcripts/claude-code", sessions)
	srv := embeddingsServer(t)
	write(t, filepath.Join(home, "config.toml"), fmt.Sprintf(`[[corpus]]
name = "notes"
kind = "files"
paths = [%q]

[[corpus]]
name = "sessions"
kind = "sessions"
sources = [{id = "claude-code", root = %q}]
chatTypes = ["direct", "group", "channel"]
syncIntervalMinutes = 0

[embedder]
provider = "openai"
base_url = "%s/v1"
model = "topics"
%s`, notes, sessions, srv.URL, extra))
	env = append(os.Environ(), "CAIRN_HOME="+home, "CAIRN_TOKEN=")
	sync := exec.Command(bin, "sync")
	sync.Env = env
	if out, err := sync.CombinedOutput(); err != nil {
		t.Fatalf("cairn sync: %v\n%s", err, out)
	}
	return bin, env, notes
}

// runScript runs testdata/e2e/curation.mjs with args and requires PASS.
func runScript(t *testing.T, nodeBin string, env []string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, append([]string{"curation.mjs"}, args...)...)
	cmd.Dir, cmd.Env = e2eDir, env
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil || !strings.Contains(string(out), "\nPASS\n") {
		t.Fatalf("node curation.mjs %s: %v", args[0], err)
	}
}

// TestTypeScriptCuration runs curation.mjs clusters: through the official
// TypeScript client over cairn mcp, recluster; list with previews and
// budgets; fetch in each sort with paging; a date sort that files
// ambiguous_event_time tasks; one resolved with an annotation that the
// next fetch uses; the page with the duplicated passage filing an
// exact_duplicate task.
func TestTypeScriptCuration(t *testing.T) {
	nodeBin := node(t)
	bin, env, _ := curationHome(t, "", nil)
	runScript(t, nodeBin, env, "clusters", bin)
}

// secretToken is a GitHub token written into a note: no request to the
// judge may hold it.
const secretToken = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

// judgeServer is an OpenAI-compatible judge endpoint that gives no
// log-probabilities (so the judge asks for structured answers) and checks
// every request: the rubric's instructions for its questions, no secret,
// each excerpt within its budget. It fails one request of the chunk
// holding "boom" (the audit's partial page); for the claim about the
// office it changes the cited note and waits until cairn has indexed the
// change before it answers (a document changed during the review).
func judgeServer(t *testing.T, bin string, home func() (env []string, notes string)) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	boomed := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), secretToken) {
			t.Errorf("a judge request holds the secret token")
		}
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
			Format   *struct {
				Schema struct {
					Schema struct {
						Required []string `json:"required"`
					} `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) < 2 {
			t.Errorf("judge request %.200s: %v", body, err)
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if req.Format == nil { // the log-probability form: answer without them
			writeChat(w, "ok")
			return
		}
		system, user := req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content
		_, rest, _ := strings.Cut(user, "<state>\n")
		stateText, _, _ := strings.Cut(rest, "\n</state>")
		var state map[string]any
		if err := json.Unmarshal([]byte(stateText), &state); err != nil {
			t.Errorf("judge state %.200q: %v", stateText, err)
		}
		keys := strings.Join(req.Format.Schema.Schema.Required, ",")
		switch keys {
		case "noise_0,evidence_0":
			text := state["chunks"].([]any)[0].(map[string]any)["text"].(string)
			if !strings.Contains(system, "Each chunk is judged on its own") || utf8.RuneCountInString(text) > 6000 {
				t.Errorf("quality request: rubric or budget wrong (%d chars)", utf8.RuneCountInString(text))
			}
			mu.Lock()
			fail := strings.Contains(text, "boom") && !boomed
			boomed = boomed || fail
			mu.Unlock()
			if fail {
				http.Error(w, "overloaded", http.StatusServiceUnavailable)
				return
			}
			noise, evidence := 0.05, 0.1
			if strings.Contains(text, "debris") {
				noise = 0.95
			}
			if strings.Contains(text, "decided") {
				evidence = 0.9
			}
			writeChat(w, fmt.Sprintf(`{"noise_0": %g, "evidence_0": %g}`, noise, evidence))
		case "member_0":
			text := state["members"].([]any)[0].(map[string]any)["text"].(string)
			if !strings.Contains(system, "members of a cluster") || utf8.RuneCountInString(text) > 2000 {
				t.Errorf("cluster review request: rubric or budget wrong (%d chars)", utf8.RuneCountInString(text))
			}
			writeChat(w, `{"member_0": {"wrapper": 0.01, "encoding": 0.01, "boilerplate": 0.96, "none_or_uncertain": 0.02}}`)
		case "relation":
			claim := state["claim"].(string)
			total := 0
			for _, ev := range state["evidence"].([]any) {
				total += utf8.RuneCountInString(ev.(string))
			}
			if !strings.Contains(system, "Judge the claim against the evidence alone") || total > 6000 {
				t.Errorf("claim request: rubric or budget wrong (%d chars)", total)
			}
			if strings.Contains(claim, "office") {
				env, notes := home()
				changeAndWait(t, bin, env, filepath.Join(notes, "claims/office.md"), "# Office\n\nThe office moved to Munich.\n", "Munich")
			}
			writeChat(w, `{"relation": {"supports": 0.95, "contradicts": 0.02, "insufficient_evidence": 0.03}}`)
		default:
			t.Errorf("judge request with questions %s", keys)
			http.Error(w, "unknown rubric", http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func writeChat(w http.ResponseWriter, content string) {
	json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 50, "completion_tokens": 9},
	})
}

// changeAndWait rewrites a note and waits until cairn get (another
// process, read only) shows the running server has indexed the change.
func changeAndWait(t *testing.T, bin string, env []string, path, text, want string) {
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Error(err)
		return
	}
	for range 150 {
		get := exec.Command(bin, "get", "cairn://notes/claims/office.md")
		get.Env = env
		if out, err := get.Output(); err == nil && strings.Contains(string(out), want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("cairn did not index the change to %s", path)
}

// TestTypeScriptJudgedCuration runs curation.mjs judged: memory_audit_quality
// a page at a time through a failing judgment and on from its cursor,
// memory_review_cluster and memory_review_claim over an httptest judge
// that checks each request, and a claim whose cited note changes during
// the review (unavailable).
func TestTypeScriptJudgedCuration(t *testing.T) {
	nodeBin := node(t)
	var (
		mu    sync.Mutex // env and notes are set before the first request, but the
		env   []string   // judge answers on the server's goroutines: the lock is the
		notes string     // ordering the race detector sees
	)
	bin := buildCairn(t)
	srv := judgeServer(t, bin, func() ([]string, string) {
		mu.Lock()
		defer mu.Unlock()
		return env, notes
	})
	extra := fmt.Sprintf(`
[llm.judge]
api = "openai"
base_url = "%s/v1"
model = "judge-m"
timeout_ms = 10000

[qualityAudit]
enabled = true
corpora = ["notes"]

[evidenceReview]
enabled = true
corpora = ["notes"]
`, srv.URL)
	b, e, n := curationHome(t, extra, func(notes string) {
		write(t, filepath.Join(notes, "quality/encoded.md"), `"{\"role\":\"user\",\"content\":\"hello there\"}"`+"\n")
		write(t, filepath.Join(notes, "quality/debris.md"), "# Log\n\ndebris debris, but we decided the release is on Friday\n")
		write(t, filepath.Join(notes, "quality/boom.md"), "# Boom\n\nboom goes the first judgment\n")
		write(t, filepath.Join(notes, "quality/secret.md"), "# Keys\n\nThe deploy token is "+secretToken+" and we decided to rotate it.\n")
		write(t, filepath.Join(notes, "claims/deploy.md"), "# Deploys\n\nDeploys run every Friday.\n")
		write(t, filepath.Join(notes, "claims/office.md"), "# Office\n\nThe office is in Berlin.\n")
	})
	mu.Lock()
	bin, env, notes = b, e, n
	mu.Unlock()
	runScript(t, nodeBin, e, "judged", b)
}
