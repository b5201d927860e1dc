package cairn_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// TestMemoryFingerprint: the fingerprint changes with every field that is
// stored, and only with them.
func TestMemoryFingerprint(t *testing.T) {
	base := cairn.Memory{ID: "m1", Kind: "fact", Title: "t", Summary: "s", Cues: []string{"c"}, Concepts: []string{"k"},
		Thread: "sessions/x.md", ToldAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Status: "active",
		Provenance: []cairn.Provenance{{Record: "r1", Corpus: "sessions", Path: "cairn://sessions/x.md", StartLine: 1, EndLine: 2}}}
	fp := cairn.MemoryFingerprint(base)
	if len(fp) != 64 || fp != cairn.MemoryFingerprint(base) {
		t.Fatalf("fingerprint %q is not a stable sha256 hex", fp)
	}
	for name, change := range map[string]func(*cairn.Memory){
		"title":      func(m *cairn.Memory) { m.Title = "t2" },
		"body":       func(m *cairn.Memory) { m.Body = "more" },
		"cue":        func(m *cairn.Memory) { m.Cues = append(slices.Clone(m.Cues), "d") },
		"event date": func(m *cairn.Memory) { m.EventDate = "2023-06" },
		"status":     func(m *cairn.Memory) { m.Status = "superseded" },
		"provenance": func(m *cairn.Memory) { m.Provenance = []cairn.Provenance{{Record: "r2"}} },
		"told at":    func(m *cairn.Memory) { m.ToldAt = m.ToldAt.Add(time.Second) },
	} {
		m := base
		change(&m)
		if cairn.MemoryFingerprint(m) == fp {
			t.Errorf("changing the %s leaves the fingerprint as it was", name)
		}
	}
}

// TestMemorySubtract: taking a sleep addition back out restores the memory
// it was added to, and leaves what it did not add.
func TestMemorySubtract(t *testing.T) {
	p1 := cairn.Provenance{Record: "r1", Path: "cairn://s/a.md", StartLine: 1, EndLine: 3}
	p2 := cairn.Provenance{Record: "r2", Path: "cairn://s/b.md", StartLine: 5, EndLine: 6}
	m := cairn.Memory{Body: "first.\n\nadded later.", Cues: []string{"a", "b"}, Concepts: []string{"x", "y"}, Provenance: []cairn.Provenance{p1, p2}}
	m.Subtract(&cairn.MemoryAddition{Body: "\n\nadded later.", Cues: []string{"b"}, Concepts: []string{"y", "z"}, Provenance: []cairn.Provenance{p2}})
	if m.Body != "first." || !slices.Equal(m.Cues, []string{"a"}) || !slices.Equal(m.Concepts, []string{"x"}) || !slices.Equal(m.Provenance, []cairn.Provenance{p1}) {
		t.Errorf("after Subtract: %+v", m)
	}
	before := cairn.MemoryFingerprint(m)
	m.Subtract(nil)
	if cairn.MemoryFingerprint(m) != before {
		t.Error("Subtract(nil) changed the memory")
	}
}

func TestSessionFilterIsZero(t *testing.T) {
	var nilFilter *cairn.SessionFilter
	if !nilFilter.IsZero() || !(&cairn.SessionFilter{}).IsZero() {
		t.Error("nil and empty filters must be zero")
	}
	if (&cairn.SessionFilter{Cwd: "/w"}).IsZero() || (&cairn.SessionFilter{ChatType: "direct"}).IsZero() {
		t.Error("a filter with a field set is not zero")
	}
}

func TestParseStatsSkip(t *testing.T) {
	var s cairn.ParseStats
	s.Skip("malformed_json")
	s.Skip("malformed_json")
	s.Skip(cairn.SkipChatType("direct"))
	if s.Skipped["malformed_json"] != 2 || s.Skipped["direct_chats_not_selected"] != 1 || len(s.Skipped) != 2 {
		t.Errorf("Skipped = %v", s.Skipped)
	}
}

func TestEmbedderIdentityKey(t *testing.T) {
	base := cairn.EmbedderIdentity{Provider: "onnx", Model: "use-lite", Dimension: 512, Normalized: true}
	seen := map[string]string{base.Key(): "base"}
	for name, id := range map[string]cairn.EmbedderIdentity{
		"provider":     {Provider: "openai", Model: "use-lite", Dimension: 512, Normalized: true},
		"dimension":    {Provider: "onnx", Model: "use-lite", Dimension: 384, Normalized: true},
		"normalized":   {Provider: "onnx", Model: "use-lite", Dimension: 512},
		"query prefix": {Provider: "onnx", Model: "use-lite", Dimension: 512, Normalized: true, QueryPrefix: "q: "},
		// A prefix holding the separator must not collide with a split elsewhere.
		"prefix with separator": {Provider: "onnx", Model: "use-lite", Dimension: 512, Normalized: true, QueryPrefix: "|", DocumentPrefix: ""},
		"document prefix":       {Provider: "onnx", Model: "use-lite", Dimension: 512, Normalized: true, DocumentPrefix: "|"},
		"tokenizer":             {Provider: "onnx", Model: "use-lite", Dimension: 512, Normalized: true, Tokenizer: "sp"},
	} {
		k := id.Key()
		if other, dup := seen[k]; dup {
			t.Errorf("%s and %s share the key %q", name, other, k)
		}
		seen[k] = name
	}
}
