package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// portAgent is a CLI home with corpus notes of two notes (a.md of three
// chunks), synced, and its plain export.
func portAgent(t *testing.T) (*cli, string, []string) {
	t.Helper()
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Walrus\n\nThe walrus sleeps on the ice.\n\n## Tusks\n\nWalrus tusks.\n\n## Food\n\nClams.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "b.md"), []byte("# Garden\n\nMore compost in the garden this spring.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	file := filepath.Join(t.TempDir(), "agent.jsonl")
	c.ok("export", file)
	data, _ := os.ReadFile(file)
	return c, file, strings.SplitAfter(string(data), "\n")
}

// secondHome is an empty data directory with the config of c.
func secondHome(t *testing.T, c *cli) *cli {
	home := t.TempDir()
	raw, _ := os.ReadFile(filepath.Join(c.home, "config.toml"))
	os.WriteFile(filepath.Join(home, "config.toml"), raw, 0o600)
	t.Setenv("CAIRN_HOME", home)
	return &cli{t: t, home: home}
}

// TestCLIImportDamaged: a chunk line broken or deleted fails the import
// (exit 2, nothing written; before, exit 0 with a.md kept with a hole
// that sync never filled); --partial imports b.md, leaves a.md out and
// says so, and the next sync indexes a.md again from its file.
func TestCLIImportDamaged(t *testing.T) {
	c, _, lines := portAgent(t)
	chunk := -1
	for i, l := range lines {
		if strings.HasPrefix(l, `{"t":"chunks"`) && strings.Contains(l, `",1,`) && chunk < 0 {
			chunk = i
		}
	}
	if chunk < 0 {
		t.Fatalf("no chunk of seq 1 in the export:\n%s", strings.Join(lines, ""))
	}
	dir := t.TempDir()
	broken := append([]string{}, lines...)
	broken[chunk] = "{\"broken\": tru\n"
	deleted := append(append([]string{}, lines[:chunk]...), lines[chunk+1:]...)
	for name, ls := range map[string][]string{"broken": broken, "deleted": deleted} {
		c2 := secondHome(t, c)
		file := filepath.Join(dir, name+".jsonl")
		os.WriteFile(file, []byte(strings.Join(ls, "")), 0o600)
		_, errs, code := c2.run("import", file)
		if code != 2 || !strings.Contains(errs, "nothing was imported") || !strings.Contains(errs, "--partial") {
			t.Fatalf("%s: import: exit %d, %q; want 2, nothing imported, naming --partial", name, code, errs)
		}
		if out, _, _ := c2.run("search", "--mode", "lexical", "compost"); strings.Contains(out, "b.md") {
			t.Fatalf("%s: a failed import left b.md searchable: %q", name, out)
		}
		out := c2.ok("import", "--replace", "--partial", file)
		if !strings.Contains(out, "left out 1 document that lost chunks (the next sync indexes them again from their files): notes/a.md") {
			t.Fatalf("%s: partial import: %q", name, out)
		}
		if _, _, code := c2.run("get", "cairn://notes/a.md"); code == 0 {
			t.Fatalf("%s: a.md imported with a hole", name)
		}
		c2.ok("sync")
		if got := c2.ok("get", "cairn://notes/a.md"); !strings.Contains(got, "Clams.") {
			t.Fatalf("%s: a.md after sync: %q", name, got)
		}
	}
}

// TestCLIImportFileShape: two exports joined, and a cut gzip file, are
// refused with exit 2 and one clear message (before: the second export
// was ignored; the cut gzip said "unexpected EOF", exit 1).
func TestCLIImportFileShape(t *testing.T) {
	c, file, lines := portAgent(t)
	data, _ := os.ReadFile(file)
	dir := t.TempDir()
	joined := filepath.Join(dir, "joined.jsonl")
	os.WriteFile(joined, append(append([]byte{}, data...), data...), 0o600)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(data)
	w.Close()
	cut := filepath.Join(dir, "cut.jsonl.gz")
	os.WriteFile(cut, gz.Bytes()[:gz.Len()/2], 0o600)
	c2 := secondHome(t, c)
	if _, errs, code := c2.run("import", joined); code != 2 || !strings.Contains(errs, "line "+strconv.Itoa(len(lines))+" follows the end line") {
		t.Fatalf("import of two joined exports: exit %d, %q", code, errs)
	}
	if _, errs, code := c2.run("import", cut); code != 2 || !strings.Contains(errs, "without its end line: it was cut short") {
		t.Fatalf("import of a cut gzip file: exit %d, %q", code, errs)
	}
}

