package whisper

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/llm"
	"github.com/cairnmemory/cairn/local"
	wt "github.com/cairnmemory/cairn/whisper/whispertest"
)

// TestWhisperLatency measures what the Memory Whisperer adds to a turn
// beyond its judge: every judge request (the recall gate, each usefulness
// judgment) answers after JudgeDelay, the query model at once, over a
// lexical index of CAIRN_WHISPER_NOTES generated notes (default 2,000);
// CAIRN_WHISPER_VECTORS=1 adds the vector lane (a word-hash embedder).
// A whisper's critical path holds two judge rounds (the gate beside query
// generation, then the usefulness judgments side by side), so the added
// latency is the whisper's wall time less 2 × JudgeDelay: retrieval,
// passage reads, request building, HTTP to the fakes, orchestration.
// Skipped unless CAIRN_WHISPER_BENCH=N (whispers to time):
//
//	CAIRN_WHISPER_BENCH=200 go test -tags sqlite_fts5 ./whisper/ -run TestWhisperLatency -v
//
// It prints p50 and p99; it asserts nothing about time.
func TestWhisperLatency(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CAIRN_WHISPER_BENCH"))
	if n <= 0 {
		t.Skip("set CAIRN_WHISPER_BENCH=N to time N whispers")
	}
	const JudgeDelay = 200 * time.Millisecond
	notesN := 2000
	if v, err := strconv.Atoi(os.Getenv("CAIRN_WHISPER_NOTES")); err == nil && v > 0 {
		notesN = v
	}
	dir := t.TempDir()
	topics := []string{"sqlite busy_timeout writers", "staging deploy release branch", "garden fence cedar boards",
		"billing service owner", "parseConfig loader keys", "backup schedule retention", "lunch soup mondays", "vector index rerank"}
	for i := range notesN {
		text := fmt.Sprintf("# Note %d\n\nAbout %s, entry %d: the team noted %s again on day %d.\n", i, topics[i%len(topics)], i, topics[(i*3)%len(topics)], i%365)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%05d.md", i)), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	var emb cairn.Embedder
	lanes := "lexical lane, no embedder"
	if os.Getenv("CAIRN_WHISPER_VECTORS") == "1" {
		emb, lanes = &wt.WordEmbedder{}, "both lanes, a word-hash embedder"
	}
	eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir(), Embedder: emb,
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{dir}, Glob: cairn.DefaultGlob}}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	fj := wt.NewJudge(t, func(c wt.Call) wt.Verdict {
		if c.Rubric == judge.HistoricalRecall.ID {
			return wt.Verdict{P: 0.9, Delay: JudgeDelay}
		}
		return wt.Verdict{P: 0.8, Delay: JudgeDelay}
	})
	j, err := judge.FromConfig(config.Judge{LLM: config.LLM{API: "openai", BaseURL: fj.URL, Model: "judge-m"}, From: "llm.judge", TimeoutMs: 5000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Cache = nil
	qm := newQueryModel(t, func(i int) string {
		return wt.Queries(topics[i%len(topics)], "what we decided about "+topics[i%len(topics)])
	})
	cfg := config.DefaultMemoryWhisperer()
	cfg.Enabled, cfg.Corpora, cfg.CooldownTurns, cfg.TimeoutMs = true, []string{"notes"}, 0, 10000
	stats := &Stats{}
	w := NewMemoryWhisperer(MemoryOptions{Config: cfg, Retriever: EngineRetriever{Engine: eng}, Judge: j,
		Credential: func() string { return CredentialAvailable }, QueryModel: qm, Stats: stats})
	var added []float64
	for i := range n {
		start := time.Now()
		sec, err := w.Whisper(ctx, turn("s", strconv.Itoa(i), fmt.Sprintf("What did we settle about %s?", topics[i%len(topics)])))
		elapsed := time.Since(start)
		if err != nil || sec.Outcome != "emitted" {
			t.Fatalf("whisper %d: %+v %v", i, sec, err)
		}
		added = append(added, float64((elapsed-2*JudgeDelay).Microseconds())/1000)
	}
	tel := stats.Telemetry("main", "memoryWhisperer")
	p := func(xs []float64, q float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[max(int(math.Ceil(q*float64(len(s))))-1, 0)]
	}
	t.Logf("%d whispers over %d notes (%s), judge %s per request: added latency p50 %.1f ms, p99 %.1f ms; "+
		"retrieval p50 %.1f ms (last 256), candidates %.1f, eligible %.1f per whisper",
		n, notesN, lanes, JudgeDelay, p(added, 0.5), p(added, 0.99), tel.Measurements["retrievalMs"].P50,
		tel.Measurements["candidates"].Total/float64(n), tel.Measurements["eligible"].Total/float64(n))
}

// newQueryModel is a query model answering request i with reply(i) at
// once.
func newQueryModel(t *testing.T, reply func(i int) string) cairn.LLM {
	m := wt.NewModel(t, func(i int) (string, time.Duration, int) { return reply(i), 0, 0 })
	return mustLLM(t, m.URL)
}

func mustLLM(t *testing.T, url string) cairn.LLM {
	m, err := llm.New(config.LLM{API: "openai", BaseURL: url, Model: "query-m"}, cairn.PurposeFast, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
