package testshared

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	root := t.TempDir()
	shared := filepath.Join(root, "shared")
	if err := os.MkdirAll(filepath.Join(shared, "models", "use-lite"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shared, Tokenizer), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "repo", "pkg", "sub")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(deep)
	t.Setenv("CAIRN_SHARED", "")
	if d, ok := Find(Tokenizer); !ok || d != shared {
		t.Errorf("Find from a nested folder = %q, %t; want %q", d, ok, shared)
	}
	// A folder higher up (this machine's /tmp/shared, say) may hold every
	// probe; the nearest one, which lacks the library, must not be taken.
	if d, ok := Find(Tokenizer, Library); ok && d == shared {
		t.Error("Find must need every probe")
	}
	t.Setenv("CAIRN_SHARED", shared)
	if d, ok := Find(Tokenizer); !ok || d != shared {
		t.Errorf("Find with CAIRN_SHARED = %q, %t", d, ok)
	}
	t.Setenv("CAIRN_REQUIRE_SHARED", "")
	t.Setenv("CAIRN_REQUIRE_E2E", "1")
	if !Required("E2E") || Required("SHARED") {
		t.Error("Required reads CAIRN_REQUIRE_<name>=1 only")
	}
}
