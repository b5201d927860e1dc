package postgres

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// ownPairsKey is the agent_meta row that names the own pair words
// writeOwnPairs wrote into a measured store (TestLexicalTail's
// CAIRN_PG_TAIL_AB=ownpairs), so a second run reuses them.
const ownPairsKey = "tail_own_pairs"

// frequentLexemes returns the agent's lexemes held by at least share of
// its indexed chunks, most frequent first, cairn.GramWords's left out
// (they pair already), counted in every k-th chunk by id (about sample
// chunks).
func frequentLexemes(ctx context.Context, s *Store, share float64, sample int64) ([]string, error) {
	var top, n int64
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(max(id), 0), count(*) FROM chunks WHERE agent = $1 AND NOT noise AND tsv IS NOT NULL`, s.agent).Scan(&top, &n); err != nil {
		return nil, err
	}
	stride := max(1, top/sample)
	rows, err := s.pool.Query(ctx, `WITH c AS (SELECT tsv FROM chunks WHERE agent = $1 AND NOT noise AND tsv IS NOT NULL AND id % $2 = 0)
		SELECT x.lexeme, count(*)::float8 / (SELECT count(*) FROM c) AS share FROM c, unnest(c.tsv) x
		WHERE NOT x.lexeme = ANY(`+commonLexemesSQL+`) AND octet_length(x.lexeme) <= 64
		GROUP BY x.lexeme HAVING count(*) >= $3::float8 * (SELECT count(*) FROM c) ORDER BY 2 DESC, 1`, s.agent, stride, share)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var l string
		var sh float64
		err := r.Scan(&l, &sh)
		return l, err
	})
}

// ownPairsSQL writes the pairs of agent $1's indexed chunks with ids in
// [$2, $3) that hold a lexeme of $4 and none of cairn.GramWords's (those
// are written already), as chunkPairsSQL makes pairs.
var ownPairsSQL = `INSERT INTO postings(agent, lexeme, chunk, tf, pos)
	SELECT c.agent, y.lexeme, c.id, y.tf, y.pos FROM chunks c CROSS JOIN LATERAL (
		SELECT chr(31) || a.lexeme || chr(31) || b.lexeme AS lexeme,
			least(coalesce((c.tf->>a.lexeme)::real, 0), coalesce((c.tf->>b.lexeme)::real, 0)) AS tf,
			array_agg(a.p ORDER BY a.p) AS pos
		FROM (SELECT x.lexeme, p FROM unnest(c.tsv) x, unnest(x.positions) p) a
		JOIN (SELECT x.lexeme, p FROM unnest(c.tsv) x, unnest(x.positions) p) b ON b.p = a.p + 1
		WHERE (a.lexeme = ANY($4) OR b.lexeme = ANY($4))
			AND NOT (a.lexeme = ANY(` + commonLexemesSQL + `) OR b.lexeme = ANY(` + commonLexemesSQL + `))
			AND octet_length(a.lexeme) <= 64 AND octet_length(b.lexeme) <= 64
		GROUP BY a.lexeme, b.lexeme) y
	WHERE c.agent = $1 AND c.id >= $2 AND c.id < $3 AND NOT c.noise AND c.tsv IS NOT NULL
	ORDER BY y.lexeme COLLATE "C", c.id
	ON CONFLICT DO NOTHING`

// writeOwnPairs writes the pair postings of the agent's lexemes in share
// of its chunks or more (CAIRN_PG_TAIL_PAIRSHARE, default 0.1; at most
// CAIRN_PG_TAIL_PAIRWORDS, default 100, as SQLite's top 100) into the
// measured store, in one transaction, and vacuums the postings; a store
// that has them (ownPairsKey) is read as it is. It returns the words.
func writeOwnPairs(ctx context.Context, t *testing.T, s *Store) []string {
	if v, ok, err := getMeta(ctx, s.pool, s.agent, ownPairsKey); err != nil {
		t.Fatal(err)
	} else if ok {
		words := strings.Fields(v)
		t.Logf("own pairs: %d words written before (%s)", len(words), ownPairsKey)
		return words
	}
	share := 0.1
	if v, err := strconv.ParseFloat(os.Getenv("CAIRN_PG_TAIL_PAIRSHARE"), 64); err == nil && v > 0 {
		share = v
	}
	words, err := frequentLexemes(ctx, s, share, 10000)
	if err != nil {
		t.Fatal(err)
	}
	words = words[:min(len(words), envInt("CAIRN_PG_TAIL_PAIRWORDS", 100))]
	if len(words) == 0 {
		t.Fatalf("own pairs: no lexeme in %.0f%% of the chunks", share*100)
	}
	start, load := time.Now(), loadAvg()
	var before int64
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM postings WHERE agent = $1`, s.agent).Scan(&before); err != nil {
		t.Fatal(err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var lo, hi int64
	if err := tx.QueryRow(ctx, `SELECT coalesce(min(id), 0), coalesce(max(id), -1) FROM chunks WHERE agent = $1`, s.agent).Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	var written int64
	for from := lo; from <= hi; from += pairBatch {
		tag, err := tx.Exec(ctx, ownPairsSQL, s.agent, from, from+pairBatch, words)
		if err != nil {
			t.Fatal(err)
		}
		written += tag.RowsAffected()
	}
	if _, err := tx.Exec(ctx, setMetaSQL, s.agent, ownPairsKey, strings.Join(words, " ")); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if err := s.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("own pairs: %d words in %.0f%% of the chunks or more (%s); %d pair postings written to %d in %s (load %s), vacuumed in %s",
		len(words), share*100, strings.Join(words[:min(8, len(words))], " "), written, before, took.Round(time.Second), load, (time.Since(start) - took).Round(time.Second))
	return words
}

// loadAvg is the machine's 1-minute load average.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// TestOwnPairPhrases: with pairs of the agent's own frequent words
// written (writeOwnPairs: words outside cairn.GramWords) and read
// (ownPairs), phrases find the same chunks with the same scores, pass
// sizes and lowest ids as without them, on PostgreSQL and Citus, and a
// phrase of two such words reads under half the postings (PostgreSQL,
// where EXPLAIN shows the scans). Another agent's postings are not
// touched. (A store writes no own pairs: what this checks is the
// measurement's fairness, TestLexicalTail's CAIRN_PG_TAIL_AB=ownpairs.)
func TestOwnPairPhrases(t *testing.T) {
	defer func() { ownPairs = nil }()
	for _, srv := range []struct{ name, env string }{{"postgres", "CAIRN_TEST_POSTGRES_URL"}, {"citus", "CAIRN_TEST_CITUS_URL"}} {
		t.Run(srv.name, func(t *testing.T) {
			b := testBackend(t, srv.env, "cairn_ownpairs")
			ctx := context.Background()
			s, other := openTest(t, b, "own"), openTest(t, b, "other")
			for _, st := range []*Store{s, other} {
				if err := st.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: pairDocs(300)}); err != nil {
					t.Fatal(err)
				}
			}
			count := func(agent string) (n int64) {
				if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM postings WHERE agent = $1`, agent).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			ownPairs = nil
			want := lexicalLines(t, s, pairQueries())
			m := cairn.Match{Op: cairn.MatchPhrase, Words: []string{"walrus", "seal"}}
			before, others := postingsRead(t, s, m), count("other")
			words := writeOwnPairs(ctx, t, s)
			if !slices.Contains(words, "walrus") || !slices.Contains(words, "seal") || slices.Contains(words, "the") {
				t.Fatalf("own pair words %q: want walrus and seal (in most notes), not the (a GramWord)", words)
			}
			ownPairs = words
			if d := cmp.Diff(want, lexicalLines(t, s, pairQueries())); d != "" {
				t.Errorf("phrases over own pairs (-GramWords' pairs alone +own pairs too):\n%s", d)
			}
			if srv.name == "postgres" {
				if after := postingsRead(t, s, m); after*2 > before {
					t.Errorf("phrase %s read %.0f postings over own pairs, %.0f without; want under half", m, after, before)
				}
			}
			if n := count("other"); n != others {
				t.Errorf("another agent's postings: %d, were %d", n, others)
			}
			if again := writeOwnPairs(ctx, t, s); !slices.Equal(again, words) {
				t.Errorf("a second writeOwnPairs gave %q, want the words written: %q", again, words)
			}
		})
	}
}
