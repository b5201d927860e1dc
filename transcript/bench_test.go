package transcript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// BenchmarkProjectColoured projects a session of 500 turns whose tool
// output is coloured (grep --color, test runners): every such message is
// cleaned, and since 648ddd9 redacted again after cleaning.
func BenchmarkProjectColoured(b *testing.B) {
	var msgs []cairn.Message
	for i := range 500 {
		out := strings.Repeat(fmt.Sprintf("src/file%d.go:%d:\x1b[01;31m\x1b[Kfunc\x1b[m\x1b[K handler() error {\n", i, i), 6)
		msgs = append(msgs,
			cairn.Message{Role: cairn.RoleUser, Text: fmt.Sprintf("find the handler in module %d and explain it", i)},
			cairn.Message{Role: cairn.RoleAssistant, Text: "Looking at the code now.", Tools: []cairn.ToolCall{
				{Name: "Bash", Input: `{"command":"grep --color=always -rn func src/"}`, Output: out}}})
	}
	s := &cairn.Session{Source: cairn.SourceClaudeCode, ID: "bench", Messages: msgs}
	b.ResetTimer()
	for b.Loop() {
		Project(s, Options{})
	}
}
