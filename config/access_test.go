package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
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
	scoped, err := LoadAccess(write("[[token]]\nname = \"docs\"\nsha256 = \"" + h + "\"\nagents = [\"team\"]\ncorpora = [\"notes\", \"memories\"]\nwrite = true\nwrite_corpora = [\"NOTES\"]\n"))
	if err != nil || len(scoped) != 1 || !slices.Equal(scoped[0].Corpora, []string{"notes", "memories"}) || !slices.Equal(scoped[0].WriteCorpora, []string{"NOTES"}) {
		t.Fatalf("LoadAccess with corpora = %+v, %v", scoped, err)
	}
	if got[0].Corpora != nil || got[0].WriteCorpora != nil {
		t.Errorf("a token without corpora = %+v, want nil corpora (every corpus)", got[0])
	}
	tok := "[[token]]\nname = \"a\"\nsha256 = \"" + h + "\"\nagents = [\"a\"]\n"
	for _, c := range []struct{ body, want string }{
		{"", "no [[token]] tables"},
		{"[[token]]\nname = \"a\"\nsha256 = \"abc\"\nagents = [\"a\"]\n", "not 64 hex digits"},
		{"[[token]]\nsha256 = \"" + h + "\"\nagents = [\"a\"]\n", "name is missing"},
		{"[[token]]\nname = \"a\"\nsha256 = \"" + h + "\"\n", "agents is empty"},
		{"[[token]]\nname = \"a\"\nsha256 = \"" + h + "\"\nagents = [\"a\"]\n[[token]]\nname = \"b\"\nsha256 = \"" + h + "\"\nagents = [\"b\"]\n", `the same token as "a"`},
		{"[[token]]\nname = \"a\"\ntoken = \"plain\"\n", "token"},
		// Per-corpus grants: each error names the field and what it allows.
		{tok + "corpora = []\n", `corpora is empty: name corpora`},
		{tok + "corpora = [\"all\"]\n", `corpora names "all": leave corpora out for every corpus`},
		{tok + "corpora = [\"notes\", \" \"]\n", "corpora holds a blank name"},
		{tok + "corpora = [\"notes\", \"Notes\"]\n", `corpora names "Notes" twice`},
		{tok + "corpora = [\"notes\"]\nwrite_corpora = [\"notes\"]\n", "write_corpora needs write = true"},
		{tok + "corpora = [\"notes\"]\nwrite = true\nwrite_corpora = [\"team-docs\"]\n", `write_corpora names "team-docs", which corpora does not: allowed notes`},
		{tok + "write = true\nwrite_corpora = [\"*\"]\n", `write_corpora names "*"`},
		{tok + "corpora = \"notes\"\n", "corpora"},
	} {
		if _, err := LoadAccess(write(c.body)); err == nil || !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an invalid file error containing %q", c.body, err, c.want)
		}
	}
}

// TestLoadAccessErrorLine: an error in a token names the line of its
// [[token]] header. Before, every such error said line 1.
func TestLoadAccessErrorLine(t *testing.T) {
	h := strings.Repeat("ab", 32)
	good := "# team tokens\n\n[[token]]\nname = \"a\"\nsha256 = \"" + h + "\"\nagents = [\"a\"]\n\n"
	for _, c := range []struct {
		body string
		line int
	}{
		{good + "[[token]]\nname = \"b\"\nsha256 = \"abc\"\nagents = [\"b\"]\n", 8},
		{good + "[[token]]\nname = \"b\"\nsha256 = \"" + strings.Repeat("cd", 32) + "\"\nagents = [\"b\"]\n\n[[token]]\nname = \"c\"\nsha256 = \"" + strings.Repeat("ef", 32) + "\"\nagents = [\"c\"]\ncorpora = []\n", 13},
		{"[[token]]\nname = \"a\"\nsha256 = \"" + h + "\"\n", 1},
	} {
		p := filepath.Join(t.TempDir(), "access.toml")
		os.WriteFile(p, []byte(c.body), 0o600)
		_, err := LoadAccess(p)
		var le *LoadError
		if !errors.As(err, &le) || le.Line != c.line {
			t.Errorf("%q: %v; want a *LoadError at line %d", c.body, err, c.line)
		}
	}
}
