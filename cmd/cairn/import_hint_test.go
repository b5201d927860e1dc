package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCorpusAddHintWorks: the command import's warning suggests for a
// corpus the config lacks is one corpus add takes, with its placeholders
// filled in, and it configures a corpus of the kind the name has (a new
// user's try: for the sessions corpus it suggested "cairn corpus add
// sessions PATH", not the sessions corpus).
func TestCorpusAddHintWorks(t *testing.T) {
	for name, kind := range map[string]string{"notes": "files", "sessions": "sessions", "skills": "skills"} {
		t.Run(name, func(t *testing.T) {
			c := newCLI(t)
			hint := corpusAddHint(name)
			args := strings.Fields(strings.TrimPrefix(hint, "cairn "))
			for i, a := range args {
				switch a {
				case "PATH":
					args[i] = t.TempDir()
				case "SOURCE":
					args[i] = "claude-code"
				}
			}
			if _, errs, code := c.run(args...); code != 0 {
				t.Fatalf("%s: exit %d, %s", hint, code, errs)
			}
			var list struct{ Corpora []corpusJSON }
			if err := json.Unmarshal([]byte(c.ok("corpus", "list", "--json")), &list); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, cj := range list.Corpora {
				found = found || cj.Name == name
				if cj.Name == name && cj.Kind != kind {
					t.Fatalf("%s configured %s as %q, want %q", hint, name, cj.Kind, kind)
				}
			}
			if !found {
				t.Fatalf("%s configured no corpus %s", hint, name)
			}
		})
	}
}
