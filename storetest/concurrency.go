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
		{"ReadersDuringVectorsAndSleep", testReadersDuringVectorsAndSleep},
		{"WritersAtOnceAreSerialized", testWritersAtOnce},
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
		mc, err := s.MatchCount(ctx, term("common"), batches*batchDocs+1)
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

// testReadersDuringVectorsAndSleep: vectors stored batchDocs at a time
// and sleep groups of three members are seen whole.
func testReadersDuringVectorsAndSleep(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	var docs []cairn.Document
	var ms []cairn.Memory
	var records []string
	for i := range batches * batchDocs {
		docs = append(docs, doc("n", fmt.Sprintf("%03d.md", i), fmt.Sprintf("vector text %d\n", i)))
	}
	for i := range batches * 3 {
		r := fmt.Sprintf("r%03d", i)
		records = append(records, r)
		ms = append(ms, memory("m-"+r, "fact", r))
	}
	apply(t, s, "n", docs)
	commit(t, s, cairn.WindowCommit{Records: records, Memories: ms})
	var ids []int64
	if err := s.ChunkDocs(ctx, func(id int64, _, _ string) { ids = append(ids, id) }); err != nil {
		t.Fatal(err)
	}
	write := func() {
		for b := range batches {
			vecs := make([][]float32, batchDocs)
			for i := range vecs {
				vecs[i] = []float32{float32(b), float32(i)}
			}
			if err := s.PutVectors(ctx, "id-1", ids[b*batchDocs:(b+1)*batchDocs], vecs); err != nil {
				t.Errorf("vectors %d: %v", b, err)
				return
			}
			group := []string{ms[3*b].ID, ms[3*b+1].ID, ms[3*b+2].ID}
			if err := s.ApplySleep(ctx, cairn.SleepChange{Members: group}); err != nil {
				t.Errorf("sleep group %d: %v", b, err)
				return
			}
		}
	}
	read := func() error {
		n, err := s.CountVectors(ctx, "id-1")
		if err != nil {
			return err
		}
		walked := 0
		if err := s.EachVector(ctx, "id-1", func(int64, []float32) error { walked++; return nil }); err != nil {
			return err
		}
		if n%batchDocs != 0 || walked%batchDocs != 0 {
			return fmt.Errorf("counted %d vectors and walked %d, not whole batches of %d", n, walked, batchDocs)
		}
		pairs, err := s.JudgedPairs(ctx)
		if err != nil {
			return err
		}
		if len(pairs)%3 != 0 {
			return fmt.Errorf("JudgedPairs saw %d pairs, not whole groups of 3", len(pairs))
		}
		return nil
	}
	during(t, write, read)
	if n := count(t, "vectors", s.CountVectors, "id-1"); n != batches*batchDocs {
		t.Errorf("%d vectors after the writes, want %d", n, batches*batchDocs)
	}
}

// testWritersAtOnce: writes from several goroutines at once (a sync, a
// consolidation, an embedder, a session sync) all succeed: the storage
// serializes them.
func testWritersAtOnce(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	var wg sync.WaitGroup
	writers := []func(i int) error{
		func(i int) error {
			return s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{doc("n", fmt.Sprintf("%d.md", i), fmt.Sprintf("walrus %d\n", i))}})
		},
		func(i int) error {
			r := fmt.Sprintf("r%d", i)
			_, err := s.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: thread, Pass: "main", Records: []string{r},
				Memories: []cairn.Memory{memory("m-"+r, "fact", r)}})
			return err
		},
		func(i int) error {
			return s.PutSession(ctx, session("sessions", fmt.Sprintf("s%d.md", i), "/t/a.jsonl", t0))
		},
		func(i int) error {
			return s.PutTranscriptState(ctx, cairn.TranscriptState{Corpus: "sessions", Source: cairn.SourceCodex, Path: fmt.Sprintf("/t/%d.jsonl", i)})
		},
	}
	for w, write := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range batches {
				if err := write(i); err != nil {
					t.Errorf("writer %d, write %d: %v", w, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if st := docStates(t, s, "n"); len(st) != batches {
		t.Errorf("%d documents, want %d", len(st), batches)
	}
	if ms := listMemories(t, s, cairn.MemoryFilter{}); len(ms) != batches {
		t.Errorf("%d memories, want %d", len(ms), batches)
	}
	if rs, err := s.SessionsOf(ctx, "sessions", ""); err != nil || len(rs) != batches {
		t.Errorf("%d sessions, %v; want %d", len(rs), err, batches)
	}
	if ts, err := s.TranscriptStates(ctx, "sessions"); err != nil || len(ts) != batches {
		t.Errorf("%d transcript states, %v; want %d", len(ts), err, batches)
	}
}
