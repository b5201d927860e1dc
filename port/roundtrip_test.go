package port_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/port"
	"github.com/cairnmemory/cairn/postgres"
	"github.com/cairnmemory/cairn/search"
	"github.com/cairnmemory/cairn/sqlite"
	"github.com/cairnmemory/cairn/whisper/whispertest"
	"github.com/jackc/pgx/v5"
)

// The round trip of issue 20 item 5: an agent indexed on SQLite from the
// repository's docs and the shared transcript fixtures, embedded by a
// deterministic embedder, with memories written through Remember and
// curation tasks and annotations, exported, imported into PostgreSQL (and
// Citus), exported from there and imported into a new SQLite directory.
// Each storage holds the same rows per table; SQLite after the trip
// answers every query of a set (lexical and hybrid) with the same hits in
// the same order with scores within 1e-9, and every memory_get of a hit's
// range and of each whole document with the same text; PostgreSQL after
// the import answers as a PostgreSQL agent synced from the same files
// does (its lexical scores are its own; compared before the memories are
// added, which a synced agent lacks). No model is called: the embedder
// embeds queries only after the first sync.

var roundTripQueries = []string{"walrus", "storage backend", "postgres", "memory consolidation", "vector index",
	"sessions corpus", "migration", "hybrid search", "curation tasks", "flaky test", "deploy", "error"}

func roundTripCorpora(t *testing.T) []cairn.Corpus {
	shared := testshared.Dir(t, "fixtures/transcripts/codex")
	fx := filepath.Join(shared, "fixtures", "transcripts")
	// A copy of the repository's docs: the files must not change between
	// the syncs the test compares.
	notes := t.TempDir()
	for _, g := range []string{"../docs/*.md", "../README.md"} {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(notes, filepath.Base(f)), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	var sources []cairn.SourceSpec
	for _, id := range []string{cairn.SourceClaudeCode, cairn.SourceCodex, cairn.SourceGemini, cairn.SourceOpenAIChat, cairn.SourceAider} {
		sources = append(sources, cairn.SourceSpec{ID: id, Roots: []string{filepath.Join(fx, id)}})
	}
	return []cairn.Corpus{
		{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: "**/*.md"},
		{Name: "sessions", Kind: cairn.KindSessions, Sources: sources},
	}
}

func openEngine(t *testing.T, dir string, corpora []cairn.Corpus, b cairn.Backend) *engine.Engine {
	t.Helper()
	eng, err := local.Open(context.Background(), engine.Options{Dir: dir, Corpora: corpora, OneShot: true, Location: time.UTC,
		Embedder: &whispertest.WordEmbedder{}, Backend: b})
	if err != nil {
		t.Fatalf("open engine in %s: %v", dir, err)
	}
	return eng
}

var storageOptions = cairn.StorageOptions{FeatureVersion: engine.FeatureVersion, OneShot: true, Ident: search.IdentText}

// answers runs the query set in both modes and reads every hit's range
// and every document whole, as memory_search and memory_get would.
func answers(t *testing.T, eng *engine.Engine, docs []string, scores bool) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	get := func(path string, from, lines int) {
		r, err := eng.Get(ctx, path, &cairn.GetOptions{From: from, Lines: lines})
		if err != nil {
			t.Fatalf("get %s:%d+%d: %v", path, from, lines, err)
		}
		out = append(out, fmt.Sprintf("get %s:%d+%d %s %q", path, from, lines, r.Status, r.Text))
	}
	for _, mode := range []string{cairn.ModeLexical, cairn.ModeHybrid} {
		for _, q := range roundTripQueries {
			hits, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: mode, Limit: 10})
			if err != nil {
				t.Fatalf("search %s %q: %v", mode, q, err)
			}
			for i, h := range hits {
				line := fmt.Sprintf("%s %q #%d %s:%d-%d", mode, q, i, h.Path, h.StartLine, h.EndLine)
				if scores {
					line += fmt.Sprintf(" %.9f", h.Score)
				}
				out = append(out, line)
				get(h.Path, h.StartLine, h.EndLine-h.StartLine+1)
			}
		}
	}
	for _, d := range docs {
		get(d, 1, cairn.MaxGetLines)
	}
	return out
}

func storageOf(t *testing.T, b cairn.Backend, dir string) cairn.Storage {
	t.Helper()
	s, err := b.Open(context.Background(), dir, storageOptions)
	if err != nil {
		t.Fatalf("open storage: %v", err)
	}
	return s
}

