package engine_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/cairnmemory/cairn/tokenize"
	_ "github.com/mattn/go-sqlite3"
)

// TestNeighbourVectors measures neighbouring turns in the vector key
// (issue 19 item 2) without changing what sync embeds: it rewrites, in a
// copy of a TestFusionSweep index (CAIRN_NEIGHBOUR_DIR, never the kept
// one), every session chunk's vector as the embedding of its text with
// the previous chunk of its document before it (CAIRN_NEIGHBOUR=prev) or
// with the previous and the next (both), and removes the vector file so
// the next process loads them. TestFusionSweep over that directory then
// scores the variant (bench/RESULTS.md, "Ranking: feedback, dates and
// neighbours").
func TestNeighbourVectors(t *testing.T) {
	dir, kind := os.Getenv("CAIRN_NEIGHBOUR_DIR"), os.Getenv("CAIRN_NEIGHBOUR")
	if dir == "" || kind != "prev" && kind != "both" {
		t.Skip("set CAIRN_NEIGHBOUR_DIR (a copy of a sweep index) and CAIRN_NEIGHBOUR=prev|both")
	}
	shared := testshared.Dir(t, testshared.Model, testshared.Library)
	emb, err := onnx.New(onnx.Options{ModelDir: filepath.Join(shared, "models", "use-lite"),
		Library:       filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	db, err := sql.Open("sqlite3", filepath.Join(dir, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	rows, err := db.QueryContext(ctx, `SELECT d.path, c.id, substr(ct.doc, c.pos + 1, c.len) FROM documents d
		JOIN chunks c ON c.hash = d.hash JOIN content ct ON ct.hash = d.hash WHERE d.corpus = 'sessions' ORDER BY d.path, c.seq`)
	if err != nil {
		t.Fatal(err)
	}
	type chunk struct {
		doc  string
		id   int64
		text string
	}
	var cs []chunk
	for rows.Next() {
		var c chunk
		var text []byte
		if err := rows.Scan(&c.doc, &c.id, &text); err != nil {
			t.Fatal(err)
		}
		c.text = string(text)
		cs = append(cs, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	var identity string
	if err := db.QueryRowContext(ctx, `SELECT identity FROM vectors LIMIT 1`).Scan(&identity); err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(cs))
	for i, c := range cs {
		parts := []string{c.text}
		if i > 0 && cs[i-1].doc == c.doc {
			parts = append([]string{strings.TrimSpace(cs[i-1].text)}, parts...)
		}
		if kind == "both" && i+1 < len(cs) && cs[i+1].doc == c.doc {
			parts = append(parts, strings.TrimSpace(cs[i+1].text))
		}
		texts[i] = strings.Join(parts, "\n\n")
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for at := 0; at < len(texts); at += 64 {
		end := min(at+64, len(texts))
		vecs, err := emb.Embed(ctx, cairn.EmbedDocument, texts[at:end])
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vecs {
			b := make([]byte, 4*len(v))
			for k, x := range v {
				binary.LittleEndian.PutUint32(b[4*k:], math.Float32bits(x))
			}
			if _, err := tx.ExecContext(ctx, `UPDATE vectors SET vec = ? WHERE chunk_id = ? AND identity = ?`, b, cs[at+i].id, identity); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "vectors.bin")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	t.Logf("%d session chunks embedded with their %s neighbours", len(cs), kind)
}
