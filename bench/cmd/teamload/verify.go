package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/engine"
	"github.com/jackc/pgx/v5"
)

// diff is how a synced-under-load agent differs from a clean sync of the
// same files: rows of each table on one side only, and queries whose
// hits differ.
type diff struct {
	docs, contents, chunks, vectors int // rows of documents (path, hash, size), contents, chunks, vectors
	rows                            map[string]int
	queries, queriesDiffer          int
	firstQuery                      string
}

func (d diff) equal() bool { return d.docs+d.contents+d.chunks+d.vectors == 0 && d.queriesDiffer == 0 }

func (d diff) String() string {
	verdict := "equal"
	if !d.equal() {
		verdict = "DIFFERENT"
	}
	s := fmt.Sprintf("%s: %d documents, %d contents, %d chunks, %d vectors compared row by row (%d, %d, %d, %d on one side only); %d queries (lexical and hybrid), %d with other hits",
		verdict, d.rows["documents"], d.rows["content"], d.rows["chunks"], d.rows["vectors"], d.docs, d.contents, d.chunks, d.vectors, d.queries, d.queriesDiffer)
	if d.firstQuery != "" {
		s += "; first: " + d.firstQuery
	}
	return s
}

// comparisons are the per-agent rows compared: the documents and their
// hashes, the contents, every chunk keyed by content and sequence (its
// range, lines, noise flag, tsvector and tf map), and every vector keyed
// by its chunk's content and sequence. Chunk ids are left out: they are
// assigned as rows arrive and differ between any two syncs.
var comparisons = []struct{ name, sql string }{
	{"documents", `SELECT corpus, path, hash, size FROM documents WHERE agent = $1`},
	{"content", `SELECT hash, md5(doc), title FROM content WHERE agent = $1`},
	{"chunks", `SELECT hash, seq, pos, len, start_line, end_line, tokens, noise, coalesce(tsv::text, ''), coalesce(tf::text, '') FROM chunks WHERE agent = $1`},
	{"vectors", `SELECT c.hash, c.seq, v.identity, v.vec::text FROM vectors v JOIN chunks c ON c.agent = v.agent AND c.id = v.chunk_id WHERE v.agent = $1`},
}

// verify syncs the same corpora into a fresh agent of the same database
// and compares it with agent i, table by table and query by query.
func verify(ctx context.Context, o options, t *team, i int, work string) (diff, error) {
	d := diff{rows: map[string]int{}}
	name := t.names[i] + "-clean"
	clean, err := openAgent(ctx, o, filepath.Join(work, "data-"+name), name, t.corpora[i])
	if err != nil {
		return d, err
	}
	defer clean.Close(ctx)
	if _, err := clean.Sync(ctx, nil); err != nil {
		return d, fmt.Errorf("clean sync: %w", err)
	}
	c, err := pgx.Connect(ctx, o.store)
	if err != nil {
		return d, err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, `SET search_path = `+quoteIdent(o.schema)+`, public`); err != nil {
		return d, err
	}
	for j, cmp := range comparisons {
		total, only, err := onOneSide(ctx, c, cmp.sql, t.names[i], name)
		if err != nil {
			return d, fmt.Errorf("compare %s: %w", cmp.name, err)
		}
		d.rows[cmp.name] = total
		*[]*int{&d.docs, &d.contents, &d.chunks, &d.vectors}[j] = only
	}
	for _, mode := range []string{cairn.ModeLexical, cairn.ModeHybrid} {
		for _, q := range corpus.Queries(o.check, o.seed+100) {
			a, errA := hitsOf(ctx, t.engines[i], q, mode)
			b, errB := hitsOf(ctx, clean, q, mode)
			if errors.Is(errA, cairn.ErrInvalid) && errors.Is(errB, cairn.ErrInvalid) {
				continue // only common words, on both
			}
			d.queries++
			if errA != nil || errB != nil || a != b {
				d.queriesDiffer++
				if d.firstQuery == "" {
					d.firstQuery = fmt.Sprintf("%s %q: %v %v\n  loaded: %s\n  clean:  %s", mode, q, errA, errB, a, b)
				}
			}
		}
	}
	return d, nil
}

// onOneSide counts the rows of query for agent a and how many rows (as a
// multiset) are on one side only, of a or of b.
func onOneSide(ctx context.Context, c *pgx.Conn, query, a, b string) (int, int, error) {
	var total, only int
	err := c.QueryRow(ctx, `WITH x AS (`+query+`), y AS (`+strings.ReplaceAll(query, "$1", "$2")+`)
		SELECT (SELECT count(*) FROM x), (SELECT count(*) FROM (SELECT * FROM x EXCEPT ALL SELECT * FROM y) p)
			+ (SELECT count(*) FROM (SELECT * FROM y EXCEPT ALL SELECT * FROM x) q)`, a, b).Scan(&total, &only)
	return total, only, err
}

// hitsOf is a search's hits as one comparable line: corpus, path, lines
// and score of each, best first.
func hitsOf(ctx context.Context, e *engine.Engine, q, mode string) (string, error) {
	hits, err := e.Search(ctx, q, &cairn.SearchOptions{Limit: 10, Mode: mode})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s/%s:%d-%d %.9f; ", h.Corpus, h.Path, h.StartLine, h.EndLine, h.Score)
	}
	return b.String(), nil
}

// loadAvg is the machine's 1-minute load average (Linux), printed beside
// the numbers: the others sharing the machine move them.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}
