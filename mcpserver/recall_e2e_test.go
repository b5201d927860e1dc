package mcpserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTypeScriptRecall runs e2e.mjs recall: the fixture sessions are
// consolidated by cairn consolidate with the fake model of
// fakeConsolidator, then the official TypeScript client searches the
// memories corpus with an event-time range over cairn mcp.
func TestTypeScriptRecall(t *testing.T) {
	nodeBin := node(t)
	bin, env := cairnHome(t)
	srv, calls := fakeConsolidator(t)
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CAIRN_HOME="); ok {
			home = v
		}
	}
	cfg, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cfg.WriteString("\n[llm.consolidate]\napi = \"openai\"\nbase_url = \"" + srv.URL + "/v1\"\nmodel = \"test\"\n")
	if cerr := cfg.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	cons := exec.Command(bin, "consolidate", "--idle", "0")
	cons.Env = env
	if out, err := cons.CombinedOutput(); err != nil || calls.Load() == 0 {
		t.Fatalf("cairn consolidate: %v (%d model calls)\n%s", err, calls.Load(), out)
	}
	cmd := exec.Command(nodeBin, "e2e.mjs", "recall", bin)
	cmd.Dir, cmd.Env = e2eDir, env
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil || !strings.Contains(string(out), "\nPASS\n") {
		t.Fatalf("node e2e.mjs recall: %v", err)
	}
}
