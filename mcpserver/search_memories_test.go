package mcpserver

import (
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/engine"
)

// TestSearchMemoriesBeforeFirst: memory_search naming the memories corpus
// before any memory exists (no sessions corpus, nothing remembered)
// answers with no hits and a notice saying why, not isError "unknown
// corpus: memories" (ux's F18 re-check; the engine answers it since
// 30c083d, the tool refused it first). A corpus that does not exist is
// still refused.
func TestSearchMemoriesBeforeFirst(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	cs := connect(t, f.agent)
	var out SearchOut
	callOK(t, cs, ToolSearch, map[string]any{"query": "museums", "corpora": []string{"memories"}}, &out)
	if len(out.Results) != 0 || !strings.Contains(out.Notice, engine.NoMemories) {
		t.Errorf("memory_search corpora [memories] before the first memory: %+v; want no hits and the notice %q", out, engine.NoMemories)
	}
	out = SearchOut{}
	callOK(t, cs, ToolSearch, map[string]any{"query": "busy_timeout", "corpora": []string{"notes", "Memories"}}, &out)
	if len(out.Results) == 0 || strings.Contains(out.Notice, engine.NoMemories) {
		t.Errorf("memory_search corpora [notes, Memories]: %+v; want the note's hit and no memories notice", out)
	}
	if text, isErr := call(t, cs, ToolSearch, map[string]any{"query": "x", "corpora": []string{"nope"}}); !isErr || !strings.Contains(text, "unknown corpus: nope") {
		t.Errorf("an unknown corpus: %v %s", isErr, text)
	}
}
