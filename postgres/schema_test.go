package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
)

// TestHalfMadeSchema: a first open cut short while it created the schema
// (a first import killed then) leaves the schema at version 0 with part
// of its objects: the meta table and text search configuration alone, the
// first migration's tables too, and on Citus some of them distributed.
// The next open finishes it: the schema at SchemaVersion, on Citus every
// table distributed, and the store writes and searches. Before, it failed
// on the text search dictionary already there (duplicate key in
// pg_ts_dict). A schema holding some but not all of Cairn's first tables
// is refused, naming them.
func TestHalfMadeSchema(t *testing.T) {
	type step func(ctx context.Context, c *pgx.Conn, schema string) error
	base := func(ctx context.Context, c *pgx.Conn, schema string) error { return createBase(ctx, c, schema) }
	tables := func(ctx context.Context, c *pgx.Conn, schema string) error {
		if err := createBase(ctx, c, schema); err != nil {
			return err
		}
		_, err := c.Exec(ctx, migrations[0])
		return err
	}
	someDistributed := func(ctx context.Context, c *pgx.Conn, schema string) error {
		if err := tables(ctx, c, schema); err != nil {
			return err
		}
		if _, err := c.Exec(ctx, `SELECT create_reference_table('agents')`); err != nil {
			return err
		}
		for i, t := range distributedTables[:4] {
			with := "default"
			if i > 0 {
				with = distributedTables[0]
			}
			if _, err := c.Exec(ctx, `SELECT create_distributed_table($1, 'agent', colocate_with => $2)`, t, with); err != nil {
				return err
			}
		}
		return nil
	}
	foreign := func(ctx context.Context, c *pgx.Conn, schema string) error {
		_, err := c.Exec(ctx, `CREATE SCHEMA `+quoteIdent(schema)+`; CREATE TABLE agents(name text); CREATE TABLE memories(name text)`)
		return err
	}
	for _, env := range []string{"CAIRN_TEST_POSTGRES_URL", "CAIRN_TEST_CITUS_URL"} {
		for _, c := range []struct {
			name      string
			made      step
			citusOnly bool
			refused   string // "": the open finishes the schema
		}{
			{name: "base", made: base},
			{name: "tables", made: tables},
			{name: "some distributed", made: someDistributed, citusOnly: true},
			{name: "foreign tables", made: foreign, refused: "holds 2 of the 22 tables Cairn creates (agents, memories)"},
		} {
			t.Run(env+"/"+c.name, func(t *testing.T) {
				b := testBackend(t, env, "cairn_halfmade")
				ctx := context.Background()
				pool, err := openPool(ctx, b.URL, b.Schema, 2)
				if err != nil {
					t.Fatal(err)
				}
				defer pool.Close()
				conn, err := pool.Acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				citus, err := hasCitus(ctx, conn.Conn())
				if err != nil {
					t.Fatal(err)
				}
				if c.citusOnly && !citus {
					conn.Release()
					t.Skip("Citus only")
				}
				if err := c.made(ctx, conn.Conn(), b.Schema); err != nil {
					t.Fatalf("make the schema in part: %v", err)
				}
				if v, err := schemaVersion(ctx, conn.Conn(), b.Schema); err != nil || v != 0 {
					t.Fatalf("half-made schema version %d, %v; want 0", v, err)
				}
				conn.Release()

				b.Agent = "a"
				st, err := b.Open(ctx, t.TempDir(), cairn.StorageOptions{FeatureVersion: "test-1"})
				if c.refused != "" {
					if err == nil {
						st.Close()
						t.Fatalf("open of a schema with foreign tables succeeded")
					}
					if !strings.Contains(err.Error(), c.refused) || strings.Contains(err.Error(), "duplicate key") {
						t.Fatalf("open: %v; want it to say %q", err, c.refused)
					}
					return
				}
				if err != nil {
					t.Fatalf("open of a half-made schema: %v", err)
				}
				defer st.Close()
				s := st.(*Store)
				conn, err = pool.Acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Release()
				if v, err := schemaVersion(ctx, conn.Conn(), b.Schema); err != nil || v != SchemaVersion {
					t.Fatalf("schema version after open %d, %v; want %d", v, err, SchemaVersion)
				}
				if citus {
					want := append(firstTables(), "cairn_meta", "postings")
					var n int
					if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
						WHERE c.relnamespace = $1::regnamespace AND c.relname = ANY($2)`, quoteIdent(b.Schema), want).Scan(&n); err != nil {
						t.Fatal(err)
					}
					if n != len(want) {
						t.Errorf("%d of the %d tables distributed", n, len(want))
					}
				}
				if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{testDoc("a.md", "walrus tusks\n")}}); err != nil {
					t.Fatal(err)
				}
				res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("walrus"), Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Candidates) != 1 {
					t.Errorf("search after the finished schema: %d hits, want 1", len(res.Candidates))
				}
			})
		}
	}
}
