package cairn

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestMemoryToldAtJSON: a memory whose told time is unknown leaves
// told_at out of its JSON (it printed 0001-01-01T00:00:00Z); a known one
// is kept, and a memory read back from JSON without it has the zero time.
func TestMemoryToldAtJSON(t *testing.T) {
	b, err := json.Marshal(Memory{ID: "m1", Kind: "fact", CreatedAt: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "told_at") || strings.Contains(string(b), "0001-01-01") {
		t.Errorf("a memory without a told time = %s; want no told_at", b)
	}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	b, _ = json.Marshal(Memory{ID: "m1", ToldAt: at})
	if !strings.Contains(string(b), `"told_at":"2026-03-01T09:00:00Z"`) {
		t.Errorf("a memory told at %v = %s", at, b)
	}
	var m Memory
	if err := json.Unmarshal([]byte(`{"id": "m1"}`), &m); err != nil || !m.ToldAt.IsZero() {
		t.Errorf("read back without told_at: %v, %v", m.ToldAt, err)
	}
}
