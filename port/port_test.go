package port_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/port"
	"github.com/cairnmemory/cairn/sqlite"
)

const feature = "port-test-1"

var fixed = func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }

func openStore(t *testing.T) cairn.Storage {
	t.Helper()
	s, err := sqlite.Backend{}.Open(context.Background(), t.TempDir(), cairn.StorageOptions{FeatureVersion: feature})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// filled holds a document of two chunks (one text not valid UTF-8), a
// vector of each, a memory and a task.
func filled(t *testing.T) cairn.Storage {
	t.Helper()
	ctx := context.Background()
	s := openStore(t)
	text := "walrus on ice\nbad byte \xff here\n"
	d := cairn.Document{Corpus: "notes", Path: "a.md", Title: "a", Text: text, Hash: "h-a", Size: int64(len(text)), ModTime: 1_700_000_000_123_456_789,
		Chunks: []cairn.Chunk{{Seq: 0, Pos: 0, Len: 14, StartLine: 1, EndLine: 1, Tokens: 3}, {Seq: 1, Pos: 14, Len: len(text) - 14, StartLine: 2, EndLine: 2, Tokens: 3}}}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{d}}); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	_ = s.ChunkDocs(ctx, func(id int64, _, _ string) { ids = append(ids, id) })
	if err := s.PutVectors(ctx, "model-a", ids, [][]float32{{0.1, 1e-38, 3}, {-0, 2.5, -7.125}}); err != nil {
		t.Fatal(err)
	}
	m := cairn.Memory{ID: "m1", Kind: "fact", Title: "walrus", Summary: "walruses sleep on ice", Thread: "t.md", Status: cairn.StatusActive,
		Cues: []string{}, Concepts: []string{}, Provenance: []cairn.Provenance{}}
	if _, err := s.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main", Records: []string{"r1"}, Memories: []cairn.Memory{m}}); err != nil {
		t.Fatal(err)
	}
	tk := cairn.MaintenanceTask{ID: cairn.MaintenanceTaskID(cairn.TaskQualityReview, "notes", "a.md", "thin", ""), Type: cairn.TaskQualityReview,
		Corpus: "notes", Path: "a.md", Reason: "thin", CreatedAt: fixed()}
	if _, err := s.PutMaintenanceTask(ctx, tk); err != nil {
		t.Fatal(err)
	}
	return s
}

func export(t *testing.T, s cairn.Storage, gzip bool) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := port.Export(context.Background(), s.(cairn.Porter), &b, &port.ExportOptions{Agent: "a1", Gzip: gzip, Now: fixed}); err != nil {
		t.Fatalf("export: %v", err)
	}
	return b.Bytes()
}

func importInto(t *testing.T, s cairn.Storage, data []byte, o *port.ImportOptions) (*port.ImportResult, error) {
	t.Helper()
	return port.Import(context.Background(), s.(cairn.Porter), bytes.NewReader(data), o)
}

// TestFileRoundTrip: a file exported, imported and exported again is the
// same file, compressed or not; the header counts what the rows hold.
func TestFileRoundTrip(t *testing.T) {
	src := filled(t)
	for _, gz := range []bool{false, true} {
		data := export(t, src, gz)
		if gz != bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			t.Fatalf("gzip %v: the file starts %x", gz, data[:2])
		}
		dst := openStore(t)
		res, err := importInto(t, dst, data, nil)
		if err != nil {
			t.Fatalf("import: %v", err)
		}
		if res.Rejected != 0 || res.Counts["vectors"] != 2 || res.Counts["memories"] != 1 || res.Counts["maintenance_tasks"] != 1 {
			t.Fatalf("import result %+v", res)
		}
		if again := export(t, dst, gz); !bytes.Equal(again, data) {
			t.Fatalf("gzip %v: the export of the import differs:\n%s\n---\n%s", gz, data, again)
		}
	}
	plain := string(export(t, src, false))
	for _, want := range []string{`"format":"cairn-export","version":1,"agent":"a1"`, `"feature_version":"port-test-1"`,
		`{"identity":"model-a","dimension":3,"vectors":2}`, `{"base64":`, `{"end":true,"counts":{`} {
		if !strings.Contains(plain, want) {
			t.Errorf("the export lacks %s:\n%s", want, plain)
		}
	}
}

// TestBrokenLines: with Partial, a line that is not JSON, one with a
// value of the wrong type, and a vector of another dimension are counted
// with their line numbers; the rest is imported.
func TestBrokenLines(t *testing.T) {
	lines := strings.Split(string(export(t, filled(t), false)), "\n")
	var broken []int
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, `{"t":"maintenance_tasks"`):
			lines[i] = `{"t":"maintenance_tasks","v":[not json`
			broken = append(broken, i+1)
		case strings.HasPrefix(l, `{"t":"memories"`):
			lines[i] = strings.Replace(l, `"v":["m1"`, `"v":[17`, 1)
			broken = append(broken, i+1)
		}
	}
	lines = append(lines[:len(lines)-2], `{"t":"vectors","v":["model-a","h-a",0,"AAAAAA=="]}`, lines[len(lines)-2], "")
	broken = append(broken, len(lines)-2)
	dst := openStore(t)
	res, err := importInto(t, dst, []byte(strings.Join(lines, "\n")), &port.ImportOptions{Partial: true})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	var got []int
	for _, p := range res.Problems {
		got = append(got, p.Line)
	}
	if res.Rejected != 3 || !slices.Equal(got, broken) {
		t.Fatalf("rejected %d, problems %+v; want lines %v", res.Rejected, res.Problems, broken)
	}
	if txt, err := dst.DocumentText(context.Background(), "notes", "a.md"); err != nil || !strings.HasPrefix(txt, "walrus") {
		t.Fatalf("the good rows were not imported: %q %v", txt, err)
	}
	if n, _ := dst.CountVectors(context.Background(), "model-a"); n != 2 {
		t.Fatalf("%d vectors imported, want 2", n)
	}
}

// TestRefusals: a cut file, another format version, chunks of another
// feature version and vectors of another model are errors naming the
// field, and the target stays empty.
func TestRefusals(t *testing.T) {
	data := string(export(t, filled(t), false))
	cut := data[:strings.LastIndex(strings.TrimSuffix(data, "\n"), "\n")+1]
	for _, c := range []struct {
		name, data string
		o          *port.ImportOptions
		want       string
	}{
		{"cut short", cut, nil, "cut short"},
		{"format version", strings.Replace(data, `"version":1`, `"version":2`, 1), nil, "version:"},
		{"feature version", strings.Replace(data, `"feature_version":"port-test-1"`, `"feature_version":"chunk=0"`, 1), nil, "feature_version:"},
		{"model", data, &port.ImportOptions{Embedder: "onnx|model-b|3"}, "models:"},
		{"not an export", "hello\n", nil, "format:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dst := openStore(t)
			_, err := importInto(t, dst, []byte(c.data), c.o)
			if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import: %v, want an ErrInvalid naming %q", err, c.want)
			}
			if n, _ := dst.ChunkCount(context.Background()); n != 0 {
				t.Fatalf("a refused import left %d chunks", n)
			}
		})
	}
	dst := openStore(t)
	if _, err := importInto(t, dst, []byte(data), &port.ImportOptions{Embedder: "onnx|model-b|3", AnyModel: true}); err != nil {
		t.Fatalf("import with AnyModel: %v", err)
	}
}
