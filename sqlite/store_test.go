package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
)

func openStore(t *testing.T, path, feature string) *Store {
	t.Helper()
	s := New(path, feature)
	if err := s.Open(context.Background()); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// doc makes a one-chunk document per line of text.
func doc(corpus, path, text string) cairn.Document {
	d := cairn.Document{Corpus: corpus, Path: path, Text: text, Hash: fmt.Sprintf("h-%x", len(text)) + "-" + text[:min(8, len(text))], Size: int64(len(text))}
	pos := 0
	for i, line := range strings.SplitAfter(text, "\n") {
		if line == "" {
			continue
		}
		d.Chunks = append(d.Chunks, cairn.Chunk{Seq: i, Pos: pos, Len: len(line), StartLine: i + 1, EndLine: i + 1})
		pos += len(line)
	}
	return d
}

func TestStoreWriteSearchGC(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	a := doc("notes", "a.md", "alpha walrus\nbeta\n")
	b := doc("work", "b.md", "walrus gamma\n")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{a}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "work", Upserts: []cairn.Document{b}}); err != nil {
		t.Fatal(err)
	}
	lex := func(word string, corpora ...string) []string {
		t.Helper()
		res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term(word), Corpora: corpora, Limit: 10})
		if err != nil {
			t.Fatalf("Lexical(%s): %v", word, err)
		}
		var out []string
		for _, x := range res.Candidates {
			out = append(out, fmt.Sprintf("%s/%s:%d:%s", x.Corpus, x.Path, x.StartLine, strings.TrimSpace(x.Text)))
		}
		return out
	}
	if got := lex("walrus"); len(got) != 2 {
		t.Errorf("walrus = %v, want two hits", got)
	}
	if got := lex("walrus", "work"); strings.Join(got, ";") != "work/b.md:1:walrus gamma" {
		t.Errorf("walrus in work = %v", got)
	}
	if got := lex("beta"); strings.Join(got, ";") != "notes/a.md:2:beta" {
		t.Errorf("beta = %v: chunk text and line must come from offsets", got)
	}
	if m, err := s.MatchCount(ctx, cairn.Term("walrus"), 1); err != nil || m.N != 1 || m.Low == 0 {
		t.Errorf("MatchCount capped at 1 = %+v, %v", m, err)
	}
	if _, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.AllOf(), Limit: 1}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("a group without members = %v, want ErrInvalid", err)
	}
	if _, err := s.countExpr(ctx, `"unbalanced`, 1); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("bad FTS syntax error = %v, want ErrInvalid", err)
	}

	// A document that points at stored content needs no chunks (rename).
	renamed := a
	renamed.Path, renamed.Chunks = "renamed.md", nil
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{renamed}, Remove: []string{"a.md"}}); err != nil {
		t.Fatal(err)
	}
	if got := lex("beta"); strings.Join(got, ";") != "notes/renamed.md:2:beta" {
		t.Errorf("after rename beta = %v", got)
	}
	// Unknown content without chunks is refused.
	ghost := cairn.Document{Path: "ghost.md", Hash: "nope"}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{ghost}}); err == nil {
		t.Error("Apply with unknown content and no chunks succeeded")
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "work", Remove: []string{"b.md"}}); err != nil {
		t.Fatal(err)
	}
	if got := lex("gamma"); len(got) != 0 {
		t.Errorf("removed document still found: %v", got)
	}
	if n, err := s.GC(ctx); err != nil || n != 1 {
		t.Errorf("GC = %d, %v; want 1 orphan", n, err)
	}
	if m, err := s.MatchCount(ctx, cairn.Term("gamma"), 10); err != nil || m.N != 0 {
		t.Errorf("postings of collected content: %+v, %v", m, err)
	}
	if n, err := s.PruneCorpora(ctx, []string{"work"}); err != nil || n != 1 {
		t.Errorf("PruneCorpora = %d, %v; want 1", n, err)
	}
}

func TestStoreVersions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s := openStore(t, path, "f1")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{doc("n", "a.md", "kept\n")}}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	same := openStore(t, path, "f1")
	if same.Reindexed {
		t.Error("same feature version reported Reindexed")
	}
	if st, _ := same.Stats(ctx); st.Documents != 1 {
		t.Errorf("reopen lost documents: %+v", st)
	}
	same.Close()

	changed := openStore(t, path, "f2")
	if !changed.Reindexed {
		t.Error("feature change not reported")
	}
	if st, _ := changed.Stats(ctx); st.Documents != 0 || st.Chunks != 0 {
		t.Errorf("feature change kept rows: %+v", st)
	}
	if _, err := changed.w.Exec(`UPDATE meta SET value='99' WHERE key='schema_version'`); err != nil {
		t.Fatal(err)
	}
	changed.Close()
	newer := New(path, "f2")
	err := newer.Open(ctx)
	if err == nil || !strings.Contains(err.Error(), "newer than this binary") {
		t.Errorf("newer schema: %v", err)
	}
}

// TestConcurrentReadsDuringWrites checks readers never fail while the writer
// commits; run with -race.
func TestConcurrentReadsDuringWrites(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("common"), Limit: 5}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 50 {
		d := doc("n", fmt.Sprintf("%d.md", i), fmt.Sprintf("common text %d\nmore %d\n", i, i))
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{d}}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("read during writes: %v", err)
	}
}

