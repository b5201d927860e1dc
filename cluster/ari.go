package cluster

// AdjustedRand is the adjusted Rand index of two labelings of the same
// points (Hubert and Arabie): 1 for identical partitions, about 0 for
// chance. Labels are compared as they are, so noise (−1) counts as one
// class; callers that want noise points as singletons relabel them first.
func AdjustedRand(truth, pred []int) float64 {
	type pair struct{ a, b int }
	cells := map[pair]int{}
	rows, cols := map[int]int{}, map[int]int{}
	for i := range truth {
		cells[pair{truth[i], pred[i]}]++
		rows[truth[i]]++
		cols[pred[i]]++
	}
	c2 := func(x int) float64 { return float64(x) * float64(x-1) / 2 }
	var index, a, b float64
	for _, v := range cells {
		index += c2(v)
	}
	for _, v := range rows {
		a += c2(v)
	}
	for _, v := range cols {
		b += c2(v)
	}
	total := c2(len(truth))
	if total == 0 {
		return 1
	}
	expected := a * b / total
	maxIndex := (a + b) / 2
	if maxIndex == expected {
		return 1
	}
	return (index - expected) / (maxIndex - expected)
}
