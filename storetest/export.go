package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestExport checks the portable form (cairn.Porter): what one storage
// exports, a fresh one imports and exports again row for row, and reads
// the same through the ordinary interfaces; an import into a storage that
// holds anything is refused unless it replaces; a row the store cannot
// take is rejected with its line and the rest imported; an import that
// fails leaves the target as it was. A backend that is no Porter skips.
func TestExport(t *testing.T, f Factory) {
	src := open(t, f, t.TempDir())
	if _, ok := src.(*closeOnce).Storage.(cairn.Porter); !ok {
		t.Skip("the backend's storage is no cairn.Porter")
	}
	fillAll(t, src)
	rows := exportAll(t, src)
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.Table]++
	}
	for _, tb := range cairn.PortTables {
		if counts[tb.Name] == 0 {
			t.Errorf("export wrote no %s row; fillAll writes some of every table", tb.Name)
		}
	}
	info, err := porter(src).PortInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range info.Counts {
		if name != cairn.PortContent && int64(counts[name]) != n {
			t.Errorf("PortInfo counts %d %s, the export wrote %d", n, name, counts[name])
		}
	}

	t.Run("RoundTrip", func(t *testing.T) {
		dst := open(t, f, t.TempDir())
		importRows(t, dst, rows, false, 0)
		if d := cmp.Diff(rows, exportAll(t, dst)); d != "" {
			t.Fatalf("export of the imported storage differs (-source +imported):\n%s", d)
		}
		if d := cmp.Diff(portable(t, src), portable(t, dst)); d != "" {
			t.Fatalf("imported storage reads differently (-source +imported):\n%s", d)
		}
	})
	t.Run("RefusedUnlessReplace", func(t *testing.T) {
		dst := open(t, f, t.TempDir())
		apply(t, dst, "notes", []cairn.Document{doc("notes", "other.md", "other text\n")})
		err := porter(dst).Import(context.Background(), false, &rowSource{rows: rows})
		if !errors.Is(err, cairn.ErrInvalid) {
			t.Fatalf("import into a storage holding a document: %v, want an error matching ErrInvalid", err)
		}
		if _, ok := text(t, dst, "notes", "other.md"); !ok {
			t.Fatal("a refused import removed the document that was there")
		}
		importRows(t, dst, rows, true, 0)
		if _, ok := text(t, dst, "notes", "other.md"); ok {
			t.Fatal("an import with replace kept a document the export does not hold")
		}
		if d := cmp.Diff(rows, exportAll(t, dst)); d != "" {
			t.Fatalf("replaced storage differs from the export (-want +got):\n%s", d)
		}
	})
	t.Run("BadRowsRejected", func(t *testing.T) {
		bad := append([]cairn.PortRow{}, rows...)
		bad = append(bad, cairn.PortRow{Table: cairn.PortVectors, Line: 9001,
			Values: []any{"id-1", hashOf("no such text"), int64(0), []float32{1, 2}}})
		dst := open(t, f, t.TempDir())
		importRows(t, dst, bad, false, 1)
		if d := cmp.Diff(rows, exportAll(t, dst)); d != "" {
			t.Fatalf("the good rows beside a rejected one (-want +got):\n%s", d)
		}
	})
	t.Run("DoneDropsAndFails", func(t *testing.T) {
		// Done's drop list deletes those contents with their chunks,
		// vectors and documents in the import's transaction; the rest
		// stays. Done's error rolls everything back.
		dst := open(t, f, t.TempDir())
		c := doc("notes", "c.md", "durable walrus c\n")
		src := &rowSource{rows: rows, drop: []string{c.Hash}}
		if err := porter(dst).Import(context.Background(), false, src); err != nil {
			t.Fatalf("import: %v", err)
		}
		if _, ok := text(t, dst, "notes", "c.md"); ok {
			t.Fatal("a document of dropped content was kept")
		}
		if _, ok := text(t, dst, "notes", "a.md"); !ok {
			t.Fatal("a document of content not dropped went too")
		}
		for _, r := range exportAll(t, dst) {
			if (r.Table == cairn.PortChunks || r.Table == cairn.PortContent) && r.Values[0] == c.Hash ||
				r.Table == cairn.PortVectors && r.Values[1] == c.Hash {
				t.Fatalf("a %s row of dropped content was kept: %v", r.Table, r.Values)
			}
		}
		for _, c := range lexical(t, dst, q(term("durable"))).Candidates {
			if c.Path == "c.md" {
				t.Fatalf("dropped content's chunks are still searchable: %+v", c)
			}
		}
		dst = open(t, f, t.TempDir())
		boom := errors.New("lines were missing")
		if err := porter(dst).Import(context.Background(), false, &rowSource{rows: rows, doneErr: boom}); !errors.Is(err, boom) {
			t.Fatalf("import whose Done fails: %v, want %v", err, boom)
		}
		if _, ok := text(t, dst, "notes", "a.md"); ok {
			t.Fatal("an import whose Done failed was committed")
		}
	})
	t.Run("FailedImportLeavesTarget", func(t *testing.T) {
		dst := open(t, f, t.TempDir())
		apply(t, dst, "notes", []cairn.Document{doc("notes", "kept.md", "kept text\n")})
		boom := errors.New("source broke")
		err := porter(dst).Import(context.Background(), true, &rowSource{rows: rows, failAt: len(rows) - 2, err: boom})
		if !errors.Is(err, boom) {
			t.Fatalf("import from a failing source: %v, want %v", err, boom)
		}
		if txt, ok := text(t, dst, "notes", "kept.md"); !ok || txt != "kept text\n" {
			t.Fatalf("after a failed import with replace the target lost its document: %q %v", txt, ok)
		}
		if ms := listMemories(t, dst, cairn.MemoryFilter{Status: "all"}); len(ms) != 0 {
			t.Fatalf("a failed import left %d memories behind", len(ms))
		}
	})
}

