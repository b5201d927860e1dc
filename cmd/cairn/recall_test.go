package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIRecall consolidates the OpenAI-chat fixtures with the fake model
// and searches the memories with recall's filters. (These sessions carry
// no timestamps: their memories have no told time.)
func TestCLIRecall(t *testing.T) {
	c := newCLI(t)
	root := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openai-chat")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openai-chat", "--root", "openai-chat="+root)
	c.ok("sync")
	srv := fakeChat(t)
	appendConfig(t, c, "\n[llm.consolidate]\napi = \"openai\"\nbase_url = \""+srv.URL+"/v1\"\nmodel = \"test\"\n")
	c.ok("consolidate", "--idle", "0")

	type result struct {
		Results []struct {
			Corpus string
			Memory struct {
				ID, Kind, Title, Scope, ToldAt, EventDate string
				Sources                                   []json.RawMessage
			}
		}
	}
	var all result
	if err := json.Unmarshal([]byte(c.ok("recall", "metric units", "--json", "--min-score", "0", "--limit", "200")), &all); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, h := range all.Results {
		if h.Corpus != "memories" || h.Memory.ID == "" || len(h.Memory.Sources) == 0 {
			t.Fatalf("recall hit without its memory: %+v", h)
		}
		kinds[h.Memory.Kind]++
	}
	if kinds["preference"] == 0 || kinds["episode"] == 0 {
		t.Fatalf("recall kinds %v, want preferences and episodes", kinds)
	}
	var prefs result
	json.Unmarshal([]byte(c.ok("recall", "metric units", "--json", "--min-score", "0", "--kind", "preference", "--scope", "person")), &prefs)
	if len(prefs.Results) == 0 {
		t.Fatal("no preference of scope person")
	}
	for _, h := range prefs.Results {
		if h.Memory.Kind != "preference" || h.Memory.Scope != "person" {
			t.Errorf("--kind preference --scope person: %+v", h.Memory)
		}
	}
	if out := c.ok("recall", "metric units", "--from", "1990", "--to", "1990"); !strings.Contains(out, "no memories found") {
		t.Errorf("recall in 1990: %q", out)
	}
	if out := c.ok("recall", "metric units", "--kind", "preference"); !strings.Contains(out, "preference") || !strings.Contains(out, "from cairn://sessions/") {
		t.Errorf("recall text: %q", out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"recall", "x", "--kind", "gossip"}, `--kind "gossip": allowed episode, observation`},
		{[]string{"recall", "x", "--scope", "team"}, `--scope "team"`},
		{[]string{"recall", "x", "--from", "2023-13"}, `--from "2023-13"`},
		{[]string{"recall", "x", "--from", "2024", "--to", "2023"}, "--from 2024 is after --to 2023"},
		{[]string{"recall", "x", "--status", "superseded"}, `--status "superseded": allowed active`},
		{[]string{"recall", "x", "--told-from", "yesterday"}, "--told-from"},
		{[]string{"recall", "x", "--limit", "201"}, "--limit 201 out of range: allowed 1 to 200"},
		{[]string{"recall"}, "recall needs a QUERY"},
	} {
		if _, stderr, code := c.run(tt.args...); code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("cairn %v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestCLIRecallToldMemory: a memory written with cairn remember has no
// source document; recall's text names who told it and when instead of
// printing "from :0-0".
func TestCLIRecallToldMemory(t *testing.T) {
	c := newCLI(t)
	c.ok("remember", "the staging database moved to port 6543", "--kind", "fact", "--title", "staging database port")
	out := c.ok("recall", "staging database port")
	if strings.Contains(out, ":0-0") || !strings.Contains(out, "    told by cli at ") {
		t.Errorf("recall of a told memory:\n%s\nwant its source as \"told by cli at ...\", no \"from :0-0\"", out)
	}
}
