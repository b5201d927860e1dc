package engine

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/hashembed"
)

// TestSpeakerLiftCost measures what the speaker lift (fusionWeights.Speaker)
// adds to a warm hybrid search over long agent transcripts
// (CAIRN_SPEAKER_COST=1): a sessions corpus of coding-agent sessions of
// 1,000 to 5,000 messages (user and assistant turns with tool lines, the
// shape of ../shared/fixtures/transcripts/claude-code) and LoCoMo-sized
// conversations between named people, embedded by the word-hash stand-in
// (bench/hashembed: the cost measured is the lift's, not a model's). Each
// query is asked under every variant in turn (lift off, on without the span
// cache, on with it), query by query in one process, and the table gives
// each variant's wall p50/p99 and process CPU per search (getrusage: the
// lexical lane's goroutine included). CAIRN_SPEAKER_COST_DIR keeps the
// index; CAIRN_SPEAKER_COST_LONG sets the number of long sessions (12),
// CAIRN_SPEAKER_COST_QUERIES the number of queries (100).
// Numbers in bench/RESULTS.md, "Ranking: the speaker lift, its cost and its shape".
func TestSpeakerLiftCost(t *testing.T) {
	if os.Getenv("CAIRN_SPEAKER_COST") == "" {
		t.Skip("set CAIRN_SPEAKER_COST=1 to measure the speaker lift's cost per search")
	}
	long := 12
	if s := os.Getenv("CAIRN_SPEAKER_COST_LONG"); s != "" {
		long, _ = strconv.Atoi(s)
	}
	dir := os.Getenv("CAIRN_SPEAKER_COST_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	ctx := context.Background()
	eng, err := Open(ctx, Options{Dir: dir, Embedder: hashembed.Embedder{}, Corpora: []cairn.Corpus{{Name: "sessions", Kind: cairn.KindSessions}}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	words := costWords(t)
	rng := rand.New(rand.NewSource(1))
	if _, err := os.Stat(filepath.Join(dir, ".speakercost")); err != nil {
		start := time.Now()
		sessions := costSessions(rng, words, long)
		if _, err := eng.ImportSessions(ctx, "sessions", "speakercost", sessions); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, ".speakercost"), nil, 0o644)
		t.Logf("imported and embedded %d sessions in %s", len(sessions), time.Since(start).Round(time.Millisecond))
	}
	nq := 100
	if s := os.Getenv("CAIRN_SPEAKER_COST_QUERIES"); s != "" {
		nq, _ = strconv.Atoi(s)
	}
	queries := costQueries(rand.New(rand.NewSource(2)), words, nq)
	variants := []struct {
		name    string
		speaker float64
		cache   bool
	}{{"lift off", 0, true}, {"lift on, no cache", 0.5, false}, {"lift on, cached", 0.5, true}}
	old := fusion
	defer func() { fusion, speakerCacheOff = old, false }()
	wall := make([][]float64, len(variants))
	cpu := make([][]float64, len(variants))
	for pass := 0; pass < 2; pass++ { // the first pass warms every cache
		for qi, q := range queries {
			if qi%25 == 0 {
				t.Logf("pass %d, query %d of %d", pass+1, qi, len(queries))
			}
			for vi, v := range variants {
				fusion.Speaker, speakerCacheOff = v.speaker, !v.cache
				c0, w0 := processCPU(), time.Now()
				_, err := eng.Search(ctx, q, &cairn.SearchOptions{Limit: 10, Mode: cairn.ModeHybrid})
				w, c := time.Since(w0), processCPU()-c0
				if err != nil {
					t.Fatal(err)
				}
				if pass == 1 {
					wall[vi] = append(wall[vi], float64(w.Microseconds())/1000)
					cpu[vi] = append(cpu[vi], float64(c.Microseconds())/1000)
				}
			}
		}
	}
	spans := 0
	for _, sp := range speakerSpans.entries {
		spans += sp.n
	}
	t.Logf("%d queries a variant, alternating; span cache: %d sessions, %d spans", len(queries), len(speakerSpans.entries), spans)
	t.Logf("%-20s %9s %9s %9s %9s %9s", "variant", "wall p50", "wall p99", "cpu mean", "cpu p50", "cpu p99")
	for vi, v := range variants {
		t.Logf("%-20s %9.3f %9.3f %9.3f %9.3f %9.3f", v.name, pct(wall[vi], 50), pct(wall[vi], 99), mean(cpu[vi]), pct(cpu[vi], 50), pct(cpu[vi], 99))
	}
}

// processCPU is this process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func pct(xs []float64, p int) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, len(s)*p/100)]
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(max(len(xs), 1))
}

