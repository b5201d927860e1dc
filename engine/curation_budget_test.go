package engine

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestFairShare(t *testing.T) {
	for _, c := range []struct {
		want       []int
		per, total int
		got        []int
	}{
		{[]int{100, 100}, 2000, 12000, []int{100, 100}},
		{[]int{5000, 10, 5000}, 2000, 12000, []int{2000, 10, 2000}},
		{[]int{5000, 5000, 5000, 5000, 5000, 5000, 5000}, 2000, 12000, []int{1714, 1714, 1714, 1714, 1714, 1715, 1715}},
		{[]int{3000, 100, 3000}, 2000, 3000, []int{1450, 100, 1450}},
		{[]int{7, 7, 7}, 5, 10, []int{3, 3, 4}},
		{nil, 5, 10, []int{}},
	} {
		got := fairShare(c.want, c.per, c.total)
		if diff := cmp.Diff(c.got, got); diff != "" {
			t.Errorf("fairShare(%v, %d, %d) (-want +got):\n%s", c.want, c.per, c.total, diff)
		}
		sum := 0
		for _, g := range got {
			sum += g
		}
		if sum > c.total {
			t.Errorf("fairShare(%v, %d, %d) hands out %d", c.want, c.per, c.total, sum)
		}
	}
}

func TestCutText(t *testing.T) {
	s := strings.Repeat("é", 10) // 20 bytes
	for _, n := range []int{0, 3, 4, 5, 6, 19, 20, 21} {
		got := cutText(s, n)
		if len(got) > n || !utf8.ValidString(got) {
			t.Errorf("cutText(%d): %q (%d bytes)", n, got, len(got))
		}
		if n >= len(s) && got != s || n < len(s) && n > 3 && !strings.HasSuffix(got, ellipsis) {
			t.Errorf("cutText(%d): %q", n, got)
		}
	}
}
