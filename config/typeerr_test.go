package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// A value of the wrong type in any table reads as the file spells it:
// the table, the key, the value and what the key allows, at its line;
// never the decoder's Go struct fields.
func TestLoadTypeErrors(t *testing.T) {
	tests := []struct {
		text string
		line int
		want string
	}{
		{"[memoryWhisperer]\nmaxHints = 1.5\n", 2, "[memoryWhisperer] maxHints = 1.5; allowed: an integer from 1 to 2"},
		{"[memoryWhisperer]\nenabled = \"yes\"\n", 2, `[memoryWhisperer] enabled = "yes"; allowed: true or false`},
		{"[memoryWhisperer]\nminUsefulness = \"x\"\n", 2, `[memoryWhisperer] minUsefulness = "x"; allowed: a number from 0 to 1`},
		{"[memoryWhisperer]\ncorpora = \"notes\"\n", 2, `[memoryWhisperer] corpora = "notes"; allowed: an array of corpus names`},
		{"[memoryWhisperer]\ncorpora = [1]\n", 2, `[memoryWhisperer] corpora = [1]; allowed: an array of corpus names`},
		{"[memoryWhisperer.queryModel]\nmodel = 1\n", 2, "[memoryWhisperer.queryModel] model = 1; allowed: a string"},
		{"[memorySearch]\nmode = true\n", 2, `[memorySearch] mode = true; allowed: "local" or "judged"`},
		{"\n[store]\nurl = 5\n", 3, `[store] url = 5; allowed: a string, "postgres://user@host:port/database"`},
		{"[store]\nhnsw = 1\n", 2, "[store] hnsw = 1; allowed: true or false"},
		{"[store]\nmaxConns = \"10\"\n", 2, `[store] maxConns = "10"; allowed: an integer from 0 (the driver's default) to 1000`},
		{"[llm.fast]\ntimeout_seconds = \"x\"\n", 2, `[llm.fast] timeout_seconds = "x"; allowed: an integer from 1 to 3600`},
		{"[llm.judge]\nenabled = 1\n", 2, "[llm.judge] enabled = 1; allowed: true or false"},
		{"[llm.judge]\ntimeout_ms = 1.5\n", 2, "[llm.judge] timeout_ms = 1.5; allowed: an integer from 1 to 10000"},
		{"[embedder]\nmodel = true\n", 2, "[embedder] model = true; allowed: a string"},
		{"[qualityAudit]\nminNoise = \"a\"\n", 2, `[qualityAudit] minNoise = "a"; allowed: a number from 0 to 1`},
		{"[evidenceReview]\nenabled = \"on\"\n", 2, `[evidenceReview] enabled = "on"; allowed: true or false`},
		{"[llm.fast]\nmodel = [\"a\"]\n", 2, `[llm.fast] model = ['a']; allowed: a string`},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.text, "\n", " "), func(t *testing.T) {
			path := writeConfig(t, t.TempDir(), tt.text)
			_, err := Load(path, nil)
			if !errors.Is(err, cairn.ErrInvalid) {
				t.Fatalf("Load: %v; want an ErrInvalid", err)
			}
			want := fmt.Sprintf("config %s:%d: %s", path, tt.line, tt.want)
			if err.Error() != want {
				t.Errorf("error\n got %s\nwant %s", err, want)
			}
			for _, leak := range []string{"struct field", "raw", "of type", "toml.io"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("error %q shows %q", err, leak)
				}
			}
		})
	}
}
