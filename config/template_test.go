package config

import (
	"strings"
	"testing"
)

// TestTemplateDocumentsEveryKey: the file cairn init writes names every key
// Load accepts, in the corpus tables, [embedder] and [llm.<purpose>], and
// every kind (it once said "files" was the only kind, and showed neither
// [embedder] nor [llm]).
func TestTemplateDocumentsEveryKey(t *testing.T) {
	for _, k := range corpusKeys {
		if !strings.Contains(Template, "#   "+k+" ") {
			t.Errorf("Template does not document corpus key %q", k)
		}
	}
	for _, k := range embedderKeys {
		if !strings.Contains(Template, "# "+k+" = ") {
			t.Errorf("Template does not show [embedder] key %q", k)
		}
	}
	for _, k := range llmKeys {
		if !strings.Contains(Template, "# "+k+" = ") && !strings.Contains(Template, "or "+k+" = ") {
			t.Errorf("Template does not show [llm] key %q", k)
		}
	}
	for _, s := range append([]string{"[embedder]", `"files"`, `"sessions"`}, llmPurposes...) {
		if !strings.Contains(Template, s) {
			t.Errorf("Template does not mention %s", s)
		}
	}
	if strings.Contains(Template, "only kind") {
		t.Errorf("Template still says files is the only kind")
	}
}
