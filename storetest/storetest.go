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

// Factory is what the suite needs of a backend.
type Factory struct {
	// Backend opens the storage of a data directory: an empty folder the
	// first time; opened again on the same folder after Close, it must
	// hold everything committed before. The suite closes every storage it
	// opens.
	Backend cairn.Backend
	// Snapshot copies the files of the storage open in src into dst as
	// they are on disk at this instant, as a crash would leave them (no
	// flush, no checkpoint, no help from the open storage). CopyFiles
	// makes one. Nil leaves out the crash-consistency case.
	Snapshot func(src, dst string) error
	// Damage makes the index of the closed storage in dir unreadable, as
	// a disk fault would, leaving the durable state (memories) alone. Nil
	// leaves out the damaged-index cases.
	Damage func(dir string) error
}

// FeatureVersion is the StorageOptions.FeatureVersion the suite opens
// storage with; TestBackendOps also opens with another one.
const FeatureVersion = "storetest-1"

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
		{"Maintenance", TestMaintenance},
		{"BackendOps", TestBackendOps},
		{"Durability", TestDurability},
		{"EdgeCases", TestEdgeCases},
		{"Curation", TestCuration},
		{"Export", TestExport},
	} {
		t.Run(a.name, func(t *testing.T) { a.fn(t, f) })
	}
}

// cases runs named cases as subtests, each with a storage of its own.
func cases(t *testing.T, f Factory, cs []tcase) {
	t.Helper()
	for _, c := range cs {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t, f, t.TempDir())) })
	}
}

type tcase struct {
	name string
	fn   func(*testing.T, cairn.Storage)
}

// open opens the storage of dir and closes it when the test ends (once,
// whether or not the test closed it first).
func open(t *testing.T, f Factory, dir string) cairn.Storage {
	t.Helper()
	return openWith(t, f, dir, cairn.StorageOptions{FeatureVersion: FeatureVersion})
}

func openWith(t *testing.T, f Factory, dir string, o cairn.StorageOptions) cairn.Storage {
	t.Helper()
	s, err := f.Backend.Open(context.Background(), dir, o)
	if err != nil {
		t.Fatalf("open storage in %s: %v", dir, err)
	}
	return closeWhenDone(t, s)
}

func closeWhenDone(t *testing.T, s cairn.Storage) cairn.Storage {
	c := &closeOnce{Storage: s}
	t.Cleanup(func() { c.Close() })
	return c
}

type closeOnce struct {
	cairn.Storage
	once sync.Once
	err  error
}

func (c *closeOnce) Close() error {
	c.once.Do(func() { c.err = c.Storage.Close() })
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
func apply(t *testing.T, s cairn.Storage, corpus string, upserts []cairn.Document, remove ...string) {
	t.Helper()
	if err := s.Apply(context.Background(), &cairn.Batch{Corpus: corpus, Upserts: upserts, Remove: remove}); err != nil {
		t.Fatalf("apply batch to %s: %v", corpus, err)
	}
}

// gc collects or fails the test.
func gc(t *testing.T, s cairn.Storage) int {
	t.Helper()
	n, err := s.GC(context.Background())
	if err != nil {
		t.Fatalf("gc: %v", err)
	}
	return n
}

// docStates returns the DocStates of a corpus or fails the test.
func docStates(t *testing.T, s cairn.Storage, corpus string) map[string]cairn.DocState {
	t.Helper()
	m, err := s.DocStates(context.Background(), corpus)
	if err != nil {
		t.Fatalf("doc states of %s: %v", corpus, err)
	}
	return m
}

// text returns a document's text, "" with ok false when it is not found.
func text(t *testing.T, s cairn.Storage, corpus, path string) (string, bool) {
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
