package port_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/port"
)

// TestImportRefusesDocumentPath: a documents row whose path is absolute or
// has "." or ".." segments is a broken row, as a memory id leaving the
// memories folder is: the import fails naming it, nothing written, and
// with Partial the row alone is left out. Before, `cairn import` took
// "../../../../tmp/x.md" and "/etc/abs/x.md" as document paths, and search
// printed cairn://sessions/../../../../tmp/x.md (ux F7). Paths a Unix file
// may have (a backslash, a colon, spaces) still import.
func TestImportRefusesDocumentPath(t *testing.T) {
	good := string(export(t, filled(t), false))
	const from = `{"t":"documents","v":["notes","a.md",`
	if !strings.Contains(good, from) {
		t.Fatalf("the export has no %q", from)
	}
	ctx := context.Background()
	for _, p := range []string{`../../../../tmp/x.md`, `/etc/abs/x.md`, `notes/../../x.md`, `a/./b.md`, `..`, `a//b.md`, `C:\\x.md`, `..\\..\\x.md`, `\\\\host\\x.md`, ``, `a\u0000b.md`} {
		t.Run(p, func(t *testing.T) {
			bad := []byte(strings.Replace(good, from, `{"t":"documents","v":["notes","`+p+`",`, 1))
			dst := openStore(t)
			_, err := importInto(t, dst, bad, nil)
			if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "documents.path") {
				t.Fatalf("import of path %q: %v, want an ErrInvalid naming documents.path", p, err)
			}
			if st, _ := dst.DocStates(ctx, "notes"); len(st) != 0 {
				t.Fatalf("a failed import left documents %v", st)
			}
			dst = openStore(t)
			res, err := importInto(t, dst, bad, &port.ImportOptions{Partial: true})
			if err != nil {
				t.Fatalf("partial import: %v", err)
			}
			if st, _ := dst.DocStates(ctx, "notes"); len(st) != 0 || res.Counts["documents"] != 0 || res.Counts["memories"] != 1 {
				t.Fatalf("partial import: documents %v, counts %v; want the row left out, the rest in", st, res.Counts)
			}
		})
	}
	// A session's path names its projection under the sessions folder.
	src := filled(t)
	if err := src.PutSession(ctx, cairn.SessionRecord{Corpus: "sessions", Path: "claude-code/s1.md", Transcript: "/home/u/.claude/projects/p/s1.jsonl",
		ProjectionHash: "h", ProjectorVersion: 1, Spans: "[]", Info: cairn.SessionInfo{SessionID: "s1", Source: "claude-code"}}); err != nil {
		t.Fatal(err)
	}
	withSession := string(export(t, src, false))
	const sfrom = `{"t":"sessions","v":["sessions","claude-code/s1.md",`
	if !strings.Contains(withSession, sfrom) {
		t.Fatalf("the export has no %q", sfrom)
	}
	if _, err := importInto(t, openStore(t), []byte(withSession), nil); err != nil {
		t.Fatalf("import of a session with an absolute transcript path: %v", err)
	}
	bad := strings.Replace(withSession, sfrom, `{"t":"sessions","v":["sessions","../../../../tmp/PWNED.md",`, 1)
	if _, err := importInto(t, openStore(t), []byte(bad), nil); !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "sessions.path") {
		t.Errorf("import of a session path with ..: %v, want an ErrInvalid naming sessions.path", err)
	}

	for _, p := range []string{`dir/a b.md`, `x\\y.md`, `a:b.md`, `.hidden/n.md`, `v1..2.md`} {
		dst := openStore(t)
		if _, err := importInto(t, dst, []byte(strings.Replace(good, from, `{"t":"documents","v":["notes","`+p+`",`, 1)), nil); err != nil {
			t.Errorf("import of path %q: %v", p, err)
			continue
		}
		st, _ := dst.DocStates(ctx, "notes")
		if len(st) != 1 {
			t.Errorf("import of path %q: documents %v", p, st)
		}
	}
}
