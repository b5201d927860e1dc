package engine_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
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
	mix := kind == "mixprev" || kind == "mixboth"
	if dir == "" || kind != "prev" && kind != "both" && !mix {
		t.Skip("set CAIRN_NEIGHBOUR_DIR (a copy of a sweep index) and CAIRN_NEIGHBOUR=prev|both|mixprev|mixboth")
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
	// The chunks that have a vector (noise chunks get none), by document
	// and place (chunks belong to a document's content by its id).
	rows, err := db.QueryContext(ctx, `SELECT d.path, c.id, substr(ct.doc, c.pos + 1, c.len) FROM documents d
		JOIN chunks c ON c.cid = d.cid JOIN content ct ON ct.id = d.cid
		WHERE d.corpus = 'sessions' AND c.id IN (SELECT chunk_id FROM vectors) ORDER BY d.path, c.seq`)
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
	if mix {
		mixNeighbours(t, ctx, db, dir, identity, kind == "mixboth", ids(cs, func(c chunk) (string, int64) { return c.doc, c.id }))
		return
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

// ids lists each chunk's document and id, in order.
func ids[T any](cs []T, of func(T) (string, int64)) [][2]any {
	out := make([][2]any, len(cs))
	for i, c := range cs {
		d, id := of(c)
		out[i] = [2]any{d, id}
	}
	return out
}

// mixNeighbours is TestNeighbourVectors without a model (CAIRN_NEIGHBOUR=
// mixprev|mixboth): each session chunk's stored vector becomes itself
// plus CAIRN_NEIGHBOUR_WEIGHT (default 0.5) times the stored vector of the
// previous chunk of its document (and of the next, with both), normalized.
// The vectors mixed are the stored ones, read before any is written: what
// a lane could build from the vectors table at load, with nothing
// embedded again.
func mixNeighbours(t *testing.T, ctx context.Context, db *sql.DB, dir, identity string, both bool, cs [][2]any) {
	w := 0.5
	if s := os.Getenv("CAIRN_NEIGHBOUR_WEIGHT"); s != "" {
		var err error
		if w, err = strconv.ParseFloat(s, 64); err != nil {
			t.Fatal(err)
		}
	}
	vec := make([][]float32, len(cs))
	for i, c := range cs {
		var b []byte
		if err := db.QueryRowContext(ctx, `SELECT vec FROM vectors WHERE chunk_id = ? AND identity = ?`, c[1], identity).Scan(&b); err != nil {
			t.Fatal(err)
		}
		v := make([]float32, len(b)/4)
		for k := range v {
			v[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
		}
		vec[i] = v
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for i, c := range cs {
		out := make([]float64, len(vec[i]))
		for k, x := range vec[i] {
			out[k] = float64(x)
		}
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(cs) || cs[j][0] != c[0] || j == i+1 && !both || len(vec[j]) != len(out) {
				continue
			}
			for k, x := range vec[j] {
				out[k] += w * float64(x)
			}
		}
		var norm float64
		for _, x := range out {
			norm += x * x
		}
		norm = math.Sqrt(norm)
		b := make([]byte, 4*len(out))
		for k, x := range out {
			binary.LittleEndian.PutUint32(b[4*k:], math.Float32bits(float32(x/max(norm, 1e-12))))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE vectors SET vec = ? WHERE chunk_id = ? AND identity = ?`, b, c[1], identity); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "vectors.bin")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	t.Logf("%d session chunks' vectors mixed with their neighbours' (both %v, weight %.2f)", len(cs), both, w)
}
