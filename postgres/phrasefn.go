package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// A phrase's newest matches, read in the key's order (cairn_phrase_v1).
//
// A phrase of frequent lexemes that no pair covers (an identifier's path
// parts: "pkg kous tai ts", 162,507, 29,978, 39,587 and 143,823 postings
// at 1M chunks) is a join of their posting lists on the chunk. The
// planner takes the lexemes for independent and expects 38 chunks to
// hold all four where 25,576 do, so it hash-joins two lists, probes the
// others for every chunk the two share and sorts all the matches to keep
// the newest 501: 206,456 buffers and 150 to 180 ms, the pass and the
// capped count alike. A merge join of the lists read backwards keeps the
// chunk order and stops at the limit (1.6 to 1.8 ms, 82 buffers; a
// phrase of those lists with no match reads each list once, 101 to 111
// ms), but the planner picks it only with hash and nested-loop joins off,
// and the rest of a pass needs nested loops (bench/RESULTS.md, issue 20,
// session 12-04, pp).
//
// So the newest matches of such a phrase come from a function, whose SET
// clause scopes those settings to it: cairn_phrase_v1 reads the newest
// 256 postings of each list, estimates each list's size from the ids
// they span (exact below 256), and turns hash and nested-loop joins off
// when a merge join reading every list whole would cost no more than
// probing the others for each posting of the shortest, at eight reads in
// order to one probe: the sum of the lists at most 8·(k-1) times the
// shortest (k lists). A phrase with a rare list ("pkg zizoux": 300
// postings) keeps the planner's plan, which probes from it. Either way
// the function runs the phrase's join (the same lists, offsets and
// counts as phrase writes) newest first up to n rows, so the chunks and
// counts are phrase's own; only the plan differs. JIT is off in it: a
// disabled join adds a cost that would compile the statement.
//
// On Citus the function runs where the pass runs, on the agent's worker,
// and reads the postings as a distributed query from inside a shard's
// query, which Citus refuses unless citus.allow_nested_distributed_execution
// is on: the function sets it for itself. Its query names the agent, so
// it is routed to the agent's shard, which is local there.
//
// The function is made when a store opens and finds it missing, outside
// the schema's versions (an older build never calls it and still opens
// the schema); a store that cannot make it (no CREATE privilege), or on
// Citus does not find it on every worker, reads phrases as before.

// phraseFnName is the function's name (its version: a changed body gets
// a new name, so that stores of two builds never call each other's).
const phraseFnName = "cairn_phrase_v1"

// phraseFnArgs is its argument list, as to_regprocedure names it.
const phraseFnArgs = "(text,text[],integer[],integer[],bigint)"

// mergePhrases turns the function on for the phrases it serves;
// TestLexicalTail's CAIRN_PG_TAIL_AB=merge turns it off and on query by
// query to compare.
var mergePhrases = true

