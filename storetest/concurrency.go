package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestConcurrency checks one writer beside many readers: no reader fails,
// and each sees whole batches only (a batch is one transaction). Run it
// under the race detector.
func TestConcurrency(t *testing.T, f Factory) {
	cases(t, f, []tcase{
		{"ReadersDuringAddingBatches", testReadersDuringAdds},
		{"ReadersDuringReplacingBatches", testReadersDuringReplaces},
		{"ReadersDuringWindowCommits", testReadersDuringCommits},
	})
}

const (
	readers   = 4
	batches   = 30
	batchDocs = 5
)

// during runs read in readers goroutines until write returns, then waits
// for them; each reader reads at least once after the last write.
func during(t *testing.T, write func(), read func() error) {
	t.Helper()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	reads := make([]int, readers)
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				stopped := false
				select {
				case <-stop:
					stopped = true
				default:
				}
				if err := read(); err != nil {
					t.Errorf("reader %d, read %d: %v", i, reads[i], err)
					return
				}
				reads[i]++
				if stopped {
					return
				}
			}
		}()
	}
	write()
	close(stop)
	wg.Wait()
	t.Logf("reads per reader: %v", reads)
}

// testReadersDuringAdds: each batch adds batchDocs documents holding
// "common"; every read counts a multiple of batchDocs.
func testReadersDuringAdds(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	whole := func(what string, n int) error {
		if n%batchDocs != 0 {
			return fmt.Errorf("%s saw %d documents, not whole batches of %d", what, n, batchDocs)
		}
		return nil
	}
	write := func() {
		for b := range batches {
			var docs []cairn.Document
			for i := range batchDocs {
				docs = append(docs, doc("n", fmt.Sprintf("%02d-%d.md", b, i), fmt.Sprintf("common text %d %d\n", b, i)))
			}
			if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: docs}); err != nil {
				t.Errorf("batch %d: %v", b, err)
				return
			}
		}
	}
	read := func() error {
		st, err := s.DocStates(ctx, "n")
		if err != nil {
			return err
		}
		if err := whole("DocStates", len(st)); err != nil {
			return err
		}
		res, err := s.Lexical(ctx, q(term("common"), limit(batches*batchDocs+1)))
		if err != nil {
			return err
		}
		if err := whole("Lexical", len(res.Candidates)); err != nil {
			return err
		}
		mc, err := s.MatchCount(ctx, string(term("common")), batches*batchDocs+1)
		if err != nil {
			return err
		}
		return whole("MatchCount", mc.N)
	}
	during(t, write, read)
	if st := docStates(t, s, "n"); len(st) != batches*batchDocs {
		t.Errorf("%d documents after the writes, want %d", len(st), batches*batchDocs)
	}
}

// testReadersDuringReplaces: each batch rewrites the same documents with
// the text of its generation and removes one more file; a search sees
// the documents of one generation, all of them.
func testReadersDuringReplaces(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	gen := func(g int) []cairn.Document {
		var docs []cairn.Document
		for i := range batchDocs {
			docs = append(docs, doc("n", fmt.Sprintf("%d.md", i), fmt.Sprintf("common gen%d file%d\n", g, i)))
		}
		return docs
	}
	apply(t, s, "n", gen(0))
	write := func() {
		for g := 1; g <= batches; g++ {
			if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: gen(g)}); err != nil {
				t.Errorf("generation %d: %v", g, err)
				return
			}
			if g%5 == 0 {
				if _, err := s.GC(ctx); err != nil {
					t.Errorf("gc after generation %d: %v", g, err)
					return
				}
			}
		}
	}
	read := func() error {
		res, err := s.Lexical(ctx, q(term("common")))
		if err != nil {
			return err
		}
		if len(res.Candidates) != batchDocs {
			return fmt.Errorf("Lexical saw %d documents, want %d (one whole generation): %v", len(res.Candidates), batchDocs, texts(res))
		}
		g := strings.Fields(res.Candidates[0].Text)[1]
		for _, c := range res.Candidates {
			if strings.Fields(c.Text)[1] != g {
				return fmt.Errorf("Lexical mixed generations: %v", texts(res))
			}
		}
		st, err := s.DocStates(ctx, "n")
		if err != nil {
			return err
		}
		if len(st) != batchDocs {
			return fmt.Errorf("DocStates saw %d documents, want %d", len(st), batchDocs)
		}
		return nil
	}
	during(t, write, read)
	if got := paths(t, s, q(term(fmt.Sprintf("gen%d", batches)))); len(got) != batchDocs {
		t.Errorf("the last generation is found in %v, want all %d documents", got, batchDocs)
	}
}

func texts(res *cairn.LexicalResult) []string {
	var out []string
	for _, c := range res.Candidates {
		out = append(out, strings.TrimSpace(c.Text))
	}
	return out
}

// testReadersDuringCommits: each window commits batchDocs memories; every
// listing counts a multiple of batchDocs, and every window's records are
// done together with its memories stored.
func testReadersDuringCommits(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	write := func() {
		for w := range batches {
			var ms []cairn.Memory
			var records []string
			for i := range batchDocs {
				r := fmt.Sprintf("r%02d-%d", w, i)
				records = append(records, r)
				ms = append(ms, memory("m-"+r, "fact", r))
			}
			if _, err := s.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: thread, Pass: "main", Records: records, Memories: ms}); err != nil {
				t.Errorf("window %d: %v", w, err)
				return
			}
		}
	}
	read := func() error {
		ms, err := s.Memories(ctx, cairn.MemoryFilter{})
		if err != nil {
			return err
		}
		if len(ms)%batchDocs != 0 {
			return fmt.Errorf("Memories saw %d, not whole windows of %d", len(ms), batchDocs)
		}
		cp, err := s.DoneRecords(ctx, "sessions", thread, "main")
		if err != nil {
			return err
		}
		if len(cp)%batchDocs != 0 {
			return fmt.Errorf("DoneRecords saw %d, not whole windows of %d", len(cp), batchDocs)
		}
		if len(cp) < len(ms) {
			return fmt.Errorf("DoneRecords saw %d records done after Memories saw %d memories", len(cp), len(ms))
		}
		return nil
	}
	during(t, write, read)
	if ms := listMemories(t, s, cairn.MemoryFilter{}); len(ms) != batches*batchDocs {
		t.Errorf("%d memories after the writes, want %d", len(ms), batches*batchDocs)
	}
}