func porter(s cairn.Storage) cairn.Porter { return s.(*closeOnce).Storage.(cairn.Porter) }

// fillAll writes a row of every portable table: fill's documents,
// vectors, sessions, memories, links and failures, and the curation
// state, neighbour lists, meta keys and a clustering run. A memory told
// at no known time keeps its zero time.
func fillAll(t *testing.T, s cairn.Storage) {
	t.Helper()
	ctx := context.Background()
	fill(t, s)
	untold := memory("m-untold", "observation", "r9")
	untold.ToldAt = time.Time{}
	commit(t, s, cairn.WindowCommit{Pass: "observations", Records: []string{"r9"}, Hashes: []string{"h9"}, Memories: []cairn.Memory{untold}})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// An exact float that JSON or a narrower type would round.
	ids := chunkIDs(t, s, "notes", "c.md")
	must(s.PutVectors(ctx, "id-1", ids, [][]float32{{math.Float32frombits(0x3f8ccccd), -math.SmallestNonzeroFloat32}}))
	must(s.SetRedactState(ctx, "notes", "redact-v2"))
	must(s.SetProjectionKey(ctx, "sessions", "projector=4"))
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	tk := putTask(t, s, task(cairn.TaskAmbiguousEventTime, "c.md", "two dates", "", `{"dates":["2024","2025"]}`, at))
	_, err := s.UpdateMaintenanceTask(ctx, cairn.TaskUpdate{ID: tk.ID, Status: cairn.TaskResolved, Note: "the later one",
		Annotation: &cairn.TemporalAnnotation{Corpus: "notes", Path: "c.md", EventTime: at, Basis: cairn.BasisAgentVerified, Evidence: "said so"}, At: at})
	must(err)
	must(s.PutCachedJudgment(ctx, "quality-v1", "key-1", `{"score":0.5}`))
	must(s.PutNeighbours(ctx, "id-1", []cairn.NeighbourList{{ID: "m-kept", Hash: "hk", Near: []cairn.MemoryNeighbour{{ID: "m-untold", Similarity: 0.25}}}}))
	a := doc("notes", "a.md", "walrus one\nwalrus two\n")
	c := doc("notes", "c.md", "durable walrus c\n")
	putRun(t, s, sampleRun("run-1", a, c, at))
}

