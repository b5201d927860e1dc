package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"sync"
	"unsafe"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/chunk"
	"github.com/cairnmemory/cairn/ingest"
	"github.com/cairnmemory/cairn/redact"
	"github.com/cairnmemory/cairn/search"
)

// redactVersion names the redaction a redacting files corpus gets (package
// redact's rules, and the newlines it keeps). Bump it when those rules
// change: the next sync then reads every file of such a corpus again (see
// syncCorpus). 2: fixed-shape keys with "example" or "your" among their
// letters (AWS's AKIAIOSFODNN7EXAMPLE) are redacted. 3: a password given in prose
// ("the password is hunter2", dcf0dc1) is redacted. 4: a value a rule
// redacted is also redacted at its bare repeats in the same document
// (notes, memories' fields one by one, a session as a whole through
// redactSession; ux F5). 5: this session's forms (rx, ux F1-F4, F10, F13,
// F22, F24: a token after an ANSI colour code or glued to a word, quoted
// headers, mysql/sshpass/docker login -p, session cookies, "$ cmd" output
// of a secret fetch, next-line YAML/JSON passwords, Markdown tables, HTML
// comments, more provider keys, .netrc/.pgpass, XML and percent-encoded
// forms: 9df4c97 a718c46 8300181 2f056aa 7e79e9c e54bce9 9cea643). 6:
// pasted command output ends at a code fence, prompt or heading, and
// prose/.netrc values stop at quotes and punctuation (rz, ux F26: ea20c80
// 1636b24 5053182 20220be); a note indexed under 5 with a fenced `$ printenv`
// block lost its closing fence and the lines after it. 7: the scan refuses
// a file whose path holds a secret (04ea4ec, ux F23), so a note indexed
// under such a name by an older build leaves the index once its corpus is
// read again; and a prose value that describes the secret stays (lo, ux
// F26). 8: a token with an invisible character inside (ux U1, 0c927ff),
// more providers' tokens (U2, a77ae05, 85376fa), an AWS secret beside its
// key id, seed phrases, password prose in 17 more languages, password
// hashes, PINs and Wi-Fi passwords (U2-U5, a77ae05), SQL and tool-flag
// passwords (U17, 5c88245), name/value pairs and secret-store command
// lines (U21, 0e8dce0), JSON-escaped '=' in assignments (aaaa4dc); URL
// passwords of three bytes or fewer stay (U20, a7aebbe).
const redactVersion = "8"

// redactState is the redaction state of c's documents as the store records
// it: "v<redactVersion>", or "off" for a corpus with redact = false.
func redactState(c cairn.Corpus) string {
	if c.NoRedact {
		return "off"
	}
	return "v" + redactVersion
}

// tally is what one batch changes in a corpus's result, added only once
// the batch is committed.
type tally struct {
	added, updated, chunks int
	redactions             map[string]int
}

func (t *tally) add(o tally) {
	t.added += o.added
	t.updated += o.updated
	t.chunks += o.chunks
	t.count(o.redactions)
}

func (t *tally) count(c map[string]int) {
	for k, n := range c {
		if t.redactions == nil {
			t.redactions = map[string]int{}
		}
		t.redactions[k] += n
	}
}

func (t tally) addTo(r *cairn.CorpusSyncResult) {
	r.Added += t.added
	r.Updated += t.updated
	r.Chunks += t.chunks
	for k, n := range t.redactions {
		if r.Redactions == nil {
			r.Redactions = map[string]int{}
		}
		r.Redactions[k] += n
	}
}

// loaded is one file read, redacted and hashed by a worker.
type loaded struct {
	file     ingest.File
	text     string
	hash     string
	redacted redact.Counts
	err      error
	doc      *cairn.Document
}

func hashText(text string) string {
	// The text's bytes as they are: Sum256 only reads them, and the
	// conversion copied every file's text once more (16 MB of the docs
	// corpus of issue 19).
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(text), len(text)))
	return hex.EncodeToString(sum[:])
}

// prepareBatch reads files, redacts them (unless c opts out) right after
// the read, so that what is hashed, chunked, stored, searched, shown and
// embedded is the redacted text; Redact keeps the line count, so hits'
// line ranges still name the file's lines. It returns the batch to write
// (nil when nothing needs writing) and what the batch will change. Read
// failures are listed in r; a path that is no longer valid is marked not
// to keep, others keep their indexed snapshot. Files read are marked in
// read. sent holds the content hashes of batches already handed to the
// writer (see buildBatch). It runs on workers goroutines.
func (e *Engine) prepareBatch(ctx context.Context, c cairn.Corpus, files []ingest.File, states map[string]cairn.DocState,
	r *cairn.CorpusSyncResult, keep, read, sent map[string]bool, workers int) (*cairn.Batch, tally, error) {
	items := make([]loaded, len(files))
	parallel(workers, len(files), func(i int) {
		it := &items[i]
		it.file = files[i]
		it.text, it.err = ingest.Read(files[i], e.opts.MaxFileSize)
		if it.err == nil {
			if !c.NoRedact {
				it.text, it.redacted = redact.Redact(it.text)
			}
			it.hash = hashText(it.text)
		}
	})
	for i := range items {
		it := &items[i]
		if it.err == nil {
			read[it.file.Rel] = true
			continue
		}
		var re *ingest.ReadError
		if !errors.As(it.err, &re) {
			return nil, tally{}, it.err
		}
		r.Failures = append(r.Failures, re.Failure())
		keep[it.file.Rel] = !re.Drop
	}
	return e.buildBatch(ctx, c.Name, items, states, r, sent, workers)
}

