package cairn_test

import (
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestMatchLeaves: a match's leaves come in the order they are written,
// the order their weights and a store's per-leaf factors follow; groups
// are no leaves.
func TestMatchLeaves(t *testing.T) {
	m := cairn.AllOf(
		cairn.AnyOf(cairn.Term("parseconfig").Weighted(3), cairn.Phrase("parse", "config").Weighted(4)),
		cairn.Prefix("migr"),
		cairn.AnyOf(cairn.AllOf(cairn.Term("a"), cairn.Term("b").Weighted(0.5))),
	)
	want := []cairn.Match{
		cairn.Term("parseconfig").Weighted(3), cairn.Phrase("parse", "config").Weighted(4),
		cairn.Prefix("migr"), cairn.Term("a"), cairn.Term("b").Weighted(0.5),
	}
	if diff := cmp.Diff(want, m.Leaves()); diff != "" {
		t.Errorf("leaves (-want +got):\n%s", diff)
	}
	for _, l := range want {
		if !l.Leaf() {
			t.Errorf("%s is not a leaf", l)
		}
	}
	if m.Leaf() || cairn.AnyOf().Leaf() {
		t.Error("a group counts as a leaf")
	}
}

// TestMatchString: the rendering names every leaf and group, leaves
// weights out (a count cache keys on it), and quotes words so that no
// word reads as an operator.
func TestMatchString(t *testing.T) {
	tests := []struct {
		m    cairn.Match
		want string
	}{
		{cairn.Term("walrus"), `"walrus"`},
		{cairn.Term("walrus").Weighted(7), `"walrus"`},
		{cairn.Phrase("of", "the", "server"), `"of the server"`},
		{cairn.Prefix("write", "ahead"), `"write ahead"*`},
		{cairn.AllOf(cairn.Term("a"), cairn.AnyOf(cairn.Term("b"), cairn.Term("c"))), `("a" AND ("b" OR "c"))`},
		{cairn.Term(`x" OR "y`), `"x\" OR \"y"`},
		{cairn.AnyOf(), `()`},
	}
	for _, tt := range tests {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
	}
}
