package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestLoadAccess: tokens load with their grants; a file that cannot grant
// anything safely is refused with the reason.
func TestLoadAccess(t *testing.T) {
	h := strings.Repeat("ab", 32)
	write := func(body string) string {
		p := filepath.Join(t.TempDir(), "access.toml")
		os.WriteFile(p, []byte(body), 0o600)
		return p
	}
	got, err := LoadAccess(write("[[token]]\nname = \"alice\"\nsha256 = \"" + strings.ToUpper(h) + "\"\nagents = [\"alice\", \"team\"]\nwrite = true\n"))
	if err != nil || len(got) != 1 || got[0].SHA256 != h || !got[0].Write || len(got[0].Agents) != 2 {
		t.Fatalf("LoadAccess = %+v, %v", got, err)
	}
	for _, c := range []struct{ body, want string }{
		{"", "no [[token]] tables"},
		{"[[token]]\nname = \"a\"\nsha256 = \"abc\"\nagents = [\"a\"]\n", "not 64 hex digits"},
		{"[[token]]\nsha256 = \"" + h + "\"\nagents = [\"a\"]\n", "name is missing"},
		{"[[token]]\nname = \"a\"\nsha256 = \"" + h + "\"\n", "agents is empty"},
		{"[[token]]\nname = \"a\"\nsha256 = \"" + h + "\"\nagents = [\"a\"]\n[[token]]\nname = \"b\"\nsha256 = \"" + h + "\"\nagents = [\"b\"]\n", `the same token as "a"`},
		{"[[token]]\nname = \"a\"\ntoken = \"plain\"\n", "token"},
	} {
		if _, err := LoadAccess(write(c.body)); err == nil || !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an invalid file error containing %q", c.body, err, c.want)
		}
	}
}