func TestLexicalCap(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	var docs []cairn.Document
	for i := range 6 {
		// Older documents repeat the word more, so uncapped they rank first.
		docs = append(docs, doc("n", fmt.Sprintf("%d.md", i), strings.Repeat("common ", 6-i)+fmt.Sprintf("doc%d\n", i)))
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: docs}); err != nil {
		t.Fatal(err)
	}
	paths := func(capN int, corpora ...string) (out []string, capped bool) {
		res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("common"), Limit: 10, MaxCandidates: capN, Corpora: corpora})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range res.Candidates {
			out = append(out, x.Path)
			capped = x.Capped
		}
		return out, capped
	}
	if got, capped := paths(0); len(got) != 6 || got[0] != "0.md" || capped {
		t.Errorf("uncapped = %v capped=%v; want all six, 0.md first", got, capped)
	}
	if got, capped := paths(2); strings.Join(got, ",") != "4.md,5.md" || !capped {
		t.Errorf("cap 2 = %v capped=%v; want the two newest, scored", got, capped)
	}
	if got, capped := paths(10); len(got) != 6 || capped {
		t.Errorf("cap above the match count = %v capped=%v", got, capped)
	}
	if got, _ := paths(2, "other"); len(got) != 0 {
		t.Errorf("filter to an empty corpus = %v", got)
	}
}

func TestVectors(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	d := doc("n", "a.md", "alpha\nbeta\n")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{d}}); err != nil {
		t.Fatal(err)
	}
	pending, err := s.PendingChunks(ctx, "id-1", 10)
	if err != nil || len(pending) != 2 || pending[0].Text != "alpha\n" {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	if err := s.PutVectors(ctx, "id-1", []int64{pending[0].ID}, [][]float32{{0.6, -0.8}}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.CountPending(ctx, "id-1"); n != 1 {
		t.Errorf("pending after one vector = %d, want 1", n)
	}
	if n, _ := s.CountPending(ctx, "id-2"); n != 2 {
		t.Errorf("another identity sees %d pending, want 2: vector spaces never mix", n)
	}
	var got []float32
	s.EachVector(ctx, "id-1", func(id int64, v []float32) error { got = append([]float32(nil), v...); return nil })
	if len(got) != 2 || got[0] != 0.6 || got[1] != -0.8 {
		t.Errorf("vector round trip = %v", got)
	}
	s.Apply(ctx, &cairn.Batch{Corpus: "n", Remove: []string{"a.md"}})
	s.GC(ctx)
	n := 0
	s.EachVector(ctx, "id-1", func(int64, []float32) error { n++; return nil })
	if n != 0 {
		t.Errorf("%d vectors left after their chunk was collected", n)
	}
}

// TestScanTopMatchesGoScoring checks the pass that keeps the best rows in
// SQLite (cairn_score) against scoring every row in Go from cairn_tf: the
// same rows, scores equal bit for bit, the same scan statistics.
func TestScanTopMatchesGoScoring(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	r := rand.New(rand.NewPCG(5, 6))
	words := strings.Fields("alpha beta gamma delta walrus ice the of busy timeout")
	var docs []cairn.Document
	for i := range 300 {
		var b strings.Builder
		for range 3 + r.IntN(30) {
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		docs = append(docs, doc("n", fmt.Sprintf("%d.md", i), b.String()+"\n"))
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: docs}); err != nil {
		t.Fatal(err)
	}
	for _, match := range []string{`"walrus"`, `"alpha" OR "beta" OR "ice"`, `"busy" AND "timeout"`, "\"\x1fof the\" OR \"gamma\"", `"nothing"`} {
		for _, capN := range []int{0, 1, 40, 1000} {
			idf := []float64{1.7, 0.3, 2.9}
			q := lexicalQuery{cairn.LexicalQuery{Limit: 7, MaxCandidates: capN}, compiled{expr: match, idf: idf}}
			got := &cairn.LexicalResult{}
			tx, err := s.r.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			top, err := s.scanTop(ctx, tx, q, got)
			tx.Rollback()
			if err != nil {
				t.Fatal(err)
			}
			// The reference: every row newest first, up to the cap, scored in Go.
			rows, err := s.r.QueryContext(ctx, `SELECT rowid, cairn_tf(chunks_fts, `+scoreArgs+`) FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC`, match)
			if err != nil {
				t.Fatal(err)
			}
			var all []scored
			want := cairn.LexicalResult{}
			for rows.Next() {
				var m scored
				var tf []byte
				if err := rows.Scan(&m.id, &tf); err != nil {
					t.Fatal(err)
				}
				if capN > 0 && want.Scanned == capN {
					want.Capped = true
					break
				}
				m.score = score(tf, idf, nil)
				all = append(all, m)
				want.Scanned++
				want.Low = m.id
			}
			rows.Close()
			slices.SortFunc(all, func(a, b scored) int {
				if worse(a, b) {
					return 1
				}
				if worse(b, a) {
					return -1
				}
				return 0
			})
			all = all[:min(len(all), q.Limit)]
			name := fmt.Sprintf("%s cap %d", match, capN)
			if !slices.Equal(top, all) {
				t.Errorf("%s: top %v, want %v", name, top, all)
			}
			if got.Scanned != want.Scanned || got.Capped != want.Capped || got.Low != want.Low {
				t.Errorf("%s: scanned %d capped %v low %d, want %d %v %d", name, got.Scanned, got.Capped, got.Low, want.Scanned, want.Capped, want.Low)
			}
		}
	}
}
