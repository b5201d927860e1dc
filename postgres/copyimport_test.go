package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// testSource feeds rows to an import and keeps what it rejected.
type testSource struct {
	rows     []cairn.PortRow
	i        int
	rejected []string
}

func (s *testSource) Next() (cairn.PortRow, error) {
	if s.i == len(s.rows) {
		return cairn.PortRow{}, io.EOF
	}
	s.i++
	return s.rows[s.i-1], nil
}

func (s *testSource) Reject(r cairn.PortRow, reason string) {
	s.rejected = append(s.rejected, fmt.Sprintf("%s line %d: %s", r.Table, r.Line, reason))
}

func (s *testSource) Done() ([]string, error) { return nil, nil }

func exportRows(t *testing.T, s *Store) []cairn.PortRow {
	t.Helper()
	var rows []cairn.PortRow
	if err := s.Export(context.Background(), func(r cairn.PortRow) error {
		rows = append(rows, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return rows
}

// storedIndex is what an agent's lexical index holds, keyed so two
// agents compare: per chunk (content hash and sequence) its tsvector and
// tf map, and its postings with their counts and positions.
func storedIndex(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), `SELECT c.hash || ':' || c.seq || ' ' || coalesce(c.tsv::text, '-') || ' ' || coalesce(c.tf::text, '-')
		|| ' [' || coalesce((SELECT string_agg(p.lexeme || '=' || p.tf || '@' || p.pos::text, ' ' ORDER BY p.lexeme COLLATE "C")
			FROM postings p WHERE p.agent = c.agent AND p.chunk = c.id), '') || ']'
		FROM chunks c WHERE c.agent = $1 ORDER BY c.hash, c.seq`, s.agent)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

// TestImportStoresAsSync: an imported chunk is stored as a sync stores
// it: the same tsvector, the same tf map (every occurrence counted, as
// the sync counts in Go; a tsvector keeps at most 256 positions of a
// lexeme, so a tf map read back from it undercounts a word repeated more
// often, which the INSERT import did) and the same postings, vacuumed
// after the commit; on both servers.
func TestImportStoresAsSync(t *testing.T) {
	for _, env := range []string{"CAIRN_TEST_POSTGRES_URL", "CAIRN_TEST_CITUS_URL"} {
		t.Run(env, func(t *testing.T) {
			b := testBackend(t, env, "cairn_import_as_sync")
			ctx := context.Background()
			src, dst := openTest(t, b, "synced"), openTest(t, b, "imported")
			docs := postingsDocs(30)
			docs = append(docs, testDoc("many.md", "Walrus "+strings.Repeat("tusk ", 300)+"walrus\n"))
			noise := testDoc("noise.md", "0000 1111 2222\nplain words here\n")
			noise.Chunks = []cairn.Chunk{{Seq: 0, Pos: 0, Len: 15, Noise: true}, {Seq: 1, Pos: 15, Len: 17, StartLine: 2, EndLine: 2}}
			docs = append(docs, noise)
			if err := src.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
				t.Fatal(err)
			}
			vacuums := func() int {
				var n int
				if err := src.pool.QueryRow(ctx, `SELECT coalesce((SELECT vacuum_count FROM pg_stat_user_tables
					WHERE schemaname = $1 AND relname = 'postings'), 0)`, b.Schema).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			before := vacuums()
			in := &testSource{rows: exportRows(t, src)}
			if err := dst.Import(ctx, false, in); err != nil {
				t.Fatal(err)
			}
			// The import vacuumed the postings (index-only reads); on
			// Citus the shards are vacuumed on the workers.
			if env == "CAIRN_TEST_POSTGRES_URL" && vacuums() <= before {
				t.Errorf("postings after the import: %d vacuums, %d before; want the import's own", vacuums(), before)
			}
			if len(in.rejected) > 0 {
				t.Fatalf("rejected: %v", in.rejected)
			}
			want, got := storedIndex(t, src), storedIndex(t, dst)
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("imported index differs from the synced (-sync +import):\n%s", d)
			}
			if !slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, `"tusk": 300`) }) {
				t.Fatalf("the repeated word's count is not 300: %v", got)
			}
			if d := cmp.Diff(searchAll(t, src), searchAll(t, dst)); d != "" {
				t.Fatalf("searches differ (-sync +import):\n%s", d)
			}
		})
	}
}

