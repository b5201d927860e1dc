// Command gatherbench counts gather's model calls and tokens per question
// on a LoCoMo file (the development split by default), through the eval
// memory mode: each sample is consolidated into memories and each
// question gathered over them, with fake models that answer at once.
//
//	go run -tags sqlite_fts5 ./bench/cmd/gatherbench -data ../shared/data/locomo/locomo-dev.json
//
// The consolidation fake writes one observation per turn (the speaker's
// words, about the speaker, credited to its record; no episodes or items),
// about what a model writes for a chat of short turns. The counting fast
// fake counts a token per 4 characters of what it is sent and answers (as
// gather's TestCountingRun does); in every part it keeps the candidates
// that share two words of three letters or more with the question, and
// in the first round proposes two further searches: the question's words
// of five letters or more, and the rest. A real model keeps and proposes
// differently, so the calls are those of this policy; the wide search,
// parts of 40 and further searches of 30 are gather's own.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/eval"
)

func main() {
	data := flag.String("data", "../shared/data/locomo/locomo-dev.json", "LoCoMo JSON file")
	samples := flag.Int("samples", 0, "stop after this many samples (0: all)")
	flag.Parse()
	fast := &countingFast{perQuestion: map[string]*usage{}}
	rep, err := eval.LocomoMemory(context.Background(), eval.LocomoOptions{Data: *data},
		eval.MemoryOptions{Consolidate: observeTurns{}, Fast: fast, MaxConversations: *samples})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gatherbench:", err)
		os.Exit(1)
	}
	g := rep.Memory.Gather
	fmt.Printf("%d samples, %d memories (%v), %d questions gathered, %d unjudged\n",
		rep.Memory.Conversations, sum(rep.Memory.Memories), rep.Memory.Memories, g.Questions, g.Unjudged)
	calls, in, out := fast.distributions()
	// Calls are grouped by question text: a question asked again in
	// another sample counts once, with both gathers' calls.
	fmt.Printf("%d distinct question texts\n", len(calls))
	fmt.Printf("| per question | mean | p50 | p90 | max |\n|---|---:|---:|---:|---:|\n")
	row("model calls", calls)
	row("tokens in", in)
	row("tokens out (fake's answers)", out)
	fmt.Printf("totals: %d calls, %d tokens in, %d out; retrieval turn_recall@10 %.1f (fake observations), %.0f s\n",
		g.Calls, g.TokensIn, g.TokensOut, rep.Metrics["turn_recall@10"], rep.Seconds)
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func row(name string, xs []int) {
	slices.Sort(xs)
	if len(xs) == 0 {
		return
	}
	total := 0
	for _, x := range xs {
		total += x
	}
	q := func(p float64) int { return xs[min(len(xs)-1, int(p*float64(len(xs))))] }
	fmt.Printf("| %s | %.1f | %d | %d | %d |\n", name, float64(total)/float64(len(xs)), q(0.5), q(0.9), xs[len(xs)-1])
}

// observeTurns is the consolidation fake: no episodes or items from the
// main pass, one observation per record from the observations pass.
type observeTurns struct{}

var record = regexp.MustCompile(`(?m)^=== Record (\d+) [^\n]*===\n## User — ([^—\n]+) — [^\n]*\n\n([^\n]+)`)

func (observeTurns) Complete(_ context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	if req.SchemaName != "cairn_observations" {
		return &cairn.LLMResponse{Text: `{"segment_summary":"","episodes":[],"items":[]}`}, nil
	}
	obs := []map[string]any{}
	for _, m := range record.FindAllStringSubmatch(req.Prompt, -1) {
		var n int
		fmt.Sscan(m[1], &n)
		who := strings.TrimSpace(m[2])
		obs = append(obs, map[string]any{"text": who + ": " + m[3], "about": who, "event_date": "", "start_date": "", "end_date": "",
			"phase": "done", "requests": []int{n}, "concepts": []string{}, "cues": []string{}})
	}
	b, _ := json.Marshal(map[string]any{"observations": obs})
	return &cairn.LLMResponse{Text: string(b)}, nil
}

// countingFast is the fast fake: it answers gather's parts by the policy
// in the package comment and counts calls and tokens per question.
type countingFast struct {
	mu          sync.Mutex
	perQuestion map[string]*usage
}

type usage struct{ calls, in, out int }

var (
	questionLine = regexp.MustCompile(`(?m)^Question: (.+)$`)
	candidate    = regexp.MustCompile(`(?m)^\[(\d+)\] [^\n]*\n([^\n]*\n[^\n]*)`)
)

func (f *countingFast) Complete(_ context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	if req.SchemaName != "cairn_gather" {
		return nil, fmt.Errorf("%w: gatherbench's fast fake serves gather only", cairn.ErrUnavailable)
	}
	q := ""
	if m := questionLine.FindStringSubmatch(req.Prompt); m != nil {
		q = m[1]
	}
	qw := words(q)
	keep := []int{}
	for _, m := range candidate.FindAllStringSubmatch(req.Prompt, -1) {
		shared := 0
		for _, w := range words(m[2]) {
			if slices.Contains(qw, w) {
				shared++
			}
		}
		if shared >= 2 {
			var n int
			fmt.Sscan(m[1], &n)
			keep = append(keep, n)
		}
	}
	searches := []string{}
	if !strings.Contains(req.Prompt, "These memories come from further searches") {
		var long, short []string
		for _, w := range qw {
			if len(w) >= 5 {
				long = append(long, w)
			} else {
				short = append(short, w)
			}
		}
		for _, s := range [][]string{long, short} {
			if len(s) > 0 {
				searches = append(searches, strings.Join(s, " "))
			}
		}
	}
	b, _ := json.Marshal(map[string]any{"keep": keep, "searches": searches})
	in, out := (len(req.System)+len(req.Prompt))/4, len(b)/4
	f.mu.Lock()
	u := f.perQuestion[q]
	if u == nil {
		u = &usage{}
		f.perQuestion[q] = u
	}
	u.calls, u.in, u.out = u.calls+1, u.in+in, u.out+out
	f.mu.Unlock()
	return &cairn.LLMResponse{Text: string(b), TokensIn: in, TokensOut: out}, nil
}

func (f *countingFast) distributions() (calls, in, out []int) {
	for _, u := range f.perQuestion {
		calls, in, out = append(calls, u.calls), append(in, u.in), append(out, u.out)
	}
	return calls, in, out
}

func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
		if len(w) >= 3 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}
