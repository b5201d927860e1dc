package cairn

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckMemoryPath(t *testing.T) {
	for _, c := range []struct {
		id, kind string
		ok       bool
	}{
		{"m-6458aa0410e033f9", "fact", true},
		{"m1", MemoryObservation, true},
		{"m-a_b-C9", MemoryProfile, true},
		{strings.Repeat("a", MaxMemoryIDLen), MemoryEpisode, true},
		{strings.Repeat("a", MaxMemoryIDLen+1), "fact", false},
		{"", "fact", false},
		{"../../../../victim/keep", "fact", false},
		{"m-a/b", "fact", false},
		{"m-a.b", "fact", false},
		{"..", "fact", false},
		{"m-a\x00", "fact", false},
		{`m-a\b`, "fact", false},
		{"m-a", "../x", false},
		{"m-a", "", false},
		{"m-a", "Fact", false},
	} {
		err := CheckMemoryPath(c.id, c.kind)
		if (err == nil) != c.ok {
			t.Errorf("CheckMemoryPath(%q, %q) = %v, want ok %v", c.id, c.kind, err, c.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("CheckMemoryPath(%q, %q) = %v, not ErrInvalid", c.id, c.kind, err)
		}
	}
}
