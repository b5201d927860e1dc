package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/ingest"
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

// TestTemplateKindsAndWhisperers: the template shows the skills corpus, the
// whisperer tables with every key, and names every default exclude, and its
// examples, uncommented, load.
func TestTemplateKindsAndWhisperers(t *testing.T) {
	for _, s := range []string{`kind = "skills"`, "cairn corpus add skills", "[memorySearch]", "[memoryWhisperer]", "[skillWhisperer]", "[llm.fast]", "[llm.judge]"} {
		if !strings.Contains(Template, s) {
			t.Errorf("Template does not mention %s", s)
		}
	}
	for _, k := range append(append([]string{}, memoryWhispererKeys...), skillWhispererKeys...) {
		if !strings.Contains(Template, "# "+k+" = ") {
			t.Errorf("Template does not show whisperer key %q", k)
		}
	}
	for _, d := range ingest.DefaultExcludes {
		if !strings.Contains(Template, " "+d+",") && !strings.Contains(Template, " "+d+" ") {
			t.Errorf("Template's defaultExcludes does not name %s", d)
		}
	}
	// Uncomment the example tables (from the first "# [" header on, lines
	// that read as TOML) and load them.
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "notes"), 0o755)
	var b strings.Builder
	in := false
	for _, line := range strings.Split(Template, "\n") {
		body, ok := strings.CutPrefix(line, "# ")
		switch {
		case ok && strings.HasPrefix(body, "["):
			in = true
		case !ok || !strings.Contains(body, " = "):
			in = in && ok && strings.TrimSpace(body) != ""
			continue
		}
		if in {
			b.WriteString(body + "\n")
		}
	}
	text := strings.ReplaceAll(b.String(), `"~/notes"`, `"notes"`)
	text = strings.ReplaceAll(text, `"~/.claude/skills"`, `"notes"`)
	cfg, err := Load(writeConfig(t, dir, text), &LoadOptions{Home: dir})
	if err != nil {
		t.Fatalf("the template's examples do not load: %v\n%s", err, text)
	}
	if _, ok := cfg.SkillsCorpus(); !ok || cfg.MemoryWhisperer.MaxHints != 2 {
		t.Errorf("examples loaded as %+v", cfg)
	}
}
