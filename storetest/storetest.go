package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
)

// Backend is everything the suite asks of a store: the root package's
// storage interfaces, and those of this package for what the root has no
// interface for yet.
type Backend interface {
	cairn.Store
	cairn.SessionStore
	cairn.SleepStore
	Vectors
	TranscriptRenamer
}

// Vectors is the part of a store that keeps embeddings: one vector per
// chunk, each tagged with the identity of the model that made it, so
// vectors of two models never mix.
type Vectors interface {
	// PutVectors stores vectors for chunk ids in one transaction,
	// replacing any earlier vector of the same chunk, whatever made it.
	PutVectors(ctx context.Context, identity string, ids []int64, vecs [][]float32) error
	// EachVector calls fn with every vector made by identity; v may be
	// reused between calls.
	EachVector(ctx context.Context, identity string, fn func(chunkID int64, v []float32) error) error
	// CountVectors counts the vectors made by identity.
	CountVectors(ctx context.Context, identity string) (int, error)
	// CountPending counts the searchable chunks without a vector made by
	// identity.
	CountPending(ctx context.Context, identity string) (int, error)
	// CountEmbeddable counts the chunks that get a vector (all but noise).
	CountEmbeddable(ctx context.Context) (int, error)
	// VectorsVersion changes whenever a vector is written or deleted.
	VectorsVersion(ctx context.Context) (int64, error)
	// Chunks returns a candidate (without Title and Text) for each
	// document holding each chunk id, in the order of ids.
	Chunks(ctx context.Context, ids []int64) ([]cairn.Candidate, error)
	// ChunkTexts returns the exact text of each chunk id that exists.
	ChunkTexts(ctx context.Context, ids []int64) (map[int64]string, error)
	// ChunkDocs calls fn with every searchable chunk and each document
	// holding it.
	ChunkDocs(ctx context.Context, fn func(chunkID int64, corpus, path string)) error
}

// TranscriptRenamer moves what a store keeps of a transcript file from
// one stored path to another.
type TranscriptRenamer interface {
	// RenameTranscript moves a transcript's state (its path, and the path
	// where its error or stats quote it) and the transcript of its
	// sessions, in one transaction; a state stored under the new path is
	// replaced.
	RenameTranscript(ctx context.Context, corpus, from, to string) error
}

// Factory opens the backend's stores for the suite.
type Factory struct {
	// Open opens the store kept in dir, an empty folder the first time;
	// opened again on the same folder after Close, it must hold everything
	// committed before. The suite closes every store it opens.
	Open func(ctx context.Context, dir string) (Backend, error)
	// Snapshot copies the files of the store open in src into dst as they
	// are on disk at this instant, as a crash would leave them (no flush,
	// no checkpoint, no help from the open store). Nil leaves out the
	// crash-consistency case. CopyFiles makes one.
	Snapshot func(src, dst string) error
}

// CopyFiles returns a Snapshot that copies the named files of src (those
// that exist) into dst, in the order given. For SQLite in WAL mode, name
// each database before its -wal file: a checkpoint between the two copies
// then cannot lose a commit, since the WAL keeps its frames until a later
// write resets it.
func CopyFiles(names ...string) func(src, dst string) error {
	return func(src, dst string) error {
		for _, n := range names {
			if err := copyFile(filepath.Join(src, n), filepath.Join(dst, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		return nil
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Run runs every area of the suite against the backend.
func Run(t *testing.T, f Factory) {
	for _, a := range []struct {
		name string
		fn   func(*testing.T, Factory)
	}{
		{"Documents", TestDocuments},
		{"Lexical", TestLexical},
		{"Vectors", TestVectors},
		{"Sessions", TestSessions},
		{"Memories", TestMemories},
		{"Sleep", TestSleep},
		{"Concurrency", TestConcurrency},
		{"Durability", TestDurability},
		{"EdgeCases", TestEdgeCases},
	} {
		t.Run(a.name, func(t *testing.T) { a.fn(t, f) })
	}
}

// cases runs named cases as subtests, each with a store of its own.
func cases(t *testing.T, f Factory, cs []tcase) {
	t.Helper()
	for _, c := range cs {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t, f, t.TempDir())) })
	}
}

type tcase struct {
	name string
	fn   func(*testing.T, Backend)
}

// open opens the store in dir and closes it when the test ends (once,
// whether or not the test closed it first).
func open(t *testing.T, f Factory, dir string) Backend {
	t.Helper()
	b, err := f.Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("open store in %s: %v", dir, err)
	}
	c := &closeOnce{Backend: b}
	t.Cleanup(func() { c.Close() })
	return c
}

type closeOnce struct {
	Backend
	once sync.Once
	err  error
}

func (c *closeOnce) Close() error {
	c.once.Do(func() { c.err = c.Backend.Close() })
	return c.err
}

// hashOf is a content hash as the engine makes them: sha256 hex.
func hashOf(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// doc makes a document with one chunk per line of text, lines numbered
// from 1, titled with its path.
func doc(corpus, path, text string) cairn.Document {
	d := cairn.Document{Corpus: corpus, Path: path, Title: path, Text: text, Hash: hashOf(text),
		Size: int64(len(text)), ModTime: 1_700_000_000_000_000_000, Chunks: []cairn.Chunk{}}
	pos, seq := 0, 0
	for i, line := range strings.SplitAfter(text, "\n") {
		if line == "" {
			continue
		}
		d.Chunks = append(d.Chunks, cairn.Chunk{Seq: seq, Pos: pos, Len: len(line), StartLine: i + 1, EndLine: i + 1,
			Tokens: len(strings.Fields(line))})
		pos += len(line)
		seq++
	}
	return d
}

// apply writes one batch or fails the test.
func apply(t *testing.T, s Backend, corpus string, upserts []cairn.Document, remove ...string) {
	t.Helper()
	if err := s.Apply(context.Background(), &cairn.Batch{Corpus: corpus, Upserts: upserts, Remove: remove}); err != nil {
		t.Fatalf("apply batch to %s: %v", corpus, err)
	}
}

// gc collects or fails the test.
func gc(t *testing.T, s Backend) int {
	t.Helper()
	n, err := s.GC(context.Background())
	if err != nil {
		t.Fatalf("gc: %v", err)
	}
	return n
}

// docStates returns the DocStates of a corpus or fails the test.
func docStates(t *testing.T, s Backend, corpus string) map[string]cairn.DocState {
	t.Helper()
	m, err := s.DocStates(context.Background(), corpus)
	if err != nil {
		t.Fatalf("doc states of %s: %v", corpus, err)
	}
	return m
}

// text returns a document's text, "" with ok false when it is not found.
func text(t *testing.T, s Backend, corpus, path string) (string, bool) {
	t.Helper()
	txt, err := s.DocumentText(context.Background(), corpus, path)
	if errors.Is(err, cairn.ErrNotFound) {
		return "", false
	}
	if err != nil {
		t.Fatalf("document text of %s/%s: %v", corpus, path, err)
	}
	return txt, true
}
