package judge

import (
	"context"
	"strings"
	"testing"
)

// BenchmarkAskCached is the judge's own cost per judgment when the
// answer is cached: redacting a state of about 6 KB (a conversation and a
// 1,200-character excerpt), encoding it, hashing, the cache lookup.
//
//	go test ./judge/ -run XXX -bench AskCached
func BenchmarkAskCached(b *testing.B) {
	f := answers(b, plainAnswer(`{"memory_0": 0.9}`))
	j := openaiJudge(b, f.URL, 5000)
	j.structuredOnly.Store(true)
	state := usefulState(strings.Repeat("How do we deploy the staging cluster again? ", 100), strings.Repeat("Staging deploys run make deploy-staging. ", 30))
	req := &Request{Rubric: MemoryUsefulness, State: state}
	if _, err := j.Ask(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := j.Ask(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadLogprobs reads a four-question answer of 20 tokens with 10
// alternatives each.
func BenchmarkReadLogprobs(b *testing.B) {
	qs := []Question{{Key: "noise_0", Kind: Binary, Text: "q"}, {Key: "evidence_0", Kind: Binary, Text: "q"},
		{Key: "relation", Kind: Choice, Options: []string{"supports", "contradicts", "insufficient_evidence"}, Text: "q"},
		{Key: "level", Kind: Score, Text: "q"}}
	alts := map[string]float64{" yes": -0.1, " no": -2.4, " A": -3, " B": -3.5, " 0": -4, " 1": -4.5, " 2": -5, " 3": -6, " maybe": -7, " Yes": -2}
	toks := lines(append(keyLine("noise_0"), tok{" yes", alts}), append(keyLine("evidence_0"), tok{" no", alts}),
		append(keyLine("relation"), tok{" A", alts}), append(keyLine("level"), tok{" 2", alts}))
	resp := readTokens(b, logprobAnswer(toks...))
	b.ResetTimer()
	for range b.N {
		if _, err := fromLogprobs(qs, resp); err != nil {
			b.Fatal(err)
		}
	}
}