// costWords is the vocabulary of the generated turns: the words of the
// repository's design document, so turns share words as real ones do.
func costWords(t *testing.T) []string {
	data, err := os.ReadFile("../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(string(data)), func(r rune) bool { return r < 'a' || r > 'z' }) {
		if len(w) > 2 && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// sentence is n words of the vocabulary, the first ones more often
// (Zipf-like, as in real text).
func sentence(rng *rand.Rand, words []string, n int) string {
	z := rand.NewZipf(rng, 1.1, 8, uint64(len(words)-1))
	out := make([]string, n)
	for i := range out {
		out[i] = words[z.Uint64()]
	}
	return strings.Join(out, " ")
}

var costNames = []string{"Caroline", "Melanie", "Jon", "Gina", "Andrew", "Audrey", "John", "Maria", "Joanna", "Nate", "Tim", "Evan"}

// costSessions are long coding-agent sessions (1,000 to 5,000 messages,
// "User" and the agent alternating, tool calls with output) and 6
// LoCoMo-sized conversations (25 sessions of 20 turns between two named
// people).
func costSessions(rng *rand.Rand, words []string, long int) []cairn.Session {
	at := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	var out []cairn.Session
	for i := 0; i < long; i++ {
		n := 1000 + i*4000/max(long-1, 1)
		s := cairn.Session{Source: cairn.SourceClaudeCode, ID: fmt.Sprintf("long-%02d", i), StartedAt: at, Cwd: "/home/dev/acme-api"}
		for m := 0; m < n; m++ {
			msg := cairn.Message{ID: fmt.Sprintf("m%d", m), Role: cairn.RoleUser, Kind: cairn.KindText, Time: at.Add(time.Duration(m) * time.Second)}
			if m%2 == 1 {
				msg.Role = cairn.RoleAssistant
				if rng.Intn(2) == 0 {
					msg.Tools = []cairn.ToolCall{{ID: fmt.Sprint("t", m), Name: "Grep", Input: `{"pattern":"` + sentence(rng, words, 2) + `"}`, Output: sentence(rng, words, 40)}}
				}
			}
			msg.Text = sentence(rng, words, 10+rng.Intn(50))
			s.Messages = append(s.Messages, msg)
		}
		out = append(out, s)
	}
	for c := 0; c < 6; c++ {
		a, b := costNames[2*c], costNames[2*c+1]
		for si := 0; si < 25; si++ {
			day := at.AddDate(0, 0, 7*si)
			s := cairn.Session{Source: cairn.SourceOpenAIChat, ID: fmt.Sprintf("conv-%d-%02d", c, si), StartedAt: day}
			for m := 0; m < 20; m++ {
				who := a
				if m%2 == 1 {
					who = b
				}
				s.Messages = append(s.Messages, cairn.Message{ID: fmt.Sprintf("d%d", m), Role: cairn.RoleUser, Speaker: who, Kind: cairn.KindText,
					Text: sentence(rng, words, 8+rng.Intn(25)), Time: day.Add(time.Duration(m) * time.Minute)})
			}
			out = append(out, s)
		}
	}
	return out
}

// costQueries: half name a participant ("what did Caroline say about …"),
// a quarter ask about the user, a quarter are plain words.
func costQueries(rng *rand.Rand, words []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		topic := sentence(rng, words[20:], 2+rng.Intn(2))
		switch i % 4 {
		case 0, 1:
			out[i] = "what did " + costNames[rng.Intn(len(costNames))] + " say about " + topic
		case 2:
			out[i] = "what did the user say about " + topic
		default:
			out[i] = topic
		}
	}
	return out
}
