package schema

import (
	"os"
	"testing"
)

// BenchmarkWindowAnswer is the check of one consolidation answer (8.9 KB:
// 3 episodes, 9 items, 5 observations) against window.schema.json: a valid
// answer, the same answer with importance a word in all 9 items (the
// walk that names each violation), and compiling the schema, which the
// clients do once per schema text.
func BenchmarkWindowAnswer(b *testing.B) {
	data, err := os.ReadFile("../../consolidate/prompts/window.schema.json")
	if err != nil {
		b.Fatal(err)
	}
	s := MustCompile(data)
	valid := edit(b, func(map[string]any) {})
	invalid := edit(b, func(a map[string]any) {
		for i := range a["items"].([]any) {
			itemAt(a, i)["importance"] = "high"
		}
	})
	b.Run("valid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Answer(valid, s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("invalid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Answer(invalid, s); err == nil {
				b.Fatal("valid")
			}
		}
	})
	b.Run("compile", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			MustCompile(data)
		}
	})
}