func exportAll(t *testing.T, s cairn.Storage) []cairn.PortRow {
	t.Helper()
	var rows []cairn.PortRow
	if err := porter(s).Export(context.Background(), func(r cairn.PortRow) error {
		if err := r.Check(); err != nil {
			return fmt.Errorf("exported row: %w", err)
		}
		rows = append(rows, r)
		return nil
	}); err != nil {
		t.Fatalf("export: %v", err)
	}
	return rows
}

func importRows(t *testing.T, s cairn.Storage, rows []cairn.PortRow, replace bool, wantRejected int) {
	t.Helper()
	src := &rowSource{rows: rows}
	if err := porter(s).Import(context.Background(), replace, src); err != nil {
		t.Fatalf("import: %v", err)
	}
	if len(src.rejected) != wantRejected {
		t.Fatalf("import rejected %v, want %d rows", src.rejected, wantRejected)
	}
}

// rowSource feeds rows, failing with err at row failAt when err is set.
type rowSource struct {
	rows     []cairn.PortRow
	i        int
	failAt   int
	err      error
	rejected []string
	drop     []string // what Done answers
	doneErr  error
}

func (r *rowSource) Next() (cairn.PortRow, error) {
	if r.err != nil && r.i == r.failAt {
		return cairn.PortRow{}, r.err
	}
	if r.i == len(r.rows) {
		return cairn.PortRow{}, io.EOF
	}
	r.i++
	return r.rows[r.i-1], nil
}

func (r *rowSource) Done() ([]string, error) { return r.drop, r.doneErr }

func (r *rowSource) Reject(row cairn.PortRow, reason string) {
	r.rejected = append(r.rejected, fmt.Sprintf("line %d %s: %s", row.Line, row.Table, reason))
}

// portableState is what a storage answers through its interfaces, chunk
// ids left out (an import gives its own).
type portableState struct {
	State       state
	Hits        []string
	Vectors     [][]float32
	Tasks       []cairn.MaintenanceTask
	Annotations []cairn.TemporalAnnotation
	Judgment    string
	Redact      string
	Projection  string
	Neighbours  map[string]cairn.NeighbourList
	Run         cairn.AnalysisRun
	Untold      cairn.Memory
}

func portable(t *testing.T, s cairn.Storage) portableState {
	t.Helper()
	ctx := context.Background()
	st := portableState{State: readState(t, s)}
	for _, c := range st.State.Hits {
		st.Hits = append(st.Hits, fmt.Sprintf("%s/%s:%d %q %.12f", c.Corpus, c.Path, c.Seq, c.Text, c.Score))
	}
	st.State.Hits, st.State.Span, st.State.VecVersion = nil, cairn.IndexSpan{Rows: st.State.Span.Rows}, 0
	for _, id := range slices.Sorted(maps.Keys(st.State.Vectors)) {
		st.Vectors = append(st.Vectors, st.State.Vectors[id])
	}
	st.State.Vectors = nil
	var err error
	must := func(e error) {
		t.Helper()
		if e != nil {
			t.Fatal(e)
		}
	}
	st.Tasks, err = s.MaintenanceTasks(ctx, cairn.TaskFilter{})
	must(err)
	st.Annotations, err = s.TemporalAnnotations(ctx)
	must(err)
	st.Judgment, _, err = s.CachedJudgment(ctx, "quality-v1", "key-1")
	must(err)
	st.Redact, err = s.RedactState(ctx, "notes")
	must(err)
	st.Projection, err = s.ProjectionKey(ctx, "sessions")
	must(err)
	st.Neighbours, err = s.Neighbours(ctx, "id-1", []string{"m-kept"})
	must(err)
	st.Run, err = s.LatestAnalysis(ctx)
	must(err)
	st.Untold, err = s.Memory(ctx, "m-untold")
	must(err)
	if !st.Untold.ToldAt.IsZero() {
		t.Fatalf("a memory told at no known time reads told at %v", st.Untold.ToldAt)
	}
	return st
}