func exportFrom(t *testing.T, b cairn.Backend, dir string) ([]byte, *port.ExportResult) {
	t.Helper()
	s := storageOf(t, b, dir)
	defer s.Close()
	var buf bytes.Buffer
	res, err := port.Export(context.Background(), s.(cairn.Porter), &buf, &port.ExportOptions{Agent: "roundtrip", Gzip: true})
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	return buf.Bytes(), res
}

func importStore(t *testing.T, b cairn.Backend, dir string, data []byte) *port.ImportResult {
	t.Helper()
	s := storageOf(t, b, dir)
	defer s.Close()
	res, err := port.Import(context.Background(), s.(cairn.Porter), bytes.NewReader(data), &port.ImportOptions{Replace: true,
		Embedder: (&whispertest.WordEmbedder{}).Identity().Key()})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if res.Rejected != 0 {
		t.Fatalf("import rejected %d rows: %+v", res.Rejected, res.Problems)
	}
	return res
}

// documentsOf lists the cairn:// paths of an export's documents.
func documentsOf(t *testing.T, data []byte) []string {
	t.Helper()
	rd, err := port.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		r, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Table == "documents" {
			out = append(out, fmt.Sprintf("cairn://%s/%s", r.Values[0], r.Values[1]))
		}
	}
}

// syncSource syncs the corpora into SQLite.
func syncSource(t *testing.T, dir string, corpora []cairn.Corpus) {
	t.Helper()
	eng := openEngine(t, dir, corpora, nil)
	defer eng.Close(context.Background())
	if _, err := eng.Sync(context.Background(), nil); err != nil {
		t.Fatalf("sync: %v", err)
	}
}

