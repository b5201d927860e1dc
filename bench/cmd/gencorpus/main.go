// Command gencorpus writes the deterministic Markdown benchmark corpus, edits
// a number of its notes, or prints the query list, for scripts that compare
// Cairn with other tools (bench/compare-qmd).
//
//	gencorpus -out DIR -notes 5000
//	gencorpus -out DIR -notes 5000 -edit 20
//	gencorpus -queries 50
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/cairnmemory/cairn/bench/corpus"
)

func main() {
	out := flag.String("out", "", "corpus folder")
	notes := flag.Int("notes", 5000, "notes in the corpus")
	edit := flag.Int("edit", 0, "rewrite this many notes of an existing corpus instead of generating it")
	queries := flag.Int("queries", 0, "print this many queries, one a line, and exit")
	seed := flag.Int64("seed", 1, "seed")
	flag.Parse()
	if err := run(*out, *notes, *edit, *queries, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
}

func run(out string, notes, edit, queries int, seed int64) error {
	if queries > 0 {
		for _, q := range corpus.Queries(queries, seed) {
			fmt.Println(q)
		}
		return nil
	}
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	if edit > 0 {
		n, err := corpus.Edit(out, float64(edit)/float64(notes), seed+1)
		if err != nil {
			return err
		}
		fmt.Printf("edited %d notes\n", n)
		return nil
	}
	files, bytes, err := corpus.Generate(out, corpus.Options{Notes: notes, Seed: seed})
	if err != nil {
		return err
	}
	fmt.Printf("wrote %d notes, %.1f MB\n", files, float64(bytes)/1e6)
	return nil
}
