package vector_test

import (
	"fmt"

	"github.com/cairnmemory/cairn/vector"
)

func Example() {
	ix := vector.New(3)
	ix.Add(1, []float32{1, 0, 0})
	ix.Add(2, []float32{0.6, 0.8, 0})
	ix.Add(3, []float32{0, 0, 1})

	for _, r := range ix.Search([]float32{0.8, 0.6, 0}, 2, nil) {
		fmt.Printf("%d %.2f\n", r.Key, r.Score)
	}
	odd := func(key int64) bool { return key%2 == 1 }
	fmt.Println(ix.Search([]float32{0.8, 0.6, 0}, 5, &vector.SearchOptions{Filter: odd}))
	// Output:
	// 2 0.96
	// 1 0.80
	// [{1 0.8} {3 0}]
}
