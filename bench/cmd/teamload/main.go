// Command teamload is the load test of a team server: concurrent clients
// search over the HTTP API (POST /agents/{agent}/v1/search, each with its
// agent's bearer token from an access file's grants) across several
// agents of one PostgreSQL or Citus database, while two of the agents
// sync a new corpus each. It reports errors and latency percentiles
// (split by whether a sync was running), checks that every token's
// requests to an agent it was not granted are refused, and afterwards
// compares each syncing agent's index with a clean sync of the same files
// into a fresh agent of the same database: documents and their hashes,
// chunks (ranges, tsvector, tf map), vectors, and the results of a query
// set in lexical and hybrid mode. It exits 1 on any error, leak or
// difference.
//
//	eval "$(scripts/pg-test-servers.sh start)"
//	nice -n 10 go run -tags sqlite_fts5 ./bench/cmd/teamload -store $CAIRN_TEST_CITUS_URL
//
// The server is the handler `cairn serve` runs (mcpserver.NewHandler with
// an Access of per-agent read-only tokens) on a loopback port in this
// process, over one engine per agent as `cairn serve` opens them for a
// [store] url; the syncs are the engines' own Sync, as the server's
// periodic sync runs them. Vectors come from the hashembed stand-in
// embedder (microseconds a chunk), so the load is the store's.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/bench/hashembed"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/mcpserver"
	"github.com/cairnmemory/cairn/postgres"
	"github.com/jackc/pgx/v5"
)

type options struct {
	store    string
	schema   string
	agents   int
	syncing  int
	clients  int
	duration time.Duration
	base     int // notes per agent indexed before the load
	notes    int // notes of each new corpus synced under load
	queries  int
	check    int // queries compared with the clean sync, per mode
	seed     int64
	keep     bool
	skew     bool
}

func main() {
	var o options
	flag.StringVar(&o.store, "store", os.Getenv("CAIRN_TEST_CITUS_URL"), "PostgreSQL or Citus URL (default $CAIRN_TEST_CITUS_URL)")
	flag.StringVar(&o.schema, "schema", "cairn_teamload", "schema of the run, dropped before and after")
	flag.IntVar(&o.agents, "agents", 10, "agents served")
	flag.IntVar(&o.syncing, "syncing", 2, "agents that sync a new corpus under load")
	flag.IntVar(&o.clients, "clients", 50, "concurrent clients, spread over the agents")
	flag.DurationVar(&o.duration, "duration", 60*time.Second, "how long the clients search")
	flag.IntVar(&o.base, "base", 300, "notes per agent indexed before the load")
	flag.IntVar(&o.notes, "notes", 2000, "notes of each corpus synced under load")
	flag.IntVar(&o.queries, "queries", 300, "distinct queries the clients cycle through")
	flag.IntVar(&o.check, "check", 100, "queries compared with the clean sync, per mode")
	flag.Int64Var(&o.seed, "seed", 1, "corpus and query seed")
	flag.BoolVar(&o.keep, "keep", false, "keep the schema and the work folder")
	flag.BoolVar(&o.skew, "skew", false, "check the checker: write one more note into each inbox after the load, before the clean sync, so the comparison must fail")
	flag.Parse()
	if o.store == "" || o.syncing > o.agents || o.agents < 1 || o.clients < 1 {
		fmt.Fprintln(os.Stderr, "teamload: -store is required (a postgres:// URL), and -syncing must not exceed -agents")
		os.Exit(2)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "teamload:", err)
		os.Exit(1)
	}
}

// team is the served agents: their engines, names and corpora.
type team struct {
	names   []string
	engines []*engine.Engine
	corpora [][]cairn.Corpus
}

func (t *team) close(ctx context.Context) {
	for _, e := range t.engines {
		e.Close(ctx)
	}
}

func run(ctx context.Context, o options) error {
	work, err := os.MkdirTemp("", "teamload-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(work)
	}
	if err := dropSchema(ctx, o.store, o.schema); err != nil {
		return err
	}
	if !o.keep {
		defer dropSchema(context.WithoutCancel(ctx), o.store, o.schema)
	}
	base := filepath.Join(work, "base")
	logf("generating %d base notes (every agent indexes them as its own)", o.base)
	if _, _, err := corpus.Generate(base, corpus.Options{Notes: o.base, Seed: o.seed}); err != nil {
		return err
	}
	t := &team{}
	defer t.close(ctx)
	for i := range o.agents {
		name := fmt.Sprintf("agent-%02d", i)
		corpora := []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{base}, Glob: cairn.DefaultGlob}}
		if i < o.syncing {
			inbox := filepath.Join(work, "inbox-"+name)
			if err := os.MkdirAll(inbox, 0o755); err != nil {
				return err
			}
			corpora = append(corpora, cairn.Corpus{Name: "inbox", Kind: cairn.KindFiles, Paths: []string{inbox}, Glob: cairn.DefaultGlob})
		}
		eng, err := openAgent(ctx, o, filepath.Join(work, "data-"+name), name, corpora)
		if err != nil {
			return err
		}
		t.names, t.engines, t.corpora = append(t.names, name), append(t.engines, eng), append(t.corpora, corpora)
	}
	start := time.Now()
	for i, eng := range t.engines {
		if _, err := eng.Sync(ctx, nil); err != nil {
			return fmt.Errorf("base sync of %s: %w", t.names[i], err)
		}
	}
	logf("base sync of %d agents took %.1f s", o.agents, time.Since(start).Seconds())
	for i := range o.syncing {
		dir := t.corpora[i][1].Paths[0]
		logf("generating %d new notes for %s's inbox", o.notes, t.names[i])
		if _, _, err := corpus.Generate(dir, corpus.Options{Notes: o.notes, Seed: o.seed + 1 + int64(i)}); err != nil {
			return err
		}
	}
	res, err := serveAndLoad(ctx, o, t)
	if err != nil {
		return err
	}
	res.print(o)
	bad, same := res.errors > 0 || res.leaks > 0, true
	for i := range o.syncing {
		if o.skew {
			if err := os.WriteFile(filepath.Join(t.corpora[i][1].Paths[0], "skew.md"), []byte("# Skew\n\nwalrus skew note\n"), 0o644); err != nil {
				return err
			}
		}
		d, err := verify(ctx, o, t, i, work)
		if err != nil {
			return fmt.Errorf("compare %s with a clean sync: %w", t.names[i], err)
		}
		fmt.Printf("%s against a clean sync: %s\n", t.names[i], d)
		same = same && d.equal()
	}
	if bad || !same {
		return fmt.Errorf("failed: %d errors, %d cross-agent requests answered, every index equal to its clean sync: %v", res.errors, res.leaks, same)
	}
	return nil
}

// openAgent opens one agent's engine over the store, as cairn serve does
// for a [store] url.
func openAgent(ctx context.Context, o options, dir, name string, corpora []cairn.Corpus) (*engine.Engine, error) {
	return local.Open(ctx, engine.Options{Dir: dir, Corpora: corpora, Embedder: hashembed.Embedder{},
		Backend: postgres.Backend{URL: o.store, Schema: o.schema, Agent: name}})
}

func dropSchema(ctx context.Context, url, schema string) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", url, err)
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, `DROP SCHEMA IF EXISTS `+quoteIdent(schema)+` CASCADE`)
	return err
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// agentsOf wraps the engines as the server's agents.
func agentsOf(t *team) []*mcpserver.Agent {
	var out []*mcpserver.Agent
	for i, e := range t.engines {
		out = append(out, mcpserver.NewAgent(t.names[i], e))
	}
	return out
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "teamload: "+format+"\n", args...)
}
