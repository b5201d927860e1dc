package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestDoctorCLI(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "db.md"), []byte("# Database\n\nSet busy_timeout to 5000 ms.\n"), 0o644)
	c.ok("init")
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	out := c.ok("doctor")
	for _, check := range []string{"index", "fulltext", "strays", "vectors", "temp_files", "lock", "memories"} {
		if !strings.Contains(out, check) {
			t.Errorf("doctor output lacks the %s check:\n%s", check, out)
		}
	}
	raw := c.ok("doctor", "--json")
	wantKeys(t, "doctor", json.RawMessage(raw), "checks", "dir", "problems", "repair")
	var rep struct{ Checks []json.RawMessage }
	json.Unmarshal([]byte(raw), &rep)
	wantKeys(t, "doctor check", rep.Checks[0], "detail", "name", "status")

	// A damaged index: search fails naming the file and the remedy, doctor
	// exits 1, doctor --repair rebuilds it.
	db := filepath.Join(c.home, "agents", "default", "index.db")
	os.WriteFile(db, bytes.Repeat([]byte("garbage!"), 1000), 0o600)
	_, errs, code := c.run("search", "busy")
	if code != 1 || !strings.Contains(errs, db) || !strings.Contains(errs, "cairn doctor --repair") {
		t.Errorf("search a damaged index: exit %d, stderr %q", code, errs)
	}
	out, errs, code = c.run("doctor")
	if code != 1 || !strings.Contains(out, "problem") || !strings.Contains(errs, "cairn doctor --repair") {
		t.Errorf("doctor on a damaged index: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	out = c.ok("doctor", "--repair")
	if !strings.Contains(out, "repaired") || !strings.Contains(out, ".damaged-") {
		t.Errorf("doctor --repair output:\n%s", out)
	}
	if out := c.ok("search", "busy"); !strings.Contains(out, "db.md") {
		t.Errorf("search after repair: %s", out)
	}
}

// TestDoctorGarbledText: a byte changed inside a stored text in index.db
// itself (the file's structure sound) is found by doctor, which names the
// document; doctor --repair drops that text and indexes the file again,
// and search shows the file's text. A new user's finding: integrity_check,
// sync, doctor and doctor --repair all passed while search showed the
// garbled text (a sync compares the file's hash with the document's, both
// sound).
func TestDoctorGarbledText(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "db.md"), []byte("# Database\n\nSet busy_timeout to 5000 ms on every connection.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "other.md"), []byte("# Garden\n\nThe tomatoes need compost.\n"), 0o644)
	c.ok("init")
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	db := filepath.Join(c.home, "agents", "default", "index.db")
	raw, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	needle := []byte("5000 ms on every connection")
	at := bytes.Index(raw, needle)
	if at < 0 || bytes.Count(raw, needle) != 1 {
		t.Fatalf("the note's text is not in index.db once (at %d); the test needs the synced file checkpointed", at)
	}
	copy(raw[at:], "9000")
	if err := os.WriteFile(db, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := c.ok("search", "busy_timeout"); !strings.Contains(out, "9000 ms") {
		t.Fatalf("search before the repair shows %q; the test expects the garbled text", out)
	}
	c.ok("sync") // sound as far as a sync can tell: the file's hash is the document's

	out, errs, code := c.run("doctor")
	if code != 1 || !regexpLine(out, `^problem\s+text\s+1 document \(stored text no longer matches its hash\): cairn://notes/db\.md$`) ||
		!strings.Contains(out, "fix: drop their stored text and index them again") || strings.Contains(out, "other.md") {
		t.Errorf("doctor on a garbled text: exit %d, stdout:\n%s\nstderr %q", code, out, errs)
	}
	raw2, _, code := c.run("doctor", "--json")
	if code != 1 {
		t.Errorf("doctor --json on a garbled text: exit %d", code)
	}
	var rep struct {
		Problems int
		Checks   []struct{ Name, Status, Detail string }
	}
	if err := json.Unmarshal([]byte(raw2), &rep); err != nil {
		t.Fatalf("doctor --json: %v: %s", err, raw2)
	}
	found := false
	for _, ch := range rep.Checks {
		if ch.Name == "text" {
			found = ch.Status == "problem" && strings.Contains(ch.Detail, "cairn://notes/db.md")
		}
	}
	if !found || rep.Problems != 1 {
		t.Errorf("doctor --json: %s", raw2)
	}

	out = c.ok("doctor", "--repair")
	if !regexpLine(out, `^repaired\s+text\s+1 document`) || !strings.Contains(out, "indexes them again from their files") {
		t.Errorf("doctor --repair:\n%s", out)
	}
	if out := c.ok("search", "busy_timeout"); !strings.Contains(out, "5000 ms on every connection") || strings.Contains(out, "9000") {
		t.Errorf("search after the repair: %s", out)
	}
	out = c.ok("doctor")
	if !regexpLine(out, `^ok\s+text\s+2 stored texts \(\d+ B\) match their hashes$`) {
		t.Errorf("doctor after the repair:\n%s", out)
	}
}

// regexpLine reports whether a line of out matches the pattern.
func regexpLine(out, pattern string) bool {
	re := regexp.MustCompile(pattern)
	for _, l := range strings.Split(out, "\n") {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}

// TestDoctorConfigProblems: doctor reports an embedder that cannot be
// loaded or cannot embed, and a corpus root that is gone, each with its
// fix, and exits 1 with a hint that --repair cannot change the config;
// search names the embedder as the reason instead of "run cairn sync". A
// new user's try: doctor printed seven ok lines and exited 0, and search
// said to run a sync that could not help.
func TestDoctorConfigProblems(t *testing.T) {
	c := newCLI(t)
	notes, gone := t.TempDir(), filepath.Join(t.TempDir(), "gone")
	os.WriteFile(filepath.Join(notes, "n.md"), []byte("# Note\n\nwalrus facts\n"), 0o644)
	os.Mkdir(gone, 0o755)
	c.ok("init", "--no-discover")
	c.ok("corpus", "add", "notes", notes)
	c.ok("corpus", "add", "gone", gone)
	c.ok("sync")
	os.Remove(gone)
	cfg := filepath.Join(c.home, "config.toml")
	orig, _ := os.ReadFile(cfg)
	missing := filepath.Join(t.TempDir(), "no-model")
	os.WriteFile(cfg, append(append([]byte(nil), orig...), []byte("\n[embedder]\nprovider = \"onnx\"\nmodel = \""+missing+"\"\n")...), 0o600)

	out, errs, code := c.run("doctor")
	if code != 1 || !regexpLine(out, `^problem\s+embedder\s+onnx .*no-model cannot be loaded: .*no such file`) ||
		!regexpLine(out, `^problem\s+corpora\s+gone: `+regexp.QuoteMeta(gone)+` does not exist$`) ||
		!strings.Contains(out, "fix: fix [embedder] in "+cfg) || !strings.Contains(out, "cairn corpus remove NAME") ||
		!strings.Contains(errs, "--repair does not change the configuration") {
		t.Errorf("doctor with a missing model and a gone root: exit %d, stdout:\n%s\nstderr %q", code, out, errs)
	}
	raw, _, _ := c.run("doctor", "--json")
	var rep struct {
		Problems int
		Checks   []struct{ Name, Status string }
	}
	if err := json.Unmarshal([]byte(raw), &rep); err != nil {
		t.Fatalf("doctor --json: %v: %s", err, raw)
	}
	got := map[string]string{}
	for _, ch := range rep.Checks {
		got[ch.Name] = ch.Status
	}
	if rep.Problems != 2 || got["embedder"] != "problem" || got["corpora"] != "problem" || got["index"] != "ok" {
		t.Errorf("doctor --json: %s", raw)
	}
	_, errs, _ = c.run("search", "walrus")
	if !strings.Contains(errs, "fix [embedder] in "+cfg+" first") || strings.Contains(errs, "run cairn sync") {
		t.Errorf("search with a missing model: stderr %q", errs)
	}

	// An endpoint that refuses: it builds, and embedding fails.
	os.WriteFile(cfg, append(append([]byte(nil), orig...), []byte("\n[embedder]\nprovider = \"openai\"\nmodel = \"nomic-embed-text\"\nbase_url = \"http://127.0.0.1:1/v1\"\n")...), 0o600)
	out, _, code = c.run("doctor")
	if code != 1 || !regexpLine(out, `^problem\s+embedder\s+openai nomic-embed-text loads but cannot embed: `) {
		t.Errorf("doctor with a refusing endpoint: exit %d:\n%s", code, out)
	}

	os.WriteFile(cfg, orig, 0o600)
	c.ok("corpus", "remove", "gone")
	out = c.ok("doctor")
	if !regexpLine(out, `^ok\s+embedder\s+none configured`) || !regexpLine(out, `^ok\s+corpora\s+1 corpus, 1 root, all readable$`) {
		t.Errorf("doctor after the fixes:\n%s", out)
	}

	// An embedder that works: doctor says how many of the index's vectors
	// are its own.
	srv := wordGroupEmbedder(t, "fake-embed", map[string]int{"walrus": 0}, []float64{0, 1, 0}, nil)
	os.WriteFile(cfg, append(append([]byte(nil), orig...), []byte("\n[embedder]\nprovider = \"openai\"\nmodel = \"fake-embed\"\nbase_url = \""+srv.URL+"/v1\"\n")...), 0o600)
	c.ok("corpus", "remove", "gone")
	c.ok("sync")
	out = c.ok("doctor")
	if !regexpLine(out, `^ok\s+embedder\s+openai fake-embed embeds \(3 dimensions\); the index holds 1 of its vectors$`) {
		t.Errorf("doctor with a working embedder:\n%s", out)
	}
}

// TestDoctorDataFolders: a data folder writable by group or others is a
// doctor problem, made 0700 by doctor --repair; cairn init makes one
// 0700 too, saying so (ux F15: init, sync and doctor said nothing about a
// 0777 agent folder, in which anyone could replace index.db).
func TestDoctorDataFolders(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "n.md"), []byte("# Note\n\nwalrus\n"), 0o644)
	c.ok("init", "--no-discover")
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	agent := filepath.Join(c.home, "agents", "default")
	out := c.ok("doctor")
	if !regexpLine(out, `^ok\s+folders\s+the data folders are this user's and private$`) {
		t.Errorf("doctor of private folders:\n%s", out)
	}
	os.Chmod(agent, 0o777)
	out, errs, code := c.run("doctor")
	if code != 1 || !regexpLine(out, `^problem\s+folders\s+writable by group or others, who could replace index.db or memory.db: `+regexp.QuoteMeta(agent)+` \(mode 0777\)$`) ||
		!strings.Contains(errs, "run cairn doctor --repair") {
		t.Errorf("doctor of a 0777 agent folder: exit %d:\n%s\nstderr %q", code, out, errs)
	}
	if fi, _ := os.Stat(agent); fi.Mode().Perm() != 0o777 {
		t.Errorf("doctor without --repair changed the folder to %04o", fi.Mode().Perm())
	}
	out = c.ok("doctor", "--repair")
	if fi, _ := os.Stat(agent); !regexpLine(out, `^repaired\s+folders\s+`) || fi.Mode().Perm() != 0o700 {
		t.Errorf("doctor --repair: folder %04o:\n%s", fi.Mode().Perm(), out)
	}

	os.Chmod(agent, 0o775)
	_, errs, code = c.run("init", "--no-discover")
	if fi, _ := os.Stat(agent); code != 0 || fi.Mode().Perm() != 0o700 || !strings.Contains(errs, "is now 0700") {
		t.Errorf("init over a 0775 agent folder: exit %d, mode %04o, stderr %q", code, fi.Mode().Perm(), errs)
	}
}

// TestOpenAgentPrivateFolders: the agents that serve, mcp and ui open
// (openAgent) get their data folders checked as one-shot commands' do: a
// 0777 agent folder is made 0700 with a note, one of another user would
// be refused (env.privateDirs). Before, only env.openLoaded checked.
func TestOpenAgentPrivateFolders(t *testing.T) {
	c := newCLI(t)
	c.ok("init", "--no-discover")
	agent := filepath.Join(c.home, "agents", "default")
	os.MkdirAll(agent, 0o700)
	os.Chmod(agent, 0o777)
	var out, errb bytes.Buffer
	e := newEnv(&out, &errb)
	cfg, err := e.loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	eng, err := e.openAgent(context.Background(), cfg, "default", nil)
	if err != nil {
		t.Fatal(err)
	}
	eng.Close(context.Background())
	if fi, _ := os.Stat(agent); fi.Mode().Perm() != 0o700 || !strings.Contains(errb.String(), "is now 0700") {
		t.Errorf("openAgent over a 0777 folder: mode %04o, stderr %q", fi.Mode().Perm(), errb.String())
	}
}

// TestDoctorForeignFolder: a data folder owned by another user is a
// folders problem that --repair leaves alone (it is not ours to change),
// and cairn doctor's summary then does not send the user to --repair.
// Seen from foldersCheck as another uid, so it runs as any user.
func TestDoctorForeignFolder(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "agents", "default")
	os.MkdirAll(dir, 0o777)
	os.Chmod(dir, 0o777)
	var errb bytes.Buffer
	e := newEnv(&bytes.Buffer{}, &errb)
	for _, repair := range []bool{false, true} {
		c := e.foldersCheck(os.Getuid()+1, data, dir, repair)
		if c.Status != "problem" || !strings.HasPrefix(c.Detail, folderForeign) || !strings.Contains(c.Detail, data+" (uid ") || !strings.Contains(c.Fix, "set CAIRN_HOME") {
			t.Errorf("foldersCheck(repair %v) of another uid's folder = %+v", repair, c)
		}
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o777 || errb.Len() != 0 {
		t.Errorf("another user's folder was changed: %04o, stderr %q", fi.Mode().Perm(), errb.String())
	}
}
