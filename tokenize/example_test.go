package tokenize_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn/tokenize"
)

func ExampleLoad() {
	tok, err := tokenize.Load("testdata/bert-wordpiece.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tok.Model(), tok.Encode("The cat sat."), tok.Count("Playing!"))
	// Output: WordPiece [2 5 6 7 12 3] 5
}

func TestConcurrentEncode(t *testing.T) {
	tok, err := tokenize.Load("testdata/bytelevel-bpe.json")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"hello world!", "he's", "héllo\n", "12 hello  world"}
	want := make([]string, len(texts))
	for i, s := range texts {
		want[i] = fmt.Sprint(tok.Encode(s))
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for i := 0; i < 200; i++ {
				k := (g + i) % len(texts)
				if got := fmt.Sprint(tok.Encode(texts[k])); got != want[k] {
					t.Errorf("Encode(%q) = %s, want %s", texts[k], got, want[k])
					return
				}
			}
		})
	}
	wg.Wait()
}
