package sqlite

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMoveAsideKeepsEarlierCopies: two repairs in one second move the
// damaged index to two names; the first copy, which doctor said to keep,
// is not overwritten (a new user's try: the second doctor --repair
// replaced it).
func TestMoveAsideKeepsEarlierCopies(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, IndexFile)
	var got []string
	for _, text := range []string{"first", "second", "third"} {
		if err := os.WriteFile(index, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(index+"-wal", []byte(text+" wal"), 0o600); err != nil {
			t.Fatal(err)
		}
		dst, err := Backend{}.MoveAside(dir)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, dst)
	}
	for i, text := range []string{"first", "second", "third"} {
		data, err := os.ReadFile(got[i])
		if err != nil || string(data) != text {
			t.Errorf("copy %d at %s holds %q (%v), want %q", i, got[i], data, err, text)
		}
		if wal, _ := os.ReadFile(got[i] + "-wal"); string(wal) != text+" wal" {
			t.Errorf("copy %d's wal holds %q", i, wal)
		}
	}
	if _, err := os.Stat(index); !os.IsNotExist(err) {
		t.Errorf("index.db still there after the moves: %v", err)
	}
}
