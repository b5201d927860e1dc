package port_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/port"
)

// twoDocs is filled plus b.md, a document of one chunk and its vector.
func twoDocs(t *testing.T) cairn.Storage {
	t.Helper()
	ctx := context.Background()
	s := filled(t)
	text := "penguins on rocks\n"
	d := cairn.Document{Corpus: "notes", Path: "b.md", Title: "b", Text: text, Hash: "h-b", Size: int64(len(text)), ModTime: 1_700_000_000_000_000_000,
		Chunks: []cairn.Chunk{{Seq: 0, Pos: 0, Len: len(text), StartLine: 1, EndLine: 1, Tokens: 3}}}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{d}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// damaged is an export of twoDocs with its second chunk row of h-a (seq
// 1) replaced by broken JSON, or deleted.
func damaged(t *testing.T, del bool) []byte {
	t.Helper()
	lines := strings.SplitAfter(string(export(t, twoDocs(t), false)), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, `{"t":"chunks","v":["h-a",1,`) {
			if del {
				return []byte(strings.Join(append(lines[:i:i], lines[i+1:]...), ""))
			}
			lines[i] = "{\"broken\": tru\n"
			return []byte(strings.Join(lines, ""))
		}
	}
	t.Fatal("no chunk h-a:1 in the export")
	return nil
}

// TestDamagedImportFails: a broken line, or a deleted one the end line's
// counts miss, fails the import with ErrInvalid naming it, and nothing is
// written (before, both imported with a hole: exit 0, the document kept
// one chunk of two).
func TestDamagedImportFails(t *testing.T) {
	for _, c := range []struct {
		name string
		del  bool
		want string
	}{
		{"broken line", false, "not JSON"},
		{"deleted line", true, "1 chunks"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dst := openStore(t)
			_, err := importInto(t, dst, damaged(t, c.del), nil)
			if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--partial") {
				t.Fatalf("import: %v, want an ErrInvalid naming %q and --partial", err, c.want)
			}
			if n, _ := dst.ChunkCount(context.Background()); n != 0 {
				t.Fatalf("a failed import left %d chunks", n)
			}
			if _, err := dst.DocumentText(context.Background(), "notes", "b.md"); err == nil {
				t.Fatal("a failed import left b.md")
			}
		})
	}
}

// TestPartialDropsHoledDocuments: with Partial the document that lost a
// chunk is left out whole (content, chunks, vectors, document), so the
// next sync indexes it again; the other is imported, and the counts are
// the rows written.
func TestPartialDropsHoledDocuments(t *testing.T) {
	for _, del := range []bool{false, true} {
		dst := openStore(t)
		res, err := importInto(t, dst, damaged(t, del), &port.ImportOptions{Partial: true})
		if err != nil {
			t.Fatalf("deleted %v: import: %v", del, err)
		}
		ctx := context.Background()
		if _, err := dst.DocumentText(ctx, "notes", "a.md"); err == nil {
			t.Fatalf("deleted %v: a.md, which lost a chunk, was imported", del)
		}
		if txt, err := dst.DocumentText(ctx, "notes", "b.md"); err != nil || !strings.HasPrefix(txt, "penguins") {
			t.Fatalf("deleted %v: b.md: %q %v", del, txt, err)
		}
		chunks, _ := dst.ChunkCount(ctx)
		vecs, _ := dst.CountVectors(ctx, "model-a")
		if chunks != 1 || vecs != 0 {
			t.Fatalf("deleted %v: %d chunks, %d vectors left, want 1 and 0", del, chunks, vecs)
		}
		if res.Counts["chunks"] != 1 || res.Counts["documents"] != 1 || res.Counts["content"] != 1 || res.Counts["vectors"] != 0 {
			t.Fatalf("deleted %v: counts %v, not the rows written", del, res.Counts)
		}
		if res.DroppedCount != 1 || len(res.Dropped) != 1 || res.Dropped[0] != "notes/a.md" {
			t.Fatalf("deleted %v: dropped %d %v, want notes/a.md", del, res.DroppedCount, res.Dropped)
		}
		if del && res.Missing["chunks"] != 1 {
			t.Fatalf("missing %v, want 1 chunk", res.Missing)
		}
	}
}

// TestLinesAfterEnd: two exports joined are refused, naming the line
// after the end line.
func TestLinesAfterEnd(t *testing.T) {
	data := export(t, filled(t), false)
	n := bytes.Count(data, []byte("\n"))
	dst := openStore(t)
	_, err := importInto(t, dst, append(append([]byte{}, data...), data...), nil)
	if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "line "+itoa(n+1)+" follows the end line") {
		t.Fatalf("import of two joined exports: %v", err)
	}
	if c, _ := dst.ChunkCount(context.Background()); c != 0 {
		t.Fatalf("a refused import left %d chunks", c)
	}
}

// TestCutGzip: a cut gzip file says what a cut plain file says.
func TestCutGzip(t *testing.T) {
	plain := export(t, filled(t), false)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	for name, data := range map[string][]byte{"plain": plain[:len(plain)-30], "gzip": gz.Bytes()[:gz.Len()-30]} {
		_, err := importInto(t, openStore(t), data, nil)
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "without its end line: it was cut short") {
			t.Errorf("%s cut: %v", name, err)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestPartialShortTails: a text whose last chunk rows are gone is left
// out whole, whether another content follows it (looked at when the next
// content begins) or it is the last content before the documents (looked
// at when the chunks end); the other text is imported.
func TestPartialShortTails(t *testing.T) {
	for _, c := range []struct {
		chunk        string // the deleted chunk row's start
		lost, kept   string
		keptChunks   int
		keptDocument string
	}{
		{`{"t":"chunks","v":["h-a",1,`, "notes/a.md", "b.md", 1, "penguins"},
		{`{"t":"chunks","v":["h-b",0,`, "notes/b.md", "a.md", 2, "walrus"},
	} {
		t.Run(c.lost, func(t *testing.T) {
			lines := strings.SplitAfter(string(export(t, twoDocs(t), false)), "\n")
			var kept []string
			for _, l := range lines {
				if !strings.HasPrefix(l, c.chunk) {
					kept = append(kept, l)
				}
			}
			if len(kept) != len(lines)-1 {
				t.Fatalf("%d lines start %s", len(lines)-len(kept), c.chunk)
			}
			dst := openStore(t)
			res, err := importInto(t, dst, []byte(strings.Join(kept, "")), &port.ImportOptions{Partial: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.DroppedCount != 1 || len(res.Dropped) != 1 || res.Dropped[0] != c.lost {
				t.Fatalf("dropped %d %v, want %s", res.DroppedCount, res.Dropped, c.lost)
			}
			ctx := context.Background()
			if txt, err := dst.DocumentText(ctx, "notes", c.kept); err != nil || !strings.HasPrefix(txt, c.keptDocument) {
				t.Fatalf("%s: %q %v", c.kept, txt, err)
			}
			if n, _ := dst.ChunkCount(ctx); n != c.keptChunks || res.Counts["chunks"] != int64(c.keptChunks) || res.Counts["content"] != 1 || res.Counts["documents"] != 1 {
				t.Fatalf("%d chunks stored, counts %v; want %d chunks, 1 content, 1 document", n, res.Counts, c.keptChunks)
			}
		})
	}
}
