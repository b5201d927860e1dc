package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairnmemory/cairn"
)

const notesTable = "[[corpus]]\nname = \"notes\"\nkind = \"files\"\npaths = [\"/tmp/notes\"]\n"

// TestEnhancedTables: [memorySearch] and [memoryWhisperer] as written,
// and the defaults without them.
func TestEnhancedTables(t *testing.T) {
	cfg, err := loadText(t, notesTable)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MemorySearch.Judged() {
		t.Errorf("default memorySearch %+v", cfg.MemorySearch)
	}
	if d := cmp.Diff(DefaultMemoryWhisperer(), cfg.MemoryWhisperer.Filled()); d != "" {
		t.Errorf("default memoryWhisperer (-want +got):\n%s", d)
	}
	cfg, err = loadText(t, notesTable+`
[memorySearch]
mode = "judged"

[memoryWhisperer]
enabled = true
corpora = ["Notes", "memories", "notes"]
minUsefulness = 0.8
maxHints = 1
cooldownTurns = 0
timeoutMs = 10000
complementaryHints = true

[memoryWhisperer.queryModel]
endpoint = "http://127.0.0.1:8081/v1/"
model = "query-m"
apiKeyFile = "/run/keys/query"
`)
	if err != nil {
		t.Fatal(err)
	}
	want := MemoryWhisperer{Enabled: true, Corpora: []string{"notes", cairn.MemoriesCorpus}, MinUsefulness: 0.8, MaxHints: 1,
		CooldownTurns: 0, TimeoutMs: 10000, ComplementaryHints: true,
		QueryModel: &QueryModel{Endpoint: "http://127.0.0.1:8081/v1", API: "openai", Model: "query-m", APIKeyFile: "/run/keys/query"}}
	if d := cmp.Diff(want, cfg.MemoryWhisperer); d != "" {
		t.Errorf("memoryWhisperer (-want +got):\n%s", d)
	}
	if !cfg.MemorySearch.Judged() {
		t.Errorf("memorySearch %+v, want judged", cfg.MemorySearch)
	}
}

// TestEnhancedInvalid: every key out of its range fails the load with an
// error that names the table, the key, the line and the allowed values.
func TestEnhancedInvalid(t *testing.T) {
	tests := []struct{ text, want string }{
		{"[memorySearch]\nmode = \"hybrid\"\n", `:7: [memorySearch] mode "hybrid"; allowed: "local", "judged"`},
		{"[memorySearch]\ndepth = 2\n", `:7: unknown key "depth" in [memorySearch]; allowed keys: mode`},
		{"[memoryWhisperer]\nminUsefulness = 1.5\n", ":7: [memoryWhisperer] minUsefulness 1.5; allowed: 0 to 1"},
		{"[memoryWhisperer]\nminUsefulness = -0.1\n", ":7: [memoryWhisperer] minUsefulness -0.1; allowed: 0 to 1"},
		{"[memoryWhisperer]\nmaxHints = 3\n", ":7: [memoryWhisperer] maxHints 3; allowed: 1 to 2"},
		{"[memoryWhisperer]\nmaxHints = 0\n", ":7: [memoryWhisperer] maxHints 0; allowed: 1 to 2"},
		{"[memoryWhisperer]\ncooldownTurns = 1001\n", ":7: [memoryWhisperer] cooldownTurns 1001; allowed: 0 to 1000"},
		{"[memoryWhisperer]\ncooldownTurns = -1\n", ":7: [memoryWhisperer] cooldownTurns -1; allowed: 0 to 1000"},
		{"[memoryWhisperer]\ntimeoutMs = 0\n", ":7: [memoryWhisperer] timeoutMs 0; allowed: 1 to 10000"},
		{"[memoryWhisperer]\ntimeoutMs = 10001\n", ":7: [memoryWhisperer] timeoutMs 10001; allowed: 1 to 10000"},
		{"[memoryWhisperer]\nenabled = true\n", ":7: [memoryWhisperer] enabled = true needs corpora"},
		{"[memoryWhisperer]\ncorpora = [\"all\"]\n", `:7: [memoryWhisperer] corpora cannot hold "all"`},
		{"[memoryWhisperer]\ncorpora = [\"wiki\"]\n", `:7: [memoryWhisperer] corpora entry "wiki" is no configured non-skill corpus; allowed: memories, notes`},
		{"[memoryWhisperer]\nhints = 2\n", `:7: unknown key "hints" in [memoryWhisperer]; allowed keys: enabled, corpora`},
		{"[memoryWhisperer.queryModel]\nendpoint = \"ftp://host/v1\"\nmodel = \"m\"\n", `:7: [memoryWhisperer.queryModel] endpoint "ftp://host/v1"; allowed: an http:// or https:// URL`},
		{"[memoryWhisperer.queryModel]\nendpoint = \"https://u:p@host/v1\"\nmodel = \"m\"\n", ":7: [memoryWhisperer.queryModel] endpoint holds credentials"},
		{"[memoryWhisperer.queryModel]\nendpoint = \"https://host/v1?k=1\"\nmodel = \"m\"\n", "has a query or fragment"},
		{"[memoryWhisperer.queryModel]\nendpoint = \"https://host/v1#x\"\nmodel = \"m\"\n", "has a query or fragment"},
		{"[memoryWhisperer.queryModel]\nendpoint = \"https://host/v1\"\n", ":6: [memoryWhisperer.queryModel] model is missing"},
		{"[memoryWhisperer.queryModel]\nendpoint = \"https://host/v1\"\nmodel = \"m\"\napi = \"gemini\"\n", `:9: [memoryWhisperer.queryModel] api "gemini"; allowed: openai, anthropic`},
		{"[memoryWhisperer.queryModel]\nendpoint = \"https://host/v1\"\nmodel = \"m\"\napiKeyFile = \"key\"\n", `:9: [memoryWhisperer.queryModel] apiKeyFile "key"; allowed: an absolute path`},
		{"[memoryWhisperer.queryModel]\nkey = \"k\"\n", `:7: unknown key "key" in [memoryWhisperer.queryModel]; allowed keys: endpoint, api, model, apiKeyFile`},
	}
	for _, tt := range tests {
		_, err := loadText(t, notesTable+"\n"+tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("%q: error %v, want one holding %q", tt.text, err, tt.want)
		}
	}
}
