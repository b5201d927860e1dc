package main

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Shares of the generated chunks (the rest are plain topic notes).
const (
	exactShare = 0.03 // an earlier chunk's text again: found by hash, not clustered
	nearShare  = 0.05 // an earlier topic chunk with one sentence changed: same topic
	noiseShare = 0.05 // filler and sentences of three different topics: label −1
)

// chunk is one generated chunk and its ground truth.
type chunk struct {
	text  string
	label int    // topic index; −1 noise
	kind  string // topic, near, exact, noise
}

// generate makes n chunks. Chunk i depends only on the seed, i and the
// chunks before it, so a smaller corpus is a prefix of a larger one (one
// embedding cache serves every size).
func generate(n int, seed uint64) []chunk {
	out := make([]chunk, 0, n)
	for i := range n {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		r := rng.Float64()
		switch {
		case i >= 50 && r < exactShare:
			c := out[rng.IntN(i)]
			out = append(out, chunk{c.text, c.label, "exact"})
		case i >= 50 && r < exactShare+nearShare:
			out = append(out, nearDuplicate(out, rng))
		case r < exactShare+nearShare+noiseShare:
			out = append(out, noiseChunk(rng))
		default:
			t := rng.IntN(len(topics))
			out = append(out, chunk{topicText(t, 3+rng.IntN(3), rng), t, "topic"})
		}
	}
	return out
}

func sentence(t int, rng *rand.Rand) string {
	tp := topics[t]
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	n1, n2 := pick(tp.nouns), pick(tp.nouns)
	for n2 == n1 {
		n2 = pick(tp.nouns)
	}
	return fmt.Sprintf(templates[rng.IntN(len(templates))], n1, pick(tp.verbs), pick(tp.adjs), n2, pick(tp.adjs))
}

func topicText(t, sentences int, rng *rand.Rand) string {
	var b strings.Builder
	for s := range sentences {
		if s > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sentence(t, rng))
	}
	return b.String()
}

// nearDuplicate copies an earlier topic chunk and rewrites one of its
// sentences (another sentence of the same topic).
func nearDuplicate(out []chunk, rng *rand.Rand) chunk {
	for {
		c := out[rng.IntN(len(out))]
		if c.label < 0 {
			continue
		}
		parts := strings.SplitAfter(c.text, ". ")
		parts[rng.IntN(len(parts))] = sentence(c.label, rng) + " "
		return chunk{strings.TrimSpace(strings.Join(parts, "")), c.label, "near"}
	}
}

// noiseChunk: two filler sentences and one sentence from each of three
// different topics, shuffled.
func noiseChunk(rng *rand.Rand) chunk {
	ts := rng.Perm(len(topics))[:3]
	ss := []string{fillers[rng.IntN(len(fillers))], fillers[rng.IntN(len(fillers))]}
	for _, t := range ts {
		ss = append(ss, sentence(t, rng))
	}
	rng.Shuffle(len(ss), func(a, b int) { ss[a], ss[b] = ss[b], ss[a] })
	return chunk{strings.Join(ss, " "), -1, "noise"}
}

func textHash(s string) [32]byte { return sha256.Sum256([]byte(s)) }
