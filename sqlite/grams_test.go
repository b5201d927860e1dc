package sqlite

import (
	"context"

	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// gramVocab mixes common words (some that Porter stems: "was", "this"),
// inflected forms that stem alike (run, runs, running) and rarer words,
// with a long word that never pairs.
var gramVocab = strings.Fields(`the of and a to in is it was this that with for as
	run runs running runner server servers config walrus ice timeout busy sqlite
	Café cafe über naïve x y z 42 ` + strings.Repeat("l", 70))

func gramText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString([]string{" ", " ", " ", ", ", ". ", "\n", " - "}[r.IntN(7)])
		}
		w := gramVocab[r.IntN(len(gramVocab))]
		if r.IntN(8) == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

// gramTexts returns n rows of 5 to 5+spread words.
func gramTexts(r *rand.Rand, n, spread int) []string {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = gramText(r, 5+r.IntN(spread))
	}
	return texts
}

// openGramTables makes two tables over the same rows: one with the cairn
// tokenizer, one with the tokenizer it wraps.
func openGramTables(t *testing.T, texts []string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driverName, filepath.Join(t.TempDir(), "grams.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE g USING fts5(title, body, content='', contentless_delete=1, tokenize='cairn porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE p USING fts5(title, body, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE gv USING fts5vocab(g, 'row')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for i, text := range texts {
		title := ""
		if i%3 == 0 {
			title = text[:min(len(text), 30)]
		}
		for _, tab := range []string{"g", "p"} {
			if _, err := db.Exec(`INSERT INTO `+tab+`(rowid, title, body) VALUES(?, ?, ?)`, i+1, title, text); err != nil {
				t.Fatal(err)
			}
		}
	}
	return db
}