// TestImportDuplicateRows: rows whose key an earlier row of the same file
// holds (COPY would refuse the whole statement for one) are rejected one
// by one and the rest imported: a second document of a path, a second
// vector of a chunk, a vector of no chunk, a second link, a chunk whose
// seq does not fit the table's int4 (insertChunks sent it cut to an int32)
// and a vector of it; a repeated content
// and chunk keep the first, as before. On both servers.
func TestImportDuplicateRows(t *testing.T) {
	for _, env := range []string{"CAIRN_TEST_POSTGRES_URL", "CAIRN_TEST_CITUS_URL"} {
		t.Run(env, func(t *testing.T) {
			b := testBackend(t, env, "cairn_import_dups")
			ctx := context.Background()
			dst := openTest(t, b, "dups")
			text := []byte("walrus colony\nsecond line\n")
			content := func(line int) cairn.PortRow {
				return cairn.PortRow{Table: cairn.PortContent, Line: line, Values: []any{"h1", "t", text, int64(5)}}
			}
			chunk := func(line int, seq int64) cairn.PortRow {
				return cairn.PortRow{Table: cairn.PortChunks, Line: line, Values: []any{"h1", seq, seq * 14, int64(13 - seq), seq + 1, seq + 1, int64(2), int64(0)}}
			}
			document := func(line int, path string) cairn.PortRow {
				return cairn.PortRow{Table: "documents", Line: line, Values: []any{"notes", path, "h1", int64(len(text)), int64(7), int64(1), int64(2)}}
			}
			vector := func(line int, hash string, seq int64) cairn.PortRow {
				return cairn.PortRow{Table: cairn.PortVectors, Line: line, Values: []any{"id-2", hash, seq, []float32{1, 0}}}
			}
			link := func(line int) cairn.PortRow {
				return cairn.PortRow{Table: "memory_links", Line: line, Values: []any{"m1", "m2", "related", "r", "", int64(3)}}
			}
			in := &testSource{rows: []cairn.PortRow{
				content(1), chunk(2, 0), chunk(3, 1), content(4), chunk(5, 0),
				document(6, "a.md"), document(7, "b.md"), document(8, "a.md"),
				vector(9, "h1", 0), vector(10, "h1", 1), vector(11, "h1", 0), vector(12, "h9", 0),
				link(13), link(14),
				{Table: cairn.PortChunks, Line: 15, Values: []any{"h1", int64(1 << 32), int64(0), int64(13), int64(1), int64(1), int64(2), int64(0)}},
				vector(16, "h1", 1<<32),
			}}
			if err := dst.Import(ctx, false, in); err != nil {
				t.Fatal(err)
			}
			want := []string{
				"documents line 8: a row with this key was imported already",
				"vectors line 11: no chunk h1:0 for the vector",
				"vectors line 12: no chunk h9:0 for the vector",
				"memory_links line 14: a row with this key was imported already",
				"chunks line 15: chunk seq 4294967296 outside the table's range (-2147483648 to 2147483647)",
				"vectors line 16: no chunk h1:4294967296 for the vector",
			}
			if d := cmp.Diff(want, in.rejected); d != "" {
				t.Fatalf("rejected (-want +got):\n%s", d)
			}
			info, err := dst.PortInfo(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for table, n := range map[string]int64{"content": 1, "chunks": 2, "documents": 2, "vectors": 2, "memory_links": 1} {
				if info.Counts[table] != n {
					t.Errorf("%s: %d rows, want %d", table, info.Counts[table], n)
				}
			}
			res, err := dst.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("walrus"), Limit: 5})
			if err != nil || len(res.Candidates) != 2 {
				t.Fatalf("walrus after import: %+v, %v; want the chunk under both paths", res, err)
			}
		})
	}
}

// cancelSource is testSource that cancels the import's context after
// after rows and goes on giving rows, as a Ctrl-C does mid-file.
type cancelSource struct {
	testSource
	after  int
	cancel context.CancelCauseFunc
}

func (s *cancelSource) Next() (cairn.PortRow, error) {
	if s.i == s.after {
		// With a cause, as signal.NotifyContext cancels (cmd/cairn).
		s.cancel(errors.New("interrupt signal received"))
	}
	return s.testSource.Next()
}

// TestImportInterrupted: an import cancelled half way says it was
// interrupted and kept nothing (not pgx's "timeout: context already
// done"), still matching context.Canceled; into an agent this store's
// Open created, it leaves no agent row behind (before, an empty agent
// stayed in cairn.agents); an agent that was there before stays. On both
// servers.
func TestImportInterrupted(t *testing.T) {
	for _, env := range []string{"CAIRN_TEST_POSTGRES_URL", "CAIRN_TEST_CITUS_URL"} {
		t.Run(env, func(t *testing.T) {
			b := testBackend(t, env, "cairn_import_interrupted")
			src := openTest(t, b, "synced")
			if err := src.Apply(context.Background(), &cairn.Batch{Corpus: "notes", Upserts: postingsDocs(30)}); err != nil {
				t.Fatal(err)
			}
			rows := exportRows(t, src)
			openTest(t, b, "known").Close() // registered before the import
			for agent, wantRow := range map[string]int{"fresh": 0, "known": 1} {
				dst := openTest(t, b, agent)
				ctx, cancel := context.WithCancelCause(context.Background())
				err := dst.Import(ctx, false, &cancelSource{testSource: testSource{rows: rows}, after: len(rows) / 2, cancel: cancel})
				cancel(nil)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%s: interrupted import = %v, want context.Canceled", agent, err)
				}
				if msg := err.Error(); !strings.Contains(msg, "interrupted, nothing was kept") || strings.Contains(msg, "timeout") {
					t.Errorf("%s: error %q, want it to say interrupted and nothing kept, without timeout", agent, msg)
				}
				var n int
				if err := src.pool.QueryRow(context.Background(), `SELECT count(*) FROM agents WHERE agent = $1`, agent).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != wantRow {
					t.Errorf("%s: %d agent rows after the interrupted import, want %d", agent, n, wantRow)
				}
				info, err := src.PortInfo(context.Background())
				if err != nil || info.Counts["chunks"] != 30 {
					t.Errorf("source agent after the interrupted import: %v, %v", info.Counts, err)
				}
			}
		})
	}
}
