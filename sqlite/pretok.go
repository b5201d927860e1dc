package sqlite

// Tokenizing off the writer.
//
// FTS5 tokenizes a row's columns inside the INSERT, on the one writer
// connection: on a first index of the docs corpus of issue 19 the cairn
// tokenizer (porter, unicode61 and the pairs of grams.go) was about a
// fifth of the writer's thread, while the other core, reading and
// chunking the next batch, was mostly idle. PrepareApply tokenizes a
// batch's full-text columns on the preparing goroutines instead, with
// cairn tokenizers of the table's own arguments made outside any table,
// and the writer binds each column as a pretokenized value (grams.go: a
// process-keyed header, then the tokens) that the table's tokenizer hands
// on to FTS5 as they are. The index gets the same tokens at the same
// positions; only where they are made moves.
//
// A value made with other arguments than the table's tokenizer has is
// refused by the tokenizer (SQLITE_MISMATCH), never indexed; the writer
// checks the table's pair words inside its transaction first and binds
// the text itself when they differ, and a batch refused all the same is
// written again from the text.

/*
#include "fts5.h"
*/
import "C"

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/cairnmemory/cairn"
	sqlite3 "github.com/mattn/go-sqlite3"
)

func init() {
	key := make([]byte, 16)
	if _, err := rand.Read(key); err != nil {
		panic(fmt.Sprintf("sqlite: pretokenizer key: %v", err))
	}
	C.cairn_pretok_set_key((*C.uchar)(unsafe.Pointer(&key[0])))
}

// tokArgs are the arguments of the cairn tokenizer of a table pairing
// words (pairsTable; gramsTable when none), as FTS5 passes them.
func tokArgs(words []string) []string {
	args := []string{"porter", "unicode61", "remove_diacritics", "2"}
	if len(words) > 0 {
		args = append([]string{"words", strings.Join(words, " ")}, args...)
	}
	return args
}

// tokenizers keeps the pretokenizers of the latest arguments asked for,
// one for each goroutine using one at a time; those of older arguments
// are freed as they come back.
type tokenizers struct {
	mu   sync.Mutex
	key  string
	free []*C.Fts5Tokenizer
	err  error // opening the private connection failed
	open bool
}

var pretokenizers tokenizers

func (t *tokenizers) get(args []string) (*C.Fts5Tokenizer, string, error) {
	key := strings.Join(args, "\x00")
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.open {
		t.open = true
		if rc := C.cairn_pretok_open(); rc != 0 {
			t.err = fmt.Errorf("open pretokenizer: error code %d", int(rc))
		}
	}
	if t.err != nil {
		return nil, "", t.err
	}
	if key != t.key {
		for _, tok := range t.free {
			C.cairn_pretok_free(tok)
		}
		t.key, t.free = key, nil
	}
	if n := len(t.free); n > 0 {
		tok := t.free[n-1]
		t.free = t.free[:n-1]
		return tok, key, nil
	}
	cargs := make([]*C.char, len(args))
	for i, a := range args {
		cargs[i] = C.CString(a)
	}
	defer func() {
		for _, a := range cargs {
			C.free(unsafe.Pointer(a))
		}
	}()
	var rc C.int
	tok := C.cairn_pretok_new(&cargs[0], C.int(len(cargs)), &rc)
	if tok == nil {
		return nil, "", fmt.Errorf("make pretokenizer: error code %d", int(rc))
	}
	return tok, key, nil
}

func (t *tokenizers) put(key string, tok *C.Fts5Tokenizer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if key != t.key {
		C.cairn_pretok_free(tok)
		return
	}
	t.free = append(t.free, tok)
}

// arenaBlock is the size of the blocks a worker's pretokenized values are
// cut from: one allocation for many values, freed with the batch (a
// variable for tests).
var arenaBlock = 1 << 20

// valueGuess is the room pretokenize first gives a text of n bytes. A
// value is about as long as its text (18.4 MB for the 19.7 MB of titles,
// bodies and identifier texts of the docs corpus of issue 19): a token a
// word, a byte its length, a pair one byte (a variable for tests).
var valueGuess = func(n int) int { return n + n/2 + 64 }

type arena struct{ block []byte }

// pretokenize returns text's pretokenized value, made by tok, cut from a.
func (a *arena) pretokenize(tok *C.Fts5Tokenizer, text string) ([]byte, error) {
	ptr := (*C.char)(unsafe.Pointer(unsafe.StringData(text)))
	want := valueGuess(len(text))
	for {
		if cap(a.block)-len(a.block) < want {
			a.block = make([]byte, 0, max(arenaBlock, want))
		}
		room := a.block[len(a.block):cap(a.block)]
		n := int(C.cairn_pretok(tok, ptr, C.int(len(text)), (*C.uchar)(unsafe.Pointer(&room[0])), C.longlong(len(room))))
		if n < 0 {
			return nil, fmt.Errorf("pretokenize: error code %d", -n)
		}
		if n <= len(room) {
			a.block = a.block[:len(a.block)+n]
			return room[:n:n], nil
		}
		want = n
	}
}

