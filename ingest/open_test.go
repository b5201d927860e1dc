package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// scanOne scans a corpus over root and returns the file at rel.
func scanOne(t *testing.T, root, rel string) File {
	t.Helper()
	files, _, err := Scan(context.Background(), cairn.Corpus{Name: "notes", Kind: cairn.KindFiles, Paths: []string{root}, Glob: cairn.DefaultGlob})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Rel == rel {
			return f
		}
	}
	t.Fatalf("scan of %s did not find %s (found %v)", root, rel, rels(files))
	return File{}
}

// readSoon runs Read with a deadline, so a read that blocks (a named pipe)
// fails the test instead of hanging it.
func readSoon(t *testing.T, f File) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		text, err := Read(f, 0)
		done <- result{text, err}
	}()
	select {
	case r := <-done:
		return r.text, r.err
	case <-ctx.Done():
		t.Fatalf("Read(%s) still blocked after 10 s", f.Rel)
		return "", nil
	}
}

// wantDrop checks that err is a *ReadError with Drop set and the reason.
func wantDrop(t *testing.T, text string, err error, reason string) {
	t.Helper()
	var re *ReadError
	if !errors.As(err, &re) {
		t.Fatalf("Read = %q, %v; want a *ReadError", text, err)
	}
	if !re.Drop || !strings.HasPrefix(re.Reason, reason) {
		t.Fatalf("ReadError = %+v; want Drop and a reason starting %q", re, reason)
	}
	if text != "" {
		t.Fatalf("Read returned text %q with the error", text)
	}
}

// A symlink checked by Scan and swapped before Read must not get a file
// from outside the root read, whatever the new target.
func TestReadSymlinkSwappedAfterScan(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	mkfiles(t, dir, "notes/inside.md", "outside/secret.md", "notes/sub/x.md")
	secret := filepath.Join(dir, "outside/secret.md")
	swaps := []struct {
		name, target string
	}{
		{"absolute outside", secret},
		{"relative outside", "../outside/secret.md"},
		{"system file", "/etc/passwd"},
		{"device", "/dev/zero"},
		{"relative device", strings.Repeat("../", 40) + "dev/zero"},
		{"through a symlink inside", "out-dir/secret.md"},
	}
	symlink(t, filepath.Join(dir, "outside"), filepath.Join(root, "out-dir"))
	for _, s := range swaps {
		t.Run(s.name, func(t *testing.T) {
			link := filepath.Join(root, "link.md")
			os.Remove(link)
			symlink(t, "inside.md", link)
			f := scanOne(t, root, "link.md")
			if err := os.Remove(link); err != nil {
				t.Fatal(err)
			}
			symlink(t, s.target, link)
			text, err := readSoon(t, f)
			wantDrop(t, text, err, ReasonSymlinkOutside)
		})
	}
}

// A directory of the scanned path swapped for a symlink to elsewhere.
func TestReadDirectorySwappedAfterScan(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	mkfiles(t, dir, "notes/sub/x.md", "outside/x.md")
	f := scanOne(t, root, "sub/x.md")
	if err := os.RemoveAll(filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(dir, "outside"), filepath.Join(root, "sub"))
	text, err := readSoon(t, f)
	wantDrop(t, text, err, ReasonSymlinkOutside)
}

// Symlinks that stay inside the root are read, absolute ones included, also
// when the root is itself reached through a symlink.
func TestReadSymlinksInside(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	mkfiles(t, dir, "real/a/target.md")
	via := filepath.Join(dir, "via")
	symlink(t, real, via)
	symlink(t, filepath.Join(real, "a/target.md"), filepath.Join(real, "abs-real.md"))
	symlink(t, filepath.Join(via, "a/target.md"), filepath.Join(real, "abs-via.md"))
	symlink(t, "a/target.md", filepath.Join(real, "rel.md"))
	symlink(t, filepath.Join(real, "abs-real.md"), filepath.Join(real, "chain.md"))
	symlink(t, "../real/a/target.md", filepath.Join(real, "climb.md")) // above the root and back
	for _, root := range []string{real, via} {
		for _, rel := range []string{"abs-real.md", "abs-via.md", "rel.md", "chain.md", "climb.md"} {
			text, err := readSoon(t, scanOne(t, root, rel))
			if err != nil || text != "# real/a/target.md\n" {
				t.Errorf("root %s: Read(%s) = %q, %v; want the target's text", root, rel, text, err)
			}
		}
	}
}

