package engine

import (
	"slices"
	"unicode/utf8"
)

// fairShare divides total among items wanting want[i] each, at most per
// each, so that every item gets something when total allows: the items
// wanting least get all they want, and the rest split what is left
// evenly (water filling). The shares never add up to more than total.
func fairShare(want []int, per, total int) []int {
	out := make([]int, len(want))
	order := make([]int, len(want))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return min(want[a], per) - min(want[b], per) })
	left := total
	for k, i := range order {
		share := left / (len(order) - k)
		out[i] = min(want[i], per, share)
		left -= out[i]
	}
	return out
}

// ellipsis marks a cut excerpt.
const ellipsis = "…"

// cutText returns s cut to at most n bytes at a character boundary, with
// an ellipsis (counted in n) when anything was cut.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= len(ellipsis) {
		return ""
	}
	cut := n - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}
