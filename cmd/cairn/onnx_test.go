package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn/internal/testshared"
)

// sharedDir finds the workplace's shared/ folder with the model and ONNX
// Runtime (testshared: skipped without it, failed under
// CAIRN_REQUIRE_SHARED=1).
func sharedDir(t *testing.T) string {
	t.Helper()
	return testshared.Dir(t, testshared.Model, testshared.Library)
}

// TestCLIUSELiteParaphrase: with the real USE-lite encoder configured,
// `cairn sync` then `cairn search --mode vector` finds each note from a
// paraphrase that shares no word with it.
func TestCLIUSELiteParaphrase(t *testing.T) {
	shared := sharedDir(t)
	c := newCLI(t)
	notes := t.TempDir()
	files := map[string]string{
		"a.md": "# Week\n\nCaroline went to the LGBTQ support group on Tuesday evening.\n",
		"b.md": "# Garden\n\nThe tomatoes need more compost and water.\n",
		"c.md": "# Money\n\nQuarterly budget review with the finance team.\n",
	}
	for name, text := range files {
		os.WriteFile(filepath.Join(notes, name), []byte(text), 0o644)
	}
	c.ok("corpus", "add", "notes", notes)
	f, _ := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"onnx\"\nmodel = %q\nlibrary = %q\n",
		filepath.Join(shared, "models", "use-lite"), filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"))
	f.Close()
	c.ok("sync")
	for query, want := range map[string]string{
		"a meetup for queer people": "a.md",
		"vegetables in my backyard": "b.md",
		"how much money we spend":   "c.md",
	} {
		var res struct{ Results []struct{ Path string } }
		out := c.ok("search", query, "--mode", "vector", "--json")
		json.Unmarshal([]byte(out), &res)
		if len(res.Results) == 0 || res.Results[0].Path != "cairn://notes/"+want {
			t.Errorf("%q: %s; want %s first", query, out, want)
		}
	}
}