// buildBatch chunks the new content among items (those read without error)
// and returns the batch that writes it. Content in sent (nil: none) belongs
// to an earlier batch of this sync that the writer may not have committed
// yet: it is neither chunked nor counted again, and the document refers to
// it as stored content (batches commit in order, and none after a failed
// one). Added to sent are the hashes this batch writes. Chunking runs on
// workers goroutines.
func (e *Engine) buildBatch(ctx context.Context, corpus string, items []loaded, states map[string]cairn.DocState,
	r *cairn.CorpusSyncResult, sent map[string]bool, workers int) (*cairn.Batch, tally, error) {
	b := &cairn.Batch{Corpus: corpus}
	var t tally
	var fresh []string
	for i := range items {
		it := &items[i]
		if it.err != nil {
			continue
		}
		f := it.file
		st, existed := states[f.Rel]
		if existed && st.Hash == it.hash {
			if st.Size != f.Size || st.ModTime != f.ModTime {
				b.Touch = append(b.Touch, cairn.DocState{Path: f.Rel, Hash: it.hash, Size: f.Size, ModTime: f.ModTime})
			}
			r.Unchanged++
			continue
		}
		if existed {
			t.updated++
		} else {
			t.added++
		}
		t.count(it.redacted)
		it.doc = &cairn.Document{Corpus: corpus, Path: f.Rel, Hash: it.hash, Text: it.text, Size: f.Size, ModTime: f.ModTime}
		if !sent[it.hash] {
			fresh = append(fresh, it.hash)
		}
	}
	stored, err := e.store.HasContent(ctx, fresh)
	if err != nil {
		return nil, tally{}, err
	}
	has := func(h string) bool { return stored[h] || sent[h] }
	// Chunk each new content once, even when several files share it.
	first := map[string]int{}
	for i := range items {
		if d := items[i].doc; d != nil && !has(d.Hash) {
			if _, dup := first[d.Hash]; !dup {
				first[d.Hash] = i
			}
		}
	}
	parallel(workers, len(items), func(i int) {
		if d := items[i].doc; d != nil && first[d.Hash] == i && !has(d.Hash) {
			d.Title = chunk.Title(d.Text)
			d.Chunks = e.chunkerFor(corpus).Chunk(d.Text) // memories: their retrieval keys (recall_keys.go)
			if d.Chunks == nil {
				d.Chunks = []cairn.Chunk{}
			}
			for i := range d.Chunks {
				if c := &d.Chunks[i]; !c.Noise {
					c.Ident = search.IdentText(d.Text[c.Pos : c.Pos+c.Len])
				}
			}
		}
	})
	for i := range items {
		if d := items[i].doc; d != nil {
			t.chunks += len(d.Chunks)
			b.Upserts = append(b.Upserts, *d)
			if sent != nil && d.Chunks != nil {
				sent[d.Hash] = true
			}
		}
	}
	if len(b.Upserts)+len(b.Touch) == 0 {
		return nil, t, nil
	}
	return b, t, nil
}

// redactKept redacts the stored snapshots of documents that are kept
// without having been read in this sync (their root is missing, the file
// is unreadable for now), for a corpus indexed before its redaction: their
// secrets must not stay in the index until the file can be read again.
// Size and mtime stay those of the file the snapshot came from, so the
// next sync that can read it skips it when it is unchanged.
func (e *Engine) redactKept(ctx context.Context, corpus string, states map[string]cairn.DocState,
	keep, read map[string]bool, r *cairn.CorpusSyncResult) (tally, error) {
	var paths []string
	for p := range states {
		if keep[p] && !read[p] {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var done tally
	for len(paths) > 0 {
		n := min(len(paths), e.opts.BatchSize)
		var items []loaded
		for _, p := range paths[:n] {
			text, err := e.store.DocumentText(ctx, corpus, p)
			if errors.Is(err, cairn.ErrNotFound) {
				continue
			}
			if err != nil {
				return done, err
			}
			clean, counts := redact.Redact(text)
			if clean == text {
				continue
			}
			st := states[p]
			items = append(items, loaded{file: ingest.File{Rel: p, Size: st.Size, ModTime: st.ModTime},
				text: clean, hash: hashText(clean), redacted: counts})
		}
		paths = paths[n:]
		b, t, err := e.buildBatch(ctx, corpus, items, states, r, nil, e.opts.Workers)
		if err == nil && b != nil {
			err = e.store.Apply(ctx, b)
		}
		if err != nil {
			return done, err
		}
		done.add(t)
	}
	return done, nil
}

// parallel runs fn(0..n-1) on at most workers goroutines (at least one).
func parallel(workers, n int, fn func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(max(workers, 1), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
