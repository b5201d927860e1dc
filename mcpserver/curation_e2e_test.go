package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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

// curationHome builds cairn and a CAIRN_HOME over the curation notes and
// the Claude Code fixture sessions, embedded by embeddingsServer, synced
// once. extra is appended to the configuration.
func curationHome(t *testing.T, extra string) (bin string, env []string, notes string) {
	t.Helper()
	dir := t.TempDir()
	bin = buildCairn(t)
	home, sessions := filepath.Join(dir, "home"), filepath.Join(dir, "claude")
	notes = filepath.Join(dir, "notes")
	writeCurationNotes(t, notes)
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
	bin, env, _ := curationHome(t, "")
	runScript(t, nodeBin, env, "clusters", bin)
}