// preparedFTS holds a batch's pretokenized full-text values: for the i-th
// document of Upserts its title's (titles[i]) and for its j-th chunk the
// body's and identifier text's (chunks[i][j]; nil for noise).
type preparedFTS struct {
	key    string // the tokenizer arguments, joined as tokenizers keys them
	titles [][]byte
	chunks [][]ftsValues
}

type ftsValues struct{ body, ident []byte }

// PrepareApply does what of b's write can be done before the write: it
// tokenizes the full-text columns of b's new chunks on up to workers
// goroutines. The function it returns writes b as Apply does, binding
// those tokens. When pretokenizing cannot be set up, the function is
// Apply itself.
func (s *Store) PrepareApply(ctx context.Context, b *cairn.Batch, workers int) (func(context.Context) error, error) {
	var p *preparedFTS
	words, err := s.PairWords(ctx)
	if err == nil {
		p, err = s.pretokenizeBatch(ctx, b, workers, tokArgs(words))
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		p = nil // write from the text
	}
	return func(ctx context.Context) error { return s.diagnose("write index", s.applyPrepared(ctx, b, p)) }, nil
}

// applyPrepared writes b with its pretokenized values p (nil: none), and
// from the text when the table's tokenizer refuses them.
func (s *Store) applyPrepared(ctx context.Context, b *cairn.Batch, p *preparedFTS) error {
	err := s.apply(ctx, b, p)
	if p != nil && isMismatch(err) {
		err = s.apply(ctx, b, nil)
	}
	return err
}

func isMismatch(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrMismatch
}

// pretokenizeBatch tokenizes b's full-text columns with tokenizers of
// args on up to workers goroutines.
func (s *Store) pretokenizeBatch(ctx context.Context, b *cairn.Batch, workers int, args []string) (*preparedFTS, error) {
	p := &preparedFTS{titles: make([][]byte, len(b.Upserts)), chunks: make([][]ftsValues, len(b.Upserts))}
	next := make(chan int)
	errs := make(chan error, max(1, workers))
	var wg sync.WaitGroup
	for range max(1, min(workers, len(b.Upserts))) {
		tok, key, err := pretokenizers.get(args)
		if err != nil {
			errs <- err
			break
		}
		p.key = key
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pretokenizers.put(key, tok)
			var a arena
			var err error
			for i := range next {
				if err == nil {
					err = p.prepareDoc(&a, tok, &b.Upserts[i], i)
				}
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	if len(errs) == 0 {
		for i := range b.Upserts {
			if ctx.Err() != nil {
				break
			}
			if b.Upserts[i].Chunks != nil {
				next <- i
			}
		}
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := errors.Join(ctx.Err(), <-errs); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *preparedFTS) prepareDoc(a *arena, tok *C.Fts5Tokenizer, d *cairn.Document, i int) error {
	title, err := a.pretokenize(tok, d.Title)
	if err != nil {
		return err
	}
	vals := make([]ftsValues, len(d.Chunks))
	for j, c := range d.Chunks {
		if c.Noise || c.Pos < 0 || c.Len < 0 || c.Pos+c.Len > len(d.Text) {
			continue // insertContent reports a bad range
		}
		if vals[j].body, err = a.pretokenize(tok, d.Text[c.Pos:c.Pos+c.Len]); err != nil {
			return err
		}
		if vals[j].ident, err = a.pretokenize(tok, c.Ident); err != nil {
			return err
		}
	}
	p.titles[i], p.chunks[i] = title, vals
	return nil
}

// current reports whether the values were made with the arguments of the
// tokenizer chunks_fts has in tx.
func (p *preparedFTS) current(ctx context.Context, q queryer) (bool, error) {
	var create string
	if err := q.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'chunks_fts'`).Scan(&create); err != nil {
		return false, fmt.Errorf("read the full-text table: %w", err)
	}
	return strings.Join(tokArgs(tableWords(create)), "\x00") == p.key, nil
}

// docCounts returns how many column values the tables' cairn tokenizers
// were given to index in this process, and how many of them were
// pretokenized.
func docCounts() (values, replays int64) {
	var v, r C.longlong
	C.cairn_doc_counts(&v, &r)
	return int64(v), int64(r)
}
