package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/sqlite"
)

func TestBuildVersionReadsVCSStamp(t *testing.T) {
	info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/cairnmemory/cairn", Version: "v0.3.1"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "true"}}}
	v := buildVersion(info, true)
	if v.Version != "v0.3.1" || v.Commit != "0123abcd" || !v.Modified || v.Go != runtime.Version() {
		t.Errorf("buildVersion = %+v", v)
	}
	if v := buildVersion(nil, false); v.Version != "unknown" || v.IndexSchema != sqlite.SchemaVersion {
		t.Errorf("without build info: %+v", v)
	}
}

func TestVersionCommand(t *testing.T) {
	c := newCLI(t)
	var v map[string]any
	out := c.ok("version", "--json")
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("version --json: %v: %s", err, out)
	}
	wantKeys(t, "version", json.RawMessage(out), "version", "go", "indexSchema", "indexFeatures", "memorySchema", "embedder")
	if v["indexSchema"] != float64(sqlite.SchemaVersion) || v["memorySchema"] != float64(sqlite.DurableVersion) ||
		v["indexFeatures"] != engine.FeatureVersion || v["embedder"] != nil {
		t.Errorf("version --json = %s", out)
	}
	c.ok("init")
	cfg := filepath.Join(c.home, "config.toml")
	f, _ := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n[embedder]\nprovider = \"openai\"\nmodel = \"nomic-embed-text\"\nbase_url = \"http://127.0.0.1:1/v1\"\n")
	f.Close()
	for _, args := range [][]string{{"--version"}, {"version"}, {"--agent", "x", "--version"}} {
		out := c.ok(args...)
		for _, want := range []string{"cairn ", runtime.Version(), "index schema", engine.FeatureVersion, "memory schema", "embedder: openai nomic-embed-text"} {
			if !strings.Contains(out, want) {
				t.Errorf("cairn %v = %q, want %q in it", args, out, want)
			}
		}
	}
}
