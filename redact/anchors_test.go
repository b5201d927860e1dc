package redact

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// scanWindows is how the rules found their line windows before the
// one-pass anchor search: a strings.Index walk per anchor.
func scanWindows(hay string, anchors []string) [][2]int {
	var out [][2]int
	next := make([]int, len(anchors))
	for i := range next {
		next[i] = -2
	}
	for pos := 0; pos <= len(hay); {
		best := -1
		for i, a := range anchors {
			if next[i] == -1 {
				continue
			}
			if next[i] < pos {
				j := strings.Index(hay[pos:], a)
				if j < 0 {
					next[i] = -1
					continue
				}
				next[i] = pos + j
			}
			if best < 0 || next[i] < best {
				best = next[i]
			}
		}
		if best < 0 {
			break
		}
		start := strings.LastIndexByte(hay[:best], '\n') + 1
		end := strings.IndexByte(hay[best:], '\n')
		if end < 0 {
			end = len(hay)
		} else {
			end += best
		}
		out = append(out, [2]int{start, end})
		pos = end + 1
	}
	return out
}

// randomText strings anchors, parts of anchors, words and line breaks
// together, so anchors overlap, repeat, straddle lines and sit at the ends.
func randomText(r *rand.Rand, rs []rule) string {
	var b strings.Builder
	for range r.IntN(60) {
		switch r.IntN(6) {
		case 0:
			b.WriteByte('\n')
		case 1:
			b.WriteString([]string{" ", "=", "key", "the ", "x", "SKSK", "-u-u", "sk-ant-sk-", ":AA", "PASS"}[r.IntN(10)])
		default:
			rl := &rs[r.IntN(len(rs))]
			a := rl.anchors[r.IntN(len(rl.anchors))]
			if r.IntN(4) == 0 {
				a = a[:1+r.IntN(len(a))]
			}
			if r.IntN(3) == 0 {
				a = strings.ToUpper(a)
			}
			b.WriteString(a)
		}
	}
	return b.String()
}

// Every rule sees the same line windows and the same whole-text decision
// as with one strings.Index walk per anchor.
func TestAnchorWindowsMatchScan(t *testing.T) {
	rs := loadRules()
	r := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "\n", "\n\n", ordinaryText(t, 64<<10), denseText(64 << 10)}
	for range 3000 {
		texts = append(texts, randomText(r, rs))
	}
	for _, text := range texts {
		lower := asciiLower(text)
		var occ occurrences
		for i := range rs {
			rl := &rs[i]
			hay := text
			if rl.fold {
				hay = lower
			}
			at := occ.of(rl, hay)
			var got [][2]int
			lineWindows(hay, at, func(s, e int) { got = append(got, [2]int{s, e}) })
			want := scanWindows(hay, rl.anchors)
			if !slices.Equal(got, want) {
				t.Fatalf("rule %d (anchors %q) on %q: windows %v, want %v", i, rl.anchors, text, got, want)
			}
			if anyOccurs(occ.of(rl, hay)) != (len(want) > 0) {
				t.Fatalf("rule %d (anchors %q) on %q: anchors occur %v, want %v", i, rl.anchors, text, !(len(want) > 0), len(want) > 0)
			}
		}
	}
}