// phraseFnSQL is the CREATE statement of the function in schema (quoted),
// with Citus's setting when citus.
func phraseFnSQL(schema string, citus bool) string {
	set := ""
	if citus {
		set = " SET citus.allow_nested_distributed_execution = on"
	}
	return `CREATE OR REPLACE FUNCTION ` + schema + `.` + phraseFnName + `(ag text, toks text[], ui integer[], uo integer[], n bigint)
RETURNS TABLE(r_chunk bigint, r_f float8) LANGUAGE plpgsql STABLE
SET search_path = ` + schema + ` SET enable_hashjoin = on SET enable_nestloop = on SET jit = off` + set + `
AS $f$
DECLARE
	k int := cardinality(toks);
	merge boolean;
	q text;
	seq text := '';
	i int;
BEGIN
	-- Each list's size: its newest 256 postings, and the ids they span
	-- against the agent's.
	SELECT sum(e) <= 8 * (k - 1) * min(e) INTO merge FROM (
		SELECT CASE WHEN y.n < 256 THEN y.n::float8
			ELSE 256.0 * (sp.hi - sp.lo + 1) / greatest(y.hi - y.lo + 1, 1) END AS e
		FROM (SELECT min(id) AS lo, max(id) AS hi FROM chunks WHERE agent = ag) sp,
			unnest(toks) t(l) CROSS JOIN LATERAL (SELECT count(*) AS n, min(x.chunk) AS lo, max(x.chunk) AS hi
				FROM (SELECT p.chunk FROM postings p WHERE p.agent = ag AND p.lexeme = t.l ORDER BY p.chunk DESC LIMIT 256) x) y) s;
	RAISE DEBUG 'cairn_phrase_v1: merge %', merge;
	IF merge THEN
		PERFORM set_config('enable_hashjoin', 'off', true);
		PERFORM set_config('enable_nestloop', 'off', true);
	END IF;
	q := 'SELECT p1.chunk, least(' || (SELECT string_agg(format('p%s.tf', g), ', ' ORDER BY g) FROM generate_series(1, k) g)
		|| ')::float8 FROM ' || (SELECT string_agg(format('(SELECT chunk, tf, pos FROM postings WHERE agent = $1 AND lexeme = $2[%s]) p%s', g, g)
			|| CASE WHEN g > 1 THEN format(' ON p%s.chunk = p1.chunk', g) ELSE '' END, ' JOIN ' ORDER BY g) FROM generate_series(1, k) g);
	FOR i IN 1 .. coalesce(cardinality(ui), 0) LOOP
		IF ui[i] <> 1 OR uo[i] <> 0 THEN
			seq := seq || CASE WHEN seq = '' THEN '' ELSE ' AND ' END || format('(x + %s)::smallint = ANY(p%s.pos)', uo[i], ui[i]);
		END IF;
	END LOOP;
	IF seq <> '' THEN
		q := q || ' WHERE EXISTS (SELECT 1 FROM unnest(p1.pos) x WHERE ' || seq || ')';
	END IF;
	RETURN QUERY EXECUTE q || ' ORDER BY p1.chunk DESC LIMIT $3' USING ag, toks, n;
END
$f$`
}

// ensurePhraseFn makes the function in schema when it is missing and
// reports whether the store can call it: on Citus, whether every worker
// has it too (Citus copies a function to the workers when it is made).
// Made under the migration lock, so two stores opening at once make it
// once.
func ensurePhraseFn(ctx context.Context, c *pgx.Conn, schema string, citus bool) (bool, error) {
	q := quoteIdent(schema)
	sig := q + "." + phraseFnName + phraseFnArgs
	have := func() (bool, error) {
		var ok bool
		err := c.QueryRow(ctx, `SELECT to_regprocedure($1) IS NOT NULL`, sig).Scan(&ok)
		return ok, err
	}
	ok, err := have()
	if err != nil || ok && !citus {
		return ok, err
	}
	if !ok {
		if _, err := c.Exec(ctx, `SELECT pg_advisory_lock($1)`, lockKey("migrate", schema)); err != nil {
			return false, err
		}
		defer c.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockKey("migrate", schema))
		if ok, err = have(); err != nil {
			return false, err
		}
		if !ok {
			if _, err := c.Exec(ctx, phraseFnSQL(q, citus)); err != nil {
				return false, fmt.Errorf("make %s: %w", phraseFnName, err)
			}
		}
	}
	if !citus {
		return true, nil
	}
	var missing []string
	rows, err := c.Query(ctx, `SELECT nodename || ':' || nodeport FROM run_command_on_workers(format('SELECT to_regprocedure(%L) IS NOT NULL', $1::text))
		WHERE NOT success OR result <> 't'`, sig)
	if err != nil {
		return false, err
	}
	if missing, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return false, err
	}
	if len(missing) > 0 {
		return false, fmt.Errorf("%s is missing on worker %s", phraseFnName, strings.Join(missing, ", "))
	}
	return true, nil
}
