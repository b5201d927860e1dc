// Command consolidatebench measures the consolidation worker with a fake
// model that answers at once: how many windows and how many tokens a run
// sends per 1,000 records, and what the worker itself costs per window
// (reading threads, rendering, the gate, committing and indexing the
// memories), the model's time excluded.
//
//	go run -tags sqlite_fts5 ./bench/cmd/consolidatebench -records 1000 -per-session 10
//
// Records are generated deterministically: a request of 100 to 400
// characters and agent replies with tool lines, 600 to 6,000 characters in
// all (a few much longer, read in parts). Tokens are estimated with the
// chunker's estimator (chunk.EstimateTokens), system prompts included.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/chunk"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

func main() {
	records := flag.Int("records", 1000, "records (person requests) to generate")
	perSession := flag.Int("per-session", 10, "records per session")
	long := flag.Int("long-every", 200, "one record in this many is 150,000 characters long (0: none)")
	flag.Parse()
	for _, apart := range []bool{true, false} {
		if err := run(*records, *perSession, *long, apart); err != nil {
			fmt.Fprintln(os.Stderr, "consolidatebench:", err)
			os.Exit(1)
		}
	}
}

// fakeModel answers every window with one kept episode and one item for
// the first record it sees, and counts what it was sent and the time
// spent inside it.
type fakeModel struct {
	mu               sync.Mutex
	calls            int
	chars, tokens    int
	inModel          time.Duration
	mainC, obsC      int
	mainTok, obsTok  int
	record           *regexp.Regexp
	answer, observed string
}

func (m *fakeModel) Complete(_ context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	t0 := time.Now()
	n := len([]rune(req.System)) + len([]rune(req.Prompt))
	tok := chunk.EstimateTokens(req.System) + chunk.EstimateTokens(req.Prompt)
	num := "1"
	_, records, ok := strings.Cut(req.Prompt, "--- End of context ---")
	if !ok {
		records = req.Prompt
	}
	if s := m.record.FindStringSubmatch(records); s != nil {
		num = s[1]
	}
	text := strings.ReplaceAll(m.answer, "NUM", num)
	if req.SchemaName == "cairn_observations" {
		text = strings.ReplaceAll(m.observed, "NUM", num)
	} else if strings.Contains(string(req.Schema), `"observations"`) {
		// Observations in the main windows: the schema requires them.
		obs := strings.TrimSuffix(strings.TrimPrefix(strings.ReplaceAll(m.observed, "NUM", num), "{"), "}")
		text = strings.TrimSuffix(text, "}") + "," + obs + "}"
	}
	m.mu.Lock()
	m.calls++
	m.chars += n
	m.tokens += tok
	if req.SchemaName == "cairn_observations" {
		m.obsC, m.obsTok = m.obsC+1, m.obsTok+tok
	} else {
		m.mainC, m.mainTok = m.mainC+1, m.mainTok+tok
	}
	m.inModel += time.Since(t0)
	m.mu.Unlock()
	return &cairn.LLMResponse{Text: text, TokensIn: tok, TokensOut: 300}, nil
}

const answer = `{"segment_summary":"Work on the service.","episodes":[{"request":NUM,"outcome":"success","keep":true,
"title":"Tune the worker pool of the queue","summary":"The pool was pinned to 8 workers in queue.toml and the backlog cleared.",
"cues":["queue backlog","worker pool size","why does the queue back up","POOL_MIN"],"concepts":["queue.toml","POOL_MIN","worker pool"]}],
"items":[{"kind":"procedure","title":"Pin the queue worker pool","summary":"Set POOL_MIN=8 in queue.toml and restart the queue service.",
"body":"sed -i 's/POOL_MIN=.*/POOL_MIN=8/' queue.toml && systemctl restart queue","applies_when":"When the queue backs up.",
"scope":"project","requests":[NUM],"confidence":"verified","importance":3,"contested":false,"ambiguous":false,
"cues":["queue backs up","pin the pool","restart queue"],"concepts":["queue.toml","POOL_MIN"]}]}`

const observed = `{"observations":[{"text":"Dana pinned the queue worker pool to 8 workers on 2026-05-04.","about":"Dana",
"event_date":"2026-05-04","start_date":"","end_date":"","phase":"done","requests":[NUM],"concepts":["queue"],"cues":["when was the pool pinned?","pool size"]}]}`

