package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// The embedding cache: a header (magic, model digest, dimension) and one
// record per chunk in corpus order: the SHA-256 of the text and its
// vector. Loading stops at the first record whose text hash differs from
// the generated chunk's, so a changed generator or a larger corpus embeds
// only what is new.
const cacheMagic = "clusterbench-vectors-1\n"

type cache struct {
	model string // sha256 of model.onnx, hex
	dim   int
	vecs  [][]float32
}

func loadCache(path, model string, chunks []chunk) (*cache, error) {
	c := &cache{model: model}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open cache: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	head := make([]byte, len(cacheMagic)+64+4)
	if _, err := io.ReadFull(r, head); err != nil || string(head[:len(cacheMagic)]) != cacheMagic ||
		string(head[len(cacheMagic):len(cacheMagic)+64]) != model {
		return c, nil // another model or format: embed again
	}
	c.dim = int(binary.LittleEndian.Uint32(head[len(cacheMagic)+64:]))
	rec := make([]byte, 32+4*c.dim)
	for _, ch := range chunks {
		if _, err := io.ReadFull(r, rec); err != nil {
			break
		}
		if h := textHash(ch.text); string(rec[:32]) != string(h[:]) {
			break
		}
		v := make([]float32, c.dim)
		for d := range v {
			v[d] = math.Float32frombits(binary.LittleEndian.Uint32(rec[32+4*d:]))
		}
		c.vecs = append(c.vecs, v)
	}
	return c, nil
}

// save writes the cache atomically (temp file, fsync, rename).
func (c *cache) save(path string, chunks []chunk) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create cache folder: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vectors-*")
	if err != nil {
		return fmt.Errorf("create cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	w.WriteString(cacheMagic)
	w.WriteString(c.model)
	binary.Write(w, binary.LittleEndian, uint32(c.dim))
	buf := make([]byte, 4*c.dim)
	for i, v := range c.vecs {
		h := textHash(chunks[i].text)
		w.Write(h[:])
		for d, x := range v {
			binary.LittleEndian.PutUint32(buf[4*d:], math.Float32bits(x))
		}
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write cache: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("sync cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename cache: %w", err)
	}
	return nil
}
