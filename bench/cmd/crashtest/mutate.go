package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn/bench/corpus"
)

// mutate changes a synced corpus as a day of work would: 5% of the notes
// edited, 3% deleted, 2% renamed (same content, new path), 3% added
// (new text), and two duplicates of existing notes (shared content).
// Changed files get an mtime a second ahead, so a sync never mistakes
// them for unchanged.
func mutate(dir string, seed int64) error {
	if _, err := corpus.Edit(dir, 0.05, seed); err != nil {
		return err
	}
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	slices.Sort(paths)
	r := rand.New(rand.NewPCG(uint64(seed), 0x6d75))
	r.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	n := len(paths)
	del, ren, add := n*3/100, n*2/100, n*3/100
	later := time.Now().Add(time.Second)
	for _, p := range paths[:del] {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	for i, p := range paths[del : del+ren] {
		if err := os.Rename(p, filepath.Join(filepath.Dir(p), fmt.Sprintf("renamed-%d.md", i))); err != nil {
			return err
		}
	}
	for i, p := range paths[del+ren : del+ren+add+2] {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("copy-%d.md", i)
		if i < add {
			b = append(b, fmt.Sprintf("\n## Added %d\n\nA new paragraph about walrus %d and narwhal %d.\n", i, seed, i)...)
			name = fmt.Sprintf("added-%d.md", i)
		}
		q := filepath.Join(filepath.Dir(p), name)
		if err := os.WriteFile(q, b, 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(q, later, later); err != nil {
			return err
		}
	}
	return nil
}