func run(nRecords, perSession, longEvery int, apart bool) error {
	ctx := context.Background()
	work, err := os.MkdirTemp("", "consolidatebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	eng, err := local.Open(ctx, engine.Options{Dir: filepath.Join(work, "data"), Location: time.UTC,
		Corpora: []cairn.Corpus{{Name: "sessions", Kind: cairn.KindSessions}}})
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	sessions, chars := generate(nRecords, perSession, longEvery)
	if _, err := eng.ImportSessions(ctx, "sessions", "bench", sessions); err != nil {
		return err
	}
	model := &fakeModel{record: regexp.MustCompile(`=== Record (\d+)`), answer: answer, observed: observed}
	tune := &engine.ConsolidateOptions{Tune: func(w *consolidate.Worker) {
		if !apart {
			w.ObservationWindowChars = -1
		}
	}}
	t0 := time.Now()
	res, err := eng.Consolidate(ctx, model, nil, tune)
	if err != nil {
		return err
	}
	wall := time.Since(t0)
	if res.Status != cairn.ConsolidateCompleted || res.Pending != 0 {
		return fmt.Errorf("run ended %s with %d pending", res.Status, res.Pending)
	}
	per := 1000 / float64(nRecords)
	mode := "observations apart (default)"
	if !apart {
		mode = "observations in the main windows"
	}
	fmt.Printf("\n%s: %d records in %d sessions, %.1f MB of records\n", mode, nRecords, len(sessions), float64(chars)/1e6)
	fmt.Printf("  windows %d (model calls %d: main %d, observations %d) -> per 1,000 records: %.0f windows, %.0f calls\n",
		res.Windows, model.calls, model.mainC, model.obsC, float64(res.Windows)*per, float64(model.calls)*per)
	fmt.Printf("  sent: %.1f M chars, ~%.2f M tokens (main %.2f M, observations %.2f M) -> per 1,000 records: ~%.2f M tokens\n",
		float64(model.chars)/1e6, float64(model.tokens)/1e6, float64(model.mainTok)/1e6, float64(model.obsTok)/1e6, float64(model.tokens)*per/1e6)
	fmt.Printf("  stored: %d episodes, %d items, %d observations\n", res.Episodes, res.Items, res.Observations)
	overhead := wall - model.inModel
	fmt.Printf("  worker time without the model: %.2f s; per window %.1f ms, per model call %.1f ms\n",
		overhead.Seconds(), float64(overhead.Microseconds())/1000/float64(res.Windows), float64(overhead.Microseconds())/1000/float64(model.calls))
	return nil
}

// generate builds sessions of perSession records each, deterministic.
func generate(nRecords, perSession, longEvery int) ([]cairn.Session, int) {
	rng := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields("queue worker pool backlog restart config timeout retry deploy test build cache index shard replica " +
		"latency budget service handler request response token schema migration column table vector embed chunk")
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(12) == 0 {
				b.WriteString(".\n")
			} else {
				b.WriteString(" ")
			}
		}
		return b.String()
	}
	var out []cairn.Session
	total := 0
	start := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	for r := 0; r < nRecords; {
		s := cairn.Session{Source: cairn.SourceClaudeCode, ID: fmt.Sprintf("bench-%05d", len(out)), Title: "Bench session " + fmt.Sprint(len(out)),
			Cwd: "/srv/queue", ConversationID: "queue", StartedAt: start.Add(time.Duration(len(out)) * time.Hour)}
		for k := 0; k < perSession && r < nRecords; k, r = k+1, r+1 {
			t := s.StartedAt.Add(time.Duration(k) * time.Minute)
			req := text(100 + rng.IntN(300))
			reply := text(400 + rng.IntN(5000))
			if longEvery > 0 && r%longEvery == longEvery-1 {
				reply = text(150000)
			}
			total += len(req) + len(reply)
			s.Messages = append(s.Messages,
				cairn.Message{Role: cairn.RoleUser, Kind: cairn.KindText, Text: req, Time: t},
				cairn.Message{Role: cairn.RoleAssistant, Kind: cairn.KindText, Text: reply, Time: t.Add(30 * time.Second),
					Tools: []cairn.ToolCall{{Name: "Bash", Input: "go test ./...", Output: "ok"}}})
		}
		out = append(out, s)
	}
	return out, total
}