// addMemories remembers memories (indexed into the memories corpus and
// embedded), and files and resolves a curation task with an annotation.
func addMemories(t *testing.T, dir string, corpora []cairn.Corpus) {
	t.Helper()
	ctx := context.Background()
	eng := openEngine(t, dir, corpora, nil)
	for _, r := range []cairn.RememberRequest{
		{Kind: "decision", Title: "Postgres for the team server", Summary: "The team server keeps its store in PostgreSQL with pgvector.", Agent: "cli"},
		{Kind: "pitfall", Title: "Flaky test on busy machines", Summary: "Latency assertions fail under load; compare variants side by side.", Agent: "cli"},
		{Kind: cairn.MemoryObservation, About: "Dana", Summary: "Dana moved the deploy to Thursdays.", EventDate: "2026-11", Agent: "cli"},
	} {
		if _, err := eng.Remember(ctx, &r); err != nil {
			t.Fatalf("remember %q: %v", r.Summary, err)
		}
	}
	eng.Close(ctx)
	s := storageOf(t, sqlite.Backend{}, dir)
	defer s.Close()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tk := cairn.MaintenanceTask{ID: cairn.MaintenanceTaskID(cairn.TaskAmbiguousEventTime, "notes", "postgres.md", "two dates", ""),
		Type: cairn.TaskAmbiguousEventTime, Corpus: "notes", Path: "postgres.md", Reason: "two dates", Detail: "{}", CreatedAt: at}
	if _, err := s.PutMaintenanceTask(ctx, tk); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateMaintenanceTask(ctx, cairn.TaskUpdate{ID: tk.ID, Status: cairn.TaskResolved, Note: "the later",
		Annotation: &cairn.TemporalAnnotation{Corpus: "notes", Path: "postgres.md", EventTime: at, Basis: cairn.BasisAgentVerified}, At: at}); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTripPostgres(t *testing.T) { roundTrip(t, "CAIRN_TEST_POSTGRES_URL") }
func TestRoundTripCitus(t *testing.T)    { roundTrip(t, "CAIRN_TEST_CITUS_URL") }

func roundTrip(t *testing.T, env string) {
	url := os.Getenv(env)
	if url == "" {
		testshared.SkipOrFail(t, "POSTGRES", env+" is not set (eval \"$(scripts/pg-test-servers.sh start)\" starts a server)")
	}
	ctx := context.Background()
	corpora := roundTripCorpora(t)
	schema := "cairn_port_roundtrip"
	dropSchema(t, url, schema)
	src := t.TempDir()
	syncSource(t, src, corpora)

	// The files alone: PostgreSQL after the import answers as an agent
	// synced there from the same files.
	dataA, _ := exportFrom(t, sqlite.Backend{}, src)
	docs := documentsOf(t, dataA)
	pg := postgres.Backend{URL: url, Agent: "port-roundtrip", Schema: schema}
	pgDir := t.TempDir()
	importStore(t, pg, pgDir, dataA)
	synced := postgres.Backend{URL: url, Agent: "port-roundtrip-synced", Schema: schema}
	syncedDir := t.TempDir()
	e2 := openEngine(t, syncedDir, corpora, synced)
	if _, err := e2.Sync(ctx, nil); err != nil {
		t.Fatalf("sync into PostgreSQL: %v", err)
	}
	wantPG := tiesAnyOrder(answers(t, e2, docs, true))
	e2.Close(ctx)
	e3 := openEngine(t, pgDir, corpora, pg)
	compare(t, "PostgreSQL imported vs synced", tiesAnyOrder(answers(t, e3, docs, true)), wantPG)
	e3.Close(ctx)

	// With memories and curation state: SQLite → PostgreSQL → SQLite.
	addMemories(t, src, corpora)
	data1, ex1 := exportFrom(t, sqlite.Backend{}, src)
	if ex1.Counts["vectors"] == 0 || ex1.Counts["sessions"] == 0 || ex1.Counts["memories"] != 3 || ex1.Counts["temporal_annotations"] != 1 {
		t.Fatalf("the source holds too little to test with: %v", ex1.Counts)
	}
	docs = documentsOf(t, data1)
	eng := openEngine(t, src, corpora, nil)
	want := answers(t, eng, docs, true)
	eng.Close(ctx)
	importStore(t, pg, pgDir, data1)
	data2, ex2 := exportFrom(t, pg, pgDir)
	if fmt.Sprint(ex2.Counts) != fmt.Sprint(ex1.Counts) {
		t.Fatalf("rows per table after SQLite → PostgreSQL:\n%v\nbefore:\n%v", ex2.Counts, ex1.Counts)
	}
	back := t.TempDir()
	importStore(t, sqlite.Backend{}, back, data2)
	_, ex3 := exportFrom(t, sqlite.Backend{}, back)
	if fmt.Sprint(ex3.Counts) != fmt.Sprint(ex1.Counts) {
		t.Fatalf("rows per table after SQLite → PostgreSQL → SQLite:\n%v\nbefore:\n%v", ex3.Counts, ex1.Counts)
	}
	e4 := openEngine(t, back, corpora, nil)
	got := answers(t, e4, docs, true)
	e4.Close(ctx)
	compare(t, "SQLite after the round trip vs before", got, want)
	t.Logf("%s: %d rows (%v); %d answers compared after the round trip, %d on PostgreSQL", env, ex1.Rows, ex1.Counts, len(want), len(wantPG))
}

// tiesAnyOrder drops the ranks of hits and sorts the answers: two syncs
// of the same files may give equal-scored chunks (the same text in two
// transcripts) ids in another order, and ties go by id, so a synced agent
// is compared with an imported one as the hits, scores and texts each
// query has. The exact order is the SQLite round trip's to check: an
// import keeps the ids' order.
func tiesAnyOrder(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if j := strings.Index(l, " #"); j >= 0 && !strings.HasPrefix(l, "get ") {
			if k := strings.IndexByte(l[j+2:], ' '); k >= 0 {
				l = l[:j] + l[j+2+k:]
			}
		}
		out[i] = l
	}
	slices.Sort(out)
	return out
}

// compare reports the first differences of two answer lists, scores
// compared within 1e-9.
func compare(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d answers, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := 0; i < min(len(got), len(want)) && bad < 10; i++ {
		if got[i] != want[i] && !closeScores(got[i], want[i]) {
			t.Errorf("%s: answer %d:\n got %s\nwant %s", what, i, got[i], want[i])
			bad++
		}
	}
}

// closeScores reports whether two search lines differ only in a score
// within 1e-9.
func closeScores(a, b string) bool {
	i, j := strings.LastIndexByte(a, ' '), strings.LastIndexByte(b, ' ')
	if i < 0 || j < 0 || a[:i] != b[:j] || strings.HasPrefix(a, "get ") {
		return false
	}
	var x, y float64
	if _, err := fmt.Sscan(a[i+1:], &x); err != nil {
		return false
	}
	if _, err := fmt.Sscan(b[j+1:], &y); err != nil {
		return false
	}
	return math.Abs(x-y) <= 1e-9
}

func dropSchema(t *testing.T, url, schema string) {
	t.Helper()
	drop := func() {
		ctx := context.Background()
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatalf("connect to %s: %v", url, err)
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `DROP SCHEMA IF EXISTS "`+schema+`" CASCADE`); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
	}
	drop()
	t.Cleanup(drop)
}
