package main

// Lexical search side by side: -lex N searches indexes already built (the
// data directories of -lexdirs, comma-separated, none emptied) with the
// fingerprint's query list (terms of the first index found in 2 to 1,000
// chunks, each alone and with its neighbour: writeHits), every query on
// every index in turn, the order turned round from one query to the next,
// N rounds. It prints one JSON line per index: its full-text segments and
// the searches' wall p50/p99 and mean. A first index left with several
// segments (no final optimize) is held to the search speed of one merged
// into one (issue 19 item 3).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/procstat"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/sqlite"
)

// LexResult is one index's line of -lex.
type LexResult struct {
	Index    string  `json:"index"`
	Segments int     `json:"segments"`
	Levels   int     `json:"levels"`
	Queries  int     `json:"queries"` // searches timed: queries x rounds
	P50Ms    float64 `json:"p50Ms"`
	P99Ms    float64 `json:"p99Ms"`
	MeanMs   float64 `json:"meanMs"`
	Refused  int     `json:"refused"` // searches refused as bad input (a stop word alone)
	Load1    float64 `json:"load1"`   // before the first round
}

func runLex(ctx context.Context, c *config, stdout io.Writer) error {
	dirs := strings.Split(c.lexDirs, ",")
	queries, err := lexQueries(ctx, dirs[0], c.queries)
	if err != nil {
		return err
	}
	engs := make([]*engine.Engine, len(dirs))
	res := make([]*LexResult, len(dirs))
	times := make([][]time.Duration, len(dirs))
	load := procstat.Load1()
	for i, d := range dirs {
		seg, err := segmentsOf(ctx, d)
		if err != nil {
			return err
		}
		res[i] = &LexResult{Index: d, Segments: seg.Count, Levels: seg.Levels, Load1: load}
		// The corpus as the sync named it; search reads no files.
		corp := cairn.Corpus{Name: c.corpus, Kind: cairn.KindFiles, Paths: []string{d}, Glob: cairn.DefaultGlob}
		if engs[i], err = local.Open(ctx, engine.Options{Dir: d, Corpora: []cairn.Corpus{corp}}); err != nil {
			return err
		}
		defer engs[i].Close(ctx)
	}
	// One untimed pass warms each index's pages and statements.
	for _, e := range engs {
		for _, q := range queries {
			if _, err := lexSearch(ctx, e, q); err != nil {
				return err
			}
		}
	}
	turn := 0
	for range c.lex {
		for _, q := range queries {
			for k := range engs {
				i := (k + turn) % len(engs)
				start := time.Now()
				refused, err := lexSearch(ctx, engs[i], q)
				if err != nil {
					return err
				}
				if refused {
					res[i].Refused++
					continue
				}
				times[i] = append(times[i], time.Since(start))
			}
			turn++
		}
	}
	enc := json.NewEncoder(stdout)
	for i, r := range res {
		t := times[i]
		slices.Sort(t)
		r.Queries = len(t)
		if len(t) > 0 {
			var sum time.Duration
			for _, d := range t {
				sum += d
			}
			r.P50Ms = ms(t[len(t)/2])
			r.P99Ms = ms(t[min(len(t)-1, len(t)*99/100)])
			r.MeanMs = ms(sum / time.Duration(len(t)))
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// lexSearch runs one lexical search of q; refused is a query the search
// turns down as bad input.
func lexSearch(ctx context.Context, e *engine.Engine, q string) (refused bool, err error) {
	_, err = e.Search(ctx, q, &cairn.SearchOptions{Limit: 10, Mode: "lexical"})
	if errors.Is(err, cairn.ErrInvalid) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("search %q: %w", q, err)
	}
	return false, nil
}

// lexQueries is the fingerprint's query list drawn from the index in dir.
func lexQueries(ctx context.Context, dir string, n int) ([]string, error) {
	db, err := sql.Open("cairn_sqlite3", "file:"+filepath.Join(dir, engine.DBFile)+"?mode=ro")
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // the temp vocabulary table lives on one connection
	terms, err := pickTerms(ctx, db, n)
	if err != nil {
		return nil, err
	}
	var out []string
	for i, t := range terms {
		out = append(out, t)
		if i > 0 {
			out = append(out, terms[i-1]+" "+t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("index %s: no terms to search", dir)
	}
	return out, nil
}

// segmentsOf reads the full-text segments of the index in dir.
func segmentsOf(ctx context.Context, dir string) (sqlite.Segments, error) {
	st := sqlite.New(filepath.Join(dir, engine.DBFile), engine.FeatureVersion)
	if err := st.Open(ctx); err != nil {
		return sqlite.Segments{}, err
	}
	defer st.Close()
	return st.FTSSegments(ctx)
}