func matchIDs(t *testing.T, db *sql.DB, table, match string) []int64 {
	t.Helper()
	rows, err := db.Query(`SELECT rowid FROM `+table+` WHERE `+table+` MATCH ? ORDER BY rowid`, match)
	if err != nil {
		t.Fatalf("%s MATCH %q: %v", table, match, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

func ftsQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// TestGramPhrasesMatchPlainPhrases checks the rewrite is exact: a phrase
// answered with common grams matches the same rows as the plain phrase,
// and plain queries on the gram table match what the wrapped tokenizer's
// table matches.
func TestGramPhrasesMatchPlainPhrases(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	texts := gramTexts(r, 400, 60)
	db := openGramTables(t, texts)
	var phrases []string
	for range 600 {
		// Runs of words from a row (found) and random runs (mostly not).
		src := texts[r.IntN(len(texts))]
		if r.IntN(3) == 0 {
			src = gramText(r, 8)
		}
		ws := strings.FieldsFunc(src, func(c rune) bool { return c == ' ' || c == ',' || c == '.' || c == '\n' || c == '-' })
		n := 1 + r.IntN(5)
		if len(ws) < n {
			continue
		}
		at := r.IntN(len(ws) - n + 1)
		phrases = append(phrases, strings.Join(ws[at:at+n], " "))
	}
	found := 0
	for _, ph := range phrases {
		plain := matchIDs(t, db, "p", ftsQuote(ph))
		if got := matchIDs(t, db, "g", ftsQuote(ph)); !slices.Equal(got, plain) {
			t.Fatalf("phrase %q: gram table %v, plain table %v", ph, got, plain)
		}
		if got := matchIDs(t, db, "g", ftsQuote("\x1f"+ph)); !slices.Equal(got, plain) {
			t.Fatalf("gram phrase %q: %v, plain phrase %v", ph, got, plain)
		}
		if len(plain) > 0 {
			found++
		}
	}
	if found < len(phrases)/3 {
		t.Fatalf("only %d of %d phrases match anything: the test checks too little", found, len(phrases))
	}
	// Other query forms are unchanged.
	for _, q := range []string{`run`, `"the"`, `walrus AND ice`, `the OR timeout`, `"run"*`, `"the serv"*`,
		`NEAR(walrus ice, 3)`, `title : walrus`, `"the th"*`, `"run ru"*`, `"of o"*`, `"th"*`, `"walr"*`, `"o"*`} {
		if got, want := matchIDs(t, db, "g", q), matchIDs(t, db, "p", q); !slices.Equal(got, want) {
			t.Errorf("%s: gram table %v, plain table %v", q, got, want)
		}
		// Prefixes must not reach pair tokens: the same term frequencies.
		if got, want := tfs(t, db, "g", q), tfs(t, db, "p", q); got != want {
			t.Errorf("%s: cairn_tf on the gram table %s, plain table %s", q, got, want)
		}
	}
}

// tfs returns each matching row's cairn_tf factors, for comparing tables.
func tfs(t *testing.T, db *sql.DB, table, match string) string {
	t.Helper()
	rows, err := db.Query(`SELECT rowid, cairn_tf(`+table+`, 0, 1, 1) FROM `+table+` WHERE `+table+` MATCH ? ORDER BY rowid`, match)
	if err != nil {
		t.Fatalf("%s MATCH %q: %v", table, match, err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id int64
		var tf []byte
		if err := rows.Scan(&id, &tf); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d:%x ", id, tf)
	}
	return b.String()
}

// TestGramTokens checks which pair tokens the index holds: pairs with a
// common word, stemmed as the words are; none between two rare words or
// with a word over 64 bytes.
func TestGramTokens(t *testing.T) {
	db := openGramTables(t, []string{"Running servers of the walrus cafe " + strings.Repeat("l", 70) + " of"})
	rows, err := db.Query(`SELECT term FROM gv WHERE instr(term, char(31)) > 0 ORDER BY term`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var term string
		if err := rows.Scan(&term); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.ReplaceAll(term, "\x1f", "|"))
	}
	want := []string{"|of|the", "|server|of", "|the|walru"}
	if !slices.Equal(got, want) {
		t.Fatalf("pair tokens %q, want %q", got, want)
	}
}

// TestGramColumnSizes checks pair tokens leave BM25's length normalization
// alone: bm25() with b = 0.75 scores a word the same on both tables.
func TestGramColumnSizes(t *testing.T) {
	db := openGramTables(t, gramTexts(rand.New(rand.NewPCG(3, 4)), 50, 40))
	score := func(table string) string {
		var out []string
		rows, err := db.Query(`SELECT rowid, bm25(` + table + `) FROM ` + table + ` WHERE ` + table + ` MATCH 'walrus' ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var s float64
			if err := rows.Scan(&id, &s); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d:%.9f", id, s))
		}
		return strings.Join(out, " ")
	}
	g, p := score("g"), score("p")
	if g == "" || g != p {
		t.Fatalf("bm25 differs:\ngram  %s\nplain %s", g, p)
	}
}

// TestGramsMigration opens a store of schema version 7 (the table on the
// plain tokenizer) and checks the upgrade moves the table to the cairn
// tokenizer and indexes the stored chunks again, identifier column
// included, keeping documents and chunks (so vectors need no new work).
func TestGramsMigration(t *testing.T) {
	for _, from := range []string{"7", "8"} {
		t.Run("from "+from, func(t *testing.T) { testGramsMigration(t, from) })
	}
}

// testGramsMigration: from is the schema version to start at, 7 (the
// plain tokenizer) or 8 (the first form of the common-grams table).
func testGramsMigration(t *testing.T, from string) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s := openStore(t, path, "f1")
	noisy := doc("n", "b.md", "of the seal\nnoise line\n")
	noisy.Chunks[1].Noise = true
	noisy.Title = "Seal notes"
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{doc("n", "a.md", "of the walrus\ncall parseConfig\n"), noisy}}); err != nil {
		t.Fatal(err)
	}
	var chunks int
	if err := s.r.QueryRow(`SELECT count(*) FROM chunks`).Scan(&chunks); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DROP TABLE chunks_fts`,
		`CREATE VIRTUAL TABLE chunks_fts USING fts5(title, body, ident, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')`,
	} {
		if _, err := s.w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.w.Exec(`UPDATE meta SET value=? WHERE key='schema_version'`, from); err != nil {
		t.Fatal(err)
	}
	s.Close()
	up := New(path, "f1")
	up.Ident = func(body string) string { return strings.ReplaceAll(body, "parseConfig", "parse config") }
	var logged string
	up.Logf = func(format string, args ...any) { logged = fmt.Sprintf(format, args...) }
	if err := up.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	if up.Reindexed {
		t.Error("upgrade to the cairn tokenizer emptied the index")
	}
	if !strings.Contains(logged, "3 chunks") {
		t.Errorf("log %q, want the 3 chunks that are not noise", logged)
	}
	var ddl string
	if err := up.r.QueryRow(`SELECT sql FROM sqlite_master WHERE name='chunks_fts'`).Scan(&ddl); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ddl, "tokenize='cairn porter") {
		t.Errorf("table after upgrade: %s", ddl)
	}
	var after int
	if err := up.r.QueryRow(`SELECT count(*) FROM chunks`).Scan(&after); err != nil || after != chunks {
		t.Errorf("chunks after upgrade %d (%v), before %d", after, err, chunks)
	}
	for _, tt := range []struct {
		match string
		want  int
	}{
		{"\"\x1fof the walrus\"", 1},
		{"\"\x1fof the seal\"", 1},
		{`"noise"`, 0},
		{`ident : "parse config"`, 1},
		{`title : seal`, 1},
	} {
		if m, err := up.countExpr(ctx, tt.match, 10); err != nil || m.N != tt.want {
			t.Errorf("%q after upgrade: %+v, %v; want %d", tt.match, m, err, tt.want)
		}
	}
}

// FuzzGramPhrase checks on arbitrary text that a phrase answered with
// common grams matches exactly the rows the plain phrase matches: each
// input is a row set (lines) and a phrase taken from it or made up.
func FuzzGramPhrase(f *testing.F) {
	f.Add("the walrus of the ice\nof the seal", "of the walrus", 0)
	f.Add("Running servers, of THE cafe\nnaïve über the", "ubér the", 1)
	f.Add(strings.Repeat("l", 70)+" of the x\nthe of the of", "the of the", 2)
	f.Add("a\nb c d", "", 3)
	// In memory, one connection: nothing to sync to disk per input.
	db, err := sql.Open(driverName, ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	db.SetConnMaxLifetime(0)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE g USING fts5(body, content='', contentless_delete=1, tokenize='cairn porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE p USING fts5(body, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')`,
	} {
		if _, err := db.Exec(q); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, text, phrase string, pick int) {
		rows := strings.Split(text, "\n")
		if len(rows) > 20 || len(text) > 2000 {
			return
		}
		if phrase == "" && len(rows) > 0 {
			// Take a run of words from a row.
			ws := strings.Fields(rows[abs(pick)%len(rows)])
			if len(ws) == 0 {
				return
			}
			at := abs(pick) % len(ws)
			phrase = strings.Join(ws[at:min(len(ws), at+1+abs(pick)%4)], " ")
		}
		for _, tab := range []string{"g", "p"} {
			if _, err := db.Exec(`DELETE FROM ` + tab); err != nil {
				t.Fatal(err)
			}
			for i, r := range rows {
				if _, err := db.Exec(`INSERT INTO `+tab+`(rowid, body) VALUES(?, ?)`, i+1, r); err != nil {
					t.Fatal(err)
				}
			}
		}
		plain, perr := matchIDsErr(db, "p", ftsQuote(phrase))
		gram, gerr := matchIDsErr(db, "g", ftsQuote("\x1f"+phrase))
		if (perr == nil) != (gerr == nil) {
			t.Fatalf("phrase %q: plain error %v, gram error %v", phrase, perr, gerr)
		}
		if !slices.Equal(plain, gram) {
			t.Fatalf("phrase %q over %q: gram %v, plain %v", phrase, rows, gram, plain)
		}
		// Prefix queries, answered by the wrapped tokenizer, must not reach
		// pair tokens.
		prefix := ftsQuote(phrase) + "*"
		plain, perr = matchIDsErr(db, "p", prefix)
		gram, gerr = matchIDsErr(db, "g", prefix)
		if (perr == nil) != (gerr == nil) || !slices.Equal(plain, gram) {
			t.Fatalf("prefix %s over %q: gram %v (%v), plain %v (%v)", prefix, rows, gram, gerr, plain, perr)
		}
	})
}

func abs(x int) int {
	if x < 0 {
		if x == -x { // the smallest int
			return 0
		}
		return -x
	}
	return x
}

func matchIDsErr(db *sql.DB, table, match string) ([]int64, error) {
	rows, err := db.Query(`SELECT rowid FROM `+table+` WHERE `+table+` MATCH ? ORDER BY rowid`, match)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
