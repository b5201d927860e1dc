package sqlite

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestRankMatchesBM25 checks that cairn_tf with b = 0.75, weighted by
// inverse document frequencies counted apart, gives the score FTS5's own
// bm25() gives, for words, phrases, prefixes, AND and OR, across title and
// body columns.
func TestRankMatchesBM25(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	texts := []string{
		"the walrus sleeps on the ice\nwalrus walrus walrus\n",
		"ice cream and a busy timeout\nthe sqlite busy timeout is five seconds\n",
		"a long line about nothing in particular that goes on and on and on about the weather\n",
		"walrus facts: tusks, whiskers and the ice\nbusy walrus\n",
		"timeouts and retries\nretry with backoff on busy\n",
	}
	for i, text := range texts {
		d := doc("n", fmt.Sprintf("%d.md", i), text)
		if i%2 == 0 {
			d.Title = "walrus notes"
		}
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{d}}); err != nil {
			t.Fatal(err)
		}
	}
	var rows int64
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		match   string
		phrases []string
	}{
		{`"walrus"`, []string{`"walrus"`}},
		{`"walrus" AND "ice"`, []string{`"walrus"`, `"ice"`}},
		{`"busy" OR "timeout" OR "walrus"`, []string{`"busy"`, `"timeout"`, `"walrus"`}},
		{`"busy timeout"`, []string{`"busy timeout"`}},
		{`"time"* OR "the ice"`, []string{`"time"*`, `"the ice"`}},
		{`("sqlitebusy" OR "sqlite busy") AND "seconds"`, []string{`"sqlitebusy"`, `"sqlite busy"`, `"seconds"`}},
	}
	for _, tt := range tests {
		t.Run(tt.match, func(t *testing.T) {
			var idf []float64
			for _, p := range tt.phrases {
				var n int
				if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`, p).Scan(&n); err != nil {
					t.Fatal(err)
				}
				v := math.Log((float64(rows) - float64(n) + 0.5) / (float64(n) + 0.5))
				if v <= 0 {
					v = 1e-6
				}
				idf = append(idf, v)
			}
			r, err := s.r.QueryContext(ctx, `SELECT rowid, bm25(chunks_fts, `+bm25Weights+`), cairn_tf(chunks_fts, 0.75, `+bm25Weights+`)
				FROM chunks_fts WHERE chunks_fts MATCH ?`, tt.match)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			n := 0
			for r.Next() {
				var id int64
				var bm25 float64
				var tf []byte
				if err := r.Scan(&id, &bm25, &tf); err != nil {
					t.Fatal(err)
				}
				n++
				if len(tf) != 8*len(tt.phrases) {
					t.Fatalf("row %d: cairn_tf gave %d bytes, want %d", id, len(tf), 8*len(tt.phrases))
				}
				if got := score(tf, idf, nil); math.Abs(got+bm25) > 1e-9 {
					t.Errorf("row %d: score %.12f, bm25 %.12f", id, got, -bm25)
				}
				// The factors are the phrases' own, each in 0..k1+1.
				for i := range tt.phrases {
					if f := math.Float64frombits(binary.NativeEndian.Uint64(tf[8*i:])); f < 0 || f > 2.2 {
						t.Errorf("row %d phrase %d: factor %f out of range", id, i, f)
					}
				}
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Fatal("no rows matched: the case tests nothing")
			}
		})
	}
}

// TestSpan checks the constant-time span against a full count as chunks
// come and go.
func TestSpan(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	check := func(when string) {
		t.Helper()
		sp, err := s.Span(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var want cairn.IndexSpan
		if err := s.r.QueryRowContext(ctx, `SELECT count(*), coalesce(min(id), 0), coalesce(max(id), 0) FROM chunks`).
			Scan(&want.Rows, &want.MinID, &want.MaxID); err != nil {
			t.Fatal(err)
		}
		if sp != want {
			t.Errorf("%s: Span = %+v, want %+v", when, sp, want)
		}
	}
	check("empty")
	for i := range 300 {
		d := doc("n", fmt.Sprintf("%d.md", i), fmt.Sprintf("note %d\nline two %d\n", i, i))
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{d}}); err != nil {
			t.Fatal(err)
		}
	}
	check("after 300 documents") // 600 rows: a two-byte varint
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Remove: []string{"0.md", "7.md", "299.md"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GC(ctx); err != nil {
		t.Fatal(err)
	}
	check("after removals")
}

func TestVarint(t *testing.T) {
	tests := []struct {
		in   []byte
		want uint64
		ok   bool
	}{
		{[]byte{0x00}, 0, true},
		{[]byte{0x7f}, 127, true},
		{[]byte{0x81, 0x00}, 128, true},
		{[]byte{0x84, 0xd8, 0x58}, 4<<14 | 0x58<<7 | 0x58, true},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ^uint64(0), true},
		{[]byte{0x81}, 0, false},
		{nil, 0, false},
	}
	for _, tt := range tests {
		got, ok := varint(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("varint(% x) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestRankWithoutLength checks cairn_tf with b = 0 (what search uses)
// against occurrences counted in the chunks' own text: a title word counts
// twice, and the row's length plays no part.
func TestRankWithoutLength(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	texts := []string{
		"walrus\nwalrus walrus and a much longer line with many other words in it around the walrus\n",
		"ice\nthe walrus on the ice\n",
	}
	for i, text := range texts {
		d := doc("n", fmt.Sprintf("%d.md", i), text)
		if i == 1 {
			d.Title = "walrus notes"
		}
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{d}}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.r.QueryContext(ctx, `SELECT f.rowid, cairn_tf(chunks_fts, `+scoreArgs+`), ct.title, substr(ct.doc, c.pos + 1, c.len)
		FROM chunks_fts f JOIN chunks c ON c.id = f.rowid JOIN content ct ON ct.id = c.cid
		WHERE chunks_fts MATCH '"walrus"'`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for r.Next() {
		var id int64
		var tf []byte
		var title, text string
		if err := r.Scan(&id, &tf, &title, &text); err != nil {
			t.Fatal(err)
		}
		n++
		f := 2*float64(strings.Count(title, "walrus")) + float64(strings.Count(text, "walrus"))
		want := f * 2.2 / (f + 1.2)
		if got := math.Float64frombits(binary.NativeEndian.Uint64(tf)); math.Abs(got-want) > 1e-12 {
			t.Errorf("row %d (%q, title %q): factor %f, want %f", id, text, title, got, want)
		}
	}
	if n != 4 {
		t.Errorf("%d rows matched, want 4", n)
	}
}
