package chunk_test

import (
	"fmt"

	"github.com/cairnmemory/cairn/chunk"
)

func ExampleChunker_Chunk() {
	text := "---\ntitle: Notes\n---\n\n# Sync\n\nSync hashes every file.\n\nDecision: skip large files.\n\n---\n"
	fmt.Println(chunk.Title(text))
	for _, c := range chunk.New().Chunk(text) {
		fmt.Printf("%d lines %d-%d tokens %d noise %t %q\n",
			c.Seq, c.StartLine, c.EndLine, c.Tokens, c.Noise, text[c.Pos:c.Pos+c.Len])
	}
	// Output:
	// Notes
	// 0 lines 1-4 tokens 11 noise false "---\ntitle: Notes\n---\n\n"
	// 1 lines 5-8 tokens 9 noise false "# Sync\n\nSync hashes every file.\n\n"
	// 2 lines 9-10 tokens 9 noise false "Decision: skip large files.\n\n"
	// 3 lines 11-11 tokens 3 noise true "---\n"
}