// A named pipe never blocks a read: one swapped in after the scan is
// refused as not a regular file, and Scan does not list one.
func TestReadNamedPipe(t *testing.T) {
	root := t.TempDir()
	mkfiles(t, root, "pipe.md", "ok.md")
	f := scanOne(t, root, "pipe.md")
	p := filepath.Join(root, "pipe.md")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	text, err := readSoon(t, f)
	wantDrop(t, text, err, ReasonNotRegular+": named pipe")

	// Through a symlink inside the root too.
	symlink(t, "pipe.md", filepath.Join(root, "to-pipe.md"))
	text, err = readSoon(t, File{Source: f.Source, Rel: "to-pipe.md", InRoot: "to-pipe.md", Abs: filepath.Join(root, "to-pipe.md")})
	wantDrop(t, text, err, ReasonNotRegular+": named pipe")

	files, failures, err := Scan(context.Background(), cairn.Corpus{Name: "n", Kind: cairn.KindFiles, Paths: []string{root}, Glob: cairn.DefaultGlob})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rels(files), ","); got != "ok.md" {
		t.Errorf("Scan = %s, want only ok.md (no pipe, no link to one)", got)
	}
	wantNotRegular(t, failures, map[string]string{"pipe.md": "named pipe", "to-pipe.md": "named pipe"})
}

// wantNotRegular checks that Scan listed exactly these paths as not regular
// files, of these kinds, and that each failure drops its document.
func wantNotRegular(t *testing.T, failures []cairn.FileFailure, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, f := range failures {
		got[f.Path] = f.Reason
		if !DropsDocument(f) {
			t.Errorf("failure %+v keeps its document", f)
		}
	}
	for p, kind := range want {
		if got[p] != ReasonNotRegular+": "+kind {
			t.Errorf("Scan failure for %s = %q, want %q", p, got[p], ReasonNotRegular+": "+kind)
		}
	}
	if len(got) != len(want) {
		t.Errorf("Scan failures = %v, want %v", got, want)
	}
}

// A symlink to a device is never listed by Scan.
func TestScanSkipsDeviceLinks(t *testing.T) {
	root := t.TempDir()
	mkfiles(t, root, "ok.md")
	symlink(t, "/dev/zero", filepath.Join(root, "zero.md"))
	symlink(t, "/dev/null", filepath.Join(root, "null.md"))
	files, failures, err := Scan(context.Background(), cairn.Corpus{Name: "n", Kind: cairn.KindFiles, Paths: []string{root}, Glob: cairn.DefaultGlob})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rels(files), ","); got != "ok.md" {
		t.Errorf("Scan = %s, want only ok.md", got)
	}
	wantNotRegular(t, failures, map[string]string{"zero.md": "character device", "null.md": "character device"})
}

// Hard links are accepted: a hard link in a corpus to a file stored
// elsewhere is read like any file of the corpus (see open.go for why).
func TestReadHardLinkAccepted(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	mkfiles(t, dir, "outside/elsewhere.md", "notes/")
	if err := os.Link(filepath.Join(dir, "outside/elsewhere.md"), filepath.Join(root, "hard.md")); err != nil {
		t.Skipf("hard links unavailable: %v", err)
	}
	text, err := readSoon(t, scanOne(t, root, "hard.md"))
	if err != nil || text != "# outside/elsewhere.md\n" {
		t.Fatalf("Read(hard.md) = %q, %v; want the linked file's text", text, err)
	}
}
