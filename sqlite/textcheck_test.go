package sqlite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestCheckTextsFindsGarbledBytes: bytes changed inside a stored text in
// the file itself (the b-tree sound, so integrity_check and FTS5's check
// pass) are found by CheckTexts, which names every document holding that
// text and none other; ForgetText then GC take the text and its chunks
// away, and indexing the documents again (what the next sync does) leaves
// the check clean and the search showing the right text.
func TestCheckTextsFindsGarbledBytes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s := New(path, "f1")
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	good := hashedDoc("notes", "good.md", "alpha walrus\nbeta\n")
	bad := hashedDoc("notes", "bad.md", "gamma platypus\nquokka marker\n")
	twin := bad
	twin.Path = "twin.md" // the same text: one content row for both
	other := hashedDoc("work", "other.md", "delta narwhal\n")
	for _, b := range []*cairn.Batch{
		{Corpus: "notes", Upserts: []cairn.Document{good, bad, twin}},
		{Corpus: "work", Upserts: []cairn.Document{other}},
	} {
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Garble one byte of the stored text in the file, as a bad disk does.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(raw, []byte("quokka marker"))
	if at < 0 || bytes.Count(raw, []byte("quokka marker")) != 1 {
		t.Fatalf("the stored text is not in index.db once (at %d): the test needs a checkpointed file", at)
	}
	raw[at] = 'Q'
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}

	s = openStore(t, path, "f1")
	if problems, err := s.Integrity(ctx, false); err != nil || len(problems) > 0 {
		t.Fatalf("integrity_check = %v, %v; the garbled byte must leave the file sound for this test", problems, err)
	}
	if err := s.CheckFTS(ctx); err != nil {
		t.Fatalf("FTS5 integrity-check: %v", err)
	}
	damaged := func(texts int) []string {
		t.Helper()
		var out []string
		n, _, err := s.CheckTexts(ctx, func(corpus, path, why string) { out = append(out, corpus+"/"+path+": "+why) })
		if err != nil {
			t.Fatal(err)
		}
		if n != texts {
			t.Errorf("CheckTexts read %d texts, want %d", n, texts)
		}
		slices.Sort(out)
		return out
	}
	got := damaged(3)
	want := []string{"notes/bad.md: stored text no longer matches its hash", "notes/twin.md: stored text no longer matches its hash"}
	if !slices.Equal(got, want) {
		t.Fatalf("CheckTexts = %q, want %q", got, want)
	}

	for _, p := range []string{"bad.md", "twin.md"} {
		if err := s.ForgetText(ctx, "notes", p); err != nil {
			t.Fatal(err)
		}
	}
	if pending, err := s.GCPending(ctx); err != nil || !pending {
		t.Errorf("GCPending after ForgetText = %v, %v; want true", pending, err)
	}
	if n, err := s.GC(ctx); err != nil || n != 1 {
		t.Fatalf("GC = %d, %v; want the garbled text collected", n, err)
	}
	// Until indexed again, the documents are in no search and the check
	// names them as waiting for their text.
	res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("platypus"), Limit: 10})
	if err != nil || len(res.Candidates) != 0 {
		t.Errorf("platypus before the re-index = %+v, %v; want no hits", res.Candidates, err)
	}
	got = damaged(2)
	want = []string{"notes/bad.md: stored text missing or under another hash", "notes/twin.md: stored text missing or under another hash"}
	if !slices.Equal(got, want) {
		t.Errorf("CheckTexts after ForgetText = %q, want %q", got, want)
	}
	states, err := s.DocStates(ctx, "notes")
	if err != nil {
		t.Fatal(err)
	}
	if st := states["bad.md"]; st.Hash != "" || st.ModTime != -1 {
		t.Errorf("bad.md's state after ForgetText = %+v; want no hash and mtime -1 (a sync reads it again)", st)
	}

	// What the next sync writes: the documents from their files.
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{bad, twin}}); err != nil {
		t.Fatal(err)
	}
	if got := damaged(3); len(got) != 0 {
		t.Errorf("CheckTexts after the re-index = %q, want none", got)
	}
	res, err = s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("quokka"), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range res.Candidates {
		texts = append(texts, c.Path+":"+strings.TrimSpace(c.Text))
	}
	slices.Sort(texts)
	if !slices.Equal(texts, []string{"bad.md:quokka marker", "twin.md:quokka marker"}) {
		t.Errorf("quokka after the re-index = %q", texts)
	}
	if st, err := s.FindStrays(ctx); err != nil || st.Total() != 0 {
		t.Errorf("strays after the repair = %+v, %v", st, err)
	}
}
