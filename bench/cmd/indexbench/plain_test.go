package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/sqlite"
)

// vocab lists every term of chunks_fts in the file with its row and
// occurrence counts (fts5vocab), and the table's CREATE statement.
func vocab(t *testing.T, path string) (terms []string, create string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := db.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'`).Scan(&create); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, chunks_fts, instance)`); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT term, col, count(*) FROM temp.v GROUP BY term, col ORDER BY term, col`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var term, col string
		var n int
		if err := rows.Scan(&term, &col, &n); err != nil {
			t.Fatal(err)
		}
		terms = append(terms, term+" "+col+" "+strings.Repeat("|", n))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return terms, create
}

// TestPlainMatchesCairnTable: -plain inserts the rows Cairn's writer
// indexes (noise left out, shared content once) into a table made by the
// same statement, so both hold the same terms in the same columns the
// same number of times, pair tokens included; and the plain file holds
// no other table.
func TestPlainMatchesCairnTable(t *testing.T) {
	dir := t.TempDir()
	texts := map[string]string{
		"a.md":     "# Alpha\n\nThe walrus sings of the sea, and of the ships.\n\n## More\n\n" + strings.Repeat("Shared words in a paragraph of parseConfigFile. ", 60) + "\n",
		"b/b.md":   "# Beta\n\nparseConfigFile reads cairn.toml in the morning.\n",
		"b/dup.md": "# Beta\n\nparseConfigFile reads cairn.toml in the morning.\n",
		"c.md":     "# Gamma\n\n```\n" + strings.Repeat("0xdeadbeef 0xcafe\n", 30) + "```\n\nA closing line of the note.\n",
	}
	for p, text := range texts {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wIndex, pIndex := filepath.Join(t.TempDir(), "w"), filepath.Join(t.TempDir(), "p")
	var wout, pout bytes.Buffer
	if err := run(context.Background(), []string{"-writer", "-dir", dir, "-index", wIndex}, &wout); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"-plain", "-dir", dir, "-index", pIndex}, &pout); err != nil {
		t.Fatal(err)
	}
	var pr PlainResult
	if err := json.Unmarshal(pout.Bytes(), &pr); err != nil {
		t.Fatalf("decode %q: %v", pout.String(), err)
	}
	wTerms, wCreate := vocab(t, filepath.Join(wIndex, sqlite.IndexFile))
	pTerms, pCreate := vocab(t, filepath.Join(pIndex, PlainFile))
	if wCreate != pCreate || pr.Table != wCreate {
		t.Errorf("plain table %q (reported %q), Cairn's %q", pCreate, pr.Table, wCreate)
	}
	if len(wTerms) == 0 || !slices.Equal(wTerms, pTerms) {
		t.Errorf("terms differ: Cairn's %d, plain %d\nCairn: %v\nplain: %v", len(wTerms), len(pTerms), wTerms, pTerms)
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(wIndex, sqlite.IndexFile)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var want int
	if err := db.QueryRow(`SELECT count(*) FROM chunks WHERE noise = 0`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if pr.Rows != want || want < 3 {
		t.Errorf("plain inserted %d rows, Cairn indexed %d", pr.Rows, want)
	}
	pdb, err := sql.Open("sqlite3", "file:"+filepath.Join(pIndex, PlainFile)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer pdb.Close()
	var others int
	if err := pdb.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'chunks_fts%'`).Scan(&others); err != nil {
		t.Fatal(err)
	}
	if others != 0 {
		t.Errorf("plain file holds %d other tables", others)
	}
	if _, err := os.Stat(filepath.Join(pIndex, "schema")); !os.IsNotExist(err) {
		t.Errorf("the schema copy was left behind: %v", err)
	}
}

// TestPlainAndWriterExclusive: the two timing modes are refused together.
func TestPlainAndWriterExclusive(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"-plain", "-writer", "-dir", t.TempDir(), "-index", filepath.Join(t.TempDir(), "ix")}, &out)
	if err == nil || !strings.Contains(err.Error(), "two modes") {
		t.Fatalf("got %v, want the two modes refused", err)
	}
}
