// Package corpus generates deterministic Markdown notes for benchmarks: a
// Zipf-distributed vocabulary of pseudo-words, English function words and
// identifiers (snake_case, camelCase, file paths), laid out as front matter,
// headings, paragraphs, lists, fenced code, tables and "Decision:" lines.
// The same Options always write the same bytes.
//
//	files, bytes, err := corpus.Generate(dir, corpus.Options{Notes: 10000, Seed: 1})
//	changed, err := corpus.Edit(dir, 0.01, 2)
//	queries := corpus.Queries(1000, 1)
package corpus

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultAvgBytes is the default mean note size: 10,000 notes make about
// 9 MB.
const DefaultAvgBytes = 900

// NotesPerFolder is how many notes share a folder.
const NotesPerFolder = 100

// Options size a corpus. Zero AvgBytes means DefaultAvgBytes. Every note
// has at least a title and one paragraph, so AvgBytes below about 600
// overshoots.
type Options struct {
	Notes    int
	AvgBytes int
	Seed     int64
}

func (o *Options) setDefaults() {
	if o.AvgBytes == 0 {
		o.AvgBytes = DefaultAvgBytes
	}
}

// NotePath returns the path of note i relative to the corpus directory:
// aNN/bNN/note-NNNNNN.md, NotesPerFolder notes a folder, 100 folders under
// each top folder.
func NotePath(i int) string {
	folder := i / NotesPerFolder
	return fmt.Sprintf("a%02d/b%02d/note-%06d.md", folder/100, folder%100, i)
}

// Generate writes o.Notes notes under dir and returns how many files and
// bytes it wrote.
func Generate(dir string, o Options) (files int, bytes int64, err error) {
	o.setDefaults()
	if o.Notes < 0 || o.AvgBytes < 0 {
		return 0, 0, fmt.Errorf("generate corpus: notes %d and avg bytes %d must not be negative", o.Notes, o.AvgBytes)
	}
	for i := range o.Notes {
		p := filepath.Join(dir, filepath.FromSlash(NotePath(i)))
		if i%NotesPerFolder == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return files, bytes, fmt.Errorf("generate corpus: %w", err)
			}
		}
		text := note(o.Seed, i, 0, o.AvgBytes)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return files, bytes, fmt.Errorf("generate corpus: %w", err)
		}
		files++
		bytes += int64(len(text))
	}
	return files, bytes, nil
}

// Edit rewrites round(fraction × notes) of the .md files under dir, chosen
// by seed, and returns how many it changed. Each chosen note keeps its first
// half, loses the rest and gains new text of about the same length, so its
// size and content hash change.
func Edit(dir string, fraction float64, seed int64) (int, error) {
	if fraction < 0 || fraction > 1 {
		return 0, fmt.Errorf("edit corpus: fraction %g out of range: allowed 0 to 1", fraction)
	}
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("edit corpus: %w", err)
	}
	slices.Sort(paths)
	n := int(fraction*float64(len(paths)) + 0.5)
	r := rand.New(rand.NewPCG(uint64(seed), 0x65646974))
	r.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	for k, p := range paths[:n] {
		old, err := os.ReadFile(p)
		if err != nil {
			return k, fmt.Errorf("edit corpus: %w", err)
		}
		text := editText(string(old), seed, k)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return k, fmt.Errorf("edit corpus: %w", err)
		}
	}
	return n, nil
}

// editText keeps the first half of old (cut at a line end) and appends new
// blocks from a fresh random source.
func editText(old string, seed int64, k int) string {
	cut := strings.LastIndex(old[:len(old)/2], "\n") + 1
	r := rand.New(rand.NewPCG(uint64(seed), uint64(k)<<16|0xed))
	w := &writer{s: newSampler(r), r: r}
	w.b.WriteString(old[:cut])
	fmt.Fprintf(&w.b, "\n## Update %d\n\n", k)
	for w.b.Len() < len(old) {
		w.block()
	}
	return w.b.String()
}
