package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// pretokDocs are documents whose chunks exercise the tokenizer: common
// words that pair, the index's own pair word, diacritics, a token longer
// than 127 bytes (the long length form), an empty identifier text, a
// title, and content two documents share.
func pretokDocs() []cairn.Document {
	long := strings.Repeat("x", 200)
	texts := []string{
		"# The Walrus\nthe walrus and the carpenter were walking close at hand\nnaïve café résumé of the sea\n",
		"parseConfigFile reads cairn.toml in the home of the user\n" + long + " of the " + long + "\n",
		"colony colony of colony\n!!! ...\n",
	}
	var docs []cairn.Document
	for i, text := range texts {
		d := doc("notes", string(rune('a'+i))+".md", text)
		d.Title = strings.TrimPrefix(strings.SplitN(text, "\n", 2)[0], "# ")
		for j := range d.Chunks {
			c := &d.Chunks[j]
			if j == 0 {
				c.Ident = "parse config file parseconfigfile"
			}
		}
		docs = append(docs, d)
	}
	dup := docs[0]
	dup.Path = "dup.md"
	return append(docs, dup)
}

// TestPretokenizedWriteSame: a batch written through PrepareApply indexes
// the same postings (terms, chunks, columns, positions) and column sizes
// as Apply does, with and without the table's own pair words, and the
// table's tokenizer tokenizes none of its values itself: every one is
// pretokenized. Before PrepareApply the writer tokenized every value.
func TestPretokenizedWriteSame(t *testing.T) {
	ctx := context.Background()
	for _, words := range [][]string{nil, {"colony"}} {
		var got [2][]string
		for k, pre := range []bool{false, true} {
			s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
			if words != nil {
				if err := s.Apply(ctx, &cairn.Batch{Corpus: "seed", Upserts: []cairn.Document{doc("seed", "s.md", "seed colony\n")}}); err != nil {
					t.Fatal(err)
				}
				if _, err := s.RebuildPairs(ctx, words, 100); err != nil {
					t.Fatal(err)
				}
				if w, err := s.PairWords(ctx); err != nil || !slices.Equal(w, words) {
					t.Fatalf("pair words %q, %v; want %q", w, err, words)
				}
			}
			b := &cairn.Batch{Corpus: "notes", Upserts: pretokDocs()}
			v0, r0 := docCounts()
			if pre {
				apply, err := s.PrepareApply(ctx, b, 2)
				if err != nil {
					t.Fatal(err)
				}
				if err := apply(ctx); err != nil {
					t.Fatal(err)
				}
			} else if err := s.Apply(ctx, b); err != nil {
				t.Fatal(err)
			}
			v1, r1 := docCounts()
			rows := 0
			for _, d := range b.Upserts[:3] { // dup.md shares a.md's content
				rows += len(d.Chunks)
			}
			wantReplays := int64(0)
			if pre {
				wantReplays = int64(3 * rows)
			}
			if v1-v0 != int64(3*rows) || r1-r0 != wantReplays {
				t.Fatalf("words %q pretokenized %v: %d values tokenized, %d of them pretokenized; want %d, %d", words, pre, v1-v0, r1-r0, 3*rows, wantReplays)
			}
			got[k] = append(postings(t, s), docsizes(t, s)...)
		}
		if len(got[0]) < 40 || !slices.Equal(got[0], got[1]) {
			t.Fatalf("words %q: %d postings from Apply, %d pretokenized; equal %v", words, len(got[0]), len(got[1]), slices.Equal(got[0], got[1]))
		}
	}
}

// docsizes lists chunks_fts's column sizes by row.
func docsizes(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.r.Query(`SELECT id, hex(sz) FROM chunks_fts_docsize ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, sz string
		if err := rows.Scan(&id, &sz); err != nil {
			t.Fatal(err)
		}
		out = append(out, "size "+id+" "+sz)
	}
	return out
}

// TestPretokenizedOtherTokenizer: values made by a tokenizer with other
// arguments than the table's are refused by the table's tokenizer, and
// the batch is written from its text: the index is what Apply makes.
func TestPretokenizedOtherTokenizer(t *testing.T) {
	ctx := context.Background()
	var got [2][]string
	for k, forge := range []bool{false, true} {
		s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
		b := &cairn.Batch{Corpus: "notes", Upserts: pretokDocs()}
		if !forge {
			if err := s.Apply(ctx, b); err != nil {
				t.Fatal(err)
			}
			got[k] = postings(t, s)
			continue
		}
		p, err := s.pretokenizeBatch(ctx, b, 1, tokArgs([]string{"walrus"}))
		if err != nil {
			t.Fatal(err)
		}
		p.key = strings.Join(tokArgs(nil), "\x00") // as if made for this table
		if err := s.apply(ctx, b, p); !isMismatch(err) {
			t.Fatalf("forged values: %v, want SQLITE_MISMATCH", err)
		}
		_, r0 := docCounts()
		if err := s.applyPrepared(ctx, b, p); err != nil {
			t.Fatal(err)
		}
		if _, r1 := docCounts(); r1-r0 != 1 { // the first value refused, then the text
			t.Fatalf("%d values replayed, want 1 (refused)", r1-r0)
		}
		got[k] = postings(t, s)
	}
	if len(got[0]) < 40 || !slices.Equal(got[0], got[1]) {
		t.Fatalf("%d postings from Apply, %d after the refusal; equal %v", len(got[0]), len(got[1]), slices.Equal(got[0], got[1]))
	}
}

// TestPretokenHeaderInText: a stored text that starts as a pretokenized
// value does, but without the process's key, is indexed as text.
func TestPretokenHeaderInText(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	fake := "\x1f\x1eCT" + strings.Repeat("k", 16) + "\x00\x00\x00\x00\x00\x00\x00\x00\x05walrus of the sea\n"
	d := doc("notes", "fake.md", fake)
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{d}}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("walrus"), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 1 {
		t.Fatalf("walrus: %d hits, want the forged text's 1", len(res.Candidates))
	}
}

// TestPretokenizeGrowsBuffer: a value longer than the room first given
// to it is made whole in a second call, equal to one made with room.
func TestPretokenizeGrowsBuffer(t *testing.T) {
	tok, key, err := pretokenizers.get(tokArgs(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer pretokenizers.put(key, tok)
	text := strings.Repeat("the walrus of the sea ", 20)
	var roomy arena
	want, err := roomy.pretokenize(tok, text)
	if err != nil {
		t.Fatal(err)
	}
	block, guess := arenaBlock, valueGuess
	arenaBlock, valueGuess = 8, func(int) int { return 1 }
	defer func() { arenaBlock, valueGuess = block, guess }()
	var tight arena
	got, err := tight.pretokenize(tok, text)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 100 || string(got) != string(want) {
		t.Fatalf("value of %d bytes made in a small block, %d with room; equal %v", len(got), len(want), string(got) == string(want))
	}
}