// TestCLIImportUnconfiguredCorpus: importing into a config without the
// export's corpus warns, naming it and cairn corpus add; the next sync
// says it removed those documents (before: silent both times).
func TestCLIImportUnconfiguredCorpus(t *testing.T) {
	_, file, _ := portAgent(t)
	c2 := newCLI(t)
	c2.ok("corpus", "add", "other", t.TempDir())
	_, errs, code := c2.run("import", file)
	if code != 0 || !strings.Contains(errs, "corpus notes (2 documents) is not in the config") || !strings.Contains(errs, "cairn corpus add notes PATH") {
		t.Fatalf("import: exit %d, stderr %q", code, errs)
	}
	if out := c2.ok("sync"); !strings.Contains(out, "removed 2 documents of corpora no longer configured") {
		t.Fatalf("sync after the import: %q", out)
	}
}

// TestCLIExportUnknownAgent: export and migrate of an agent that has no
// storage fail naming it and where they looked, and make no directory
// for it (before: 0 rows, exit 0, agents/revbig/ created).
func TestCLIExportUnknownAgent(t *testing.T) {
	c, _, _ := portAgent(t)
	out := filepath.Join(t.TempDir(), "x.jsonl")
	for _, args := range [][]string{{"export", "--agent", "revbig", out}, {"migrate", "--agent", "revbig", "--to", t.TempDir()}} {
		_, errs, code := c.run(args...)
		if code == 0 || !strings.Contains(errs, "agent revbig in "+filepath.Join(c.home, "agents", "revbig")) || !strings.Contains(errs, "--agent") {
			t.Fatalf("cairn %v: exit %d, %q", args, code, errs)
		}
		if _, err := os.Stat(filepath.Join(c.home, "agents", "revbig")); err == nil {
			t.Fatalf("cairn %v made a directory for the unknown agent", args)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("export of an unknown agent wrote its file")
	}
}

// TestCLIExportUnknownAgentPostgres: export from PostgreSQL of an agent
// with no rows there fails naming it (before: 0 rows, exit 0).
func TestCLIExportUnknownAgentPostgres(t *testing.T) {
	url := os.Getenv("CAIRN_TEST_POSTGRES_URL")
	if url == "" {
		t.Skip("CAIRN_TEST_POSTGRES_URL is not set (eval \"$(scripts/pg-test-servers.sh start)\" starts a server)")
	}
	c := newCLI(t)
	out := filepath.Join(t.TempDir(), "x.jsonl")
	_, errs, code := c.run("export", "--store", url, "--agent", "nobody-f1-test", out)
	if code != 2 || !strings.Contains(errs, "agent nobody-f1-test in PostgreSQL") || !strings.Contains(errs, "holds nothing") {
		t.Fatalf("export of an agent without rows: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(c.home, "agents", "nobody-f1-test")); err == nil {
		t.Fatal("export from PostgreSQL made a directory for the agent")
	}
}

// TestCLIImportRefusedLeavesNothing: an import refused before any row
// (not an export, another format or feature version) or failed in the
// store (a broken line) exits 2 naming why and leaves the data directory
// as it found it: only the config, no agents folder (before, the store
// was opened first and a refusal left agents/default with an empty
// index). Into --store DIR, the directory it would have made is not made.
func TestCLIImportRefusedLeavesNothing(t *testing.T) {
	c, _, lines := portAgent(t)
	header := lines[0]
	feature := regexp.MustCompile(`"feature_version":"[^"]*"`)
	if !feature.MatchString(header) || !strings.Contains(header, `"version":1`) {
		t.Fatalf("header without feature_version or version 1: %s", header)
	}
	broken := append([]string{}, lines...)
	broken[2] = "{\"broken\": tru\n"
	dir := t.TempDir()
	for _, tt := range []struct{ name, data, want string }{
		{"not an export", "hello\n", "format"},
		{"format version", strings.Replace(strings.Join(lines, ""), `"version":1`, `"version":9`, 1), "version"},
		{"feature version", feature.ReplaceAllString(header, `"feature_version":"chunk=0"`) + strings.Join(lines[1:], ""), "feature_version"},
		{"broken line", strings.Join(broken, ""), "line 3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c2 := secondHome(t, c)
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".jsonl")
			os.WriteFile(file, []byte(tt.data), 0o600)
			_, errs, code := c2.run("import", file)
			if code != 2 || !strings.Contains(errs, tt.want) {
				t.Fatalf("import: exit %d, %q; want 2 naming %q", code, errs, tt.want)
			}
			entries, _ := os.ReadDir(c2.home)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if strings.Join(names, ",") != "config.toml" {
				t.Errorf("the refused import left %v in the data directory, want only config.toml", names)
			}
			into := filepath.Join(t.TempDir(), "new", "store")
			if _, errs, code := c2.run("import", "--store", into, file); code != 2 || !strings.Contains(errs, tt.want) {
				t.Fatalf("import --store: exit %d, %q; want 2 naming %q", code, errs, tt.want)
			}
			if _, err := os.Stat(filepath.Dir(into)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("import --store %s refused, yet made %s (%v)", into, filepath.Dir(into), err)
			}
		})
	}
}
