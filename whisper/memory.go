package whisper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/judge"
)

// Limits of the Memory Whisperer (C29).
const (
	WhisperResults    = 4    // passages a whisper's search keeps
	MaxPayloadChars   = 5000 // the rendered hints; more is payload_limit
	MaxRedundancyReqs = 6    // pairwise redundancy requests per whisper
)

// Judge credential states (judge.Credential).
const (
	CredentialAvailable  = "available"
	CredentialMissing    = "missing"
	CredentialDisabled   = "disabled"
	CredentialUnreadable = "unreadable"
)

// MemoryOptions configure a MemoryWhisperer. Config is the
// [memoryWhisperer] table (zero fields: defaults); Judge, Credential,
// QueryModel and Retriever are required for a hint.
type MemoryOptions struct {
	Config    config.MemoryWhisperer
	Retriever Retriever
	// Judge asks the judgments; nil: no judge is configured (a whisper is
	// judge_disabled when Credential says so, else missing_key).
	Judge Asker
	// Credential reads the judge key's state on every call (rotation needs
	// no restart): one of the Credential* states.
	Credential func() string
	// QueryModel writes {lex, vec}; nil: every whisper fails at generation.
	QueryModel cairn.LLM
	// Logger receives one JSON-able event per stage (never text); nil: none.
	Logger *slog.Logger
	// Stats, when set, receives the memoryWhisperer telemetry.
	Stats *Stats
	Now   func() time.Time // nil: time.Now
}

// MemoryWhisperer is C29's Memory Whisperer. Safe for concurrent use.
type MemoryWhisperer struct {
	o   MemoryOptions
	cfg config.MemoryWhisperer

	mu       sync.Mutex
	sessions map[sessionKey]*memorySession
	clock    uint64
}

type sessionKey struct{ agent, session string }

// memorySession is what a whisperer keeps of one session: its turn
// counter and the turn each shown passage was shown at.
type memorySession struct {
	turn  int
	shown map[string]int
	used  uint64 // when last whispered, for eviction
}

// MaxSessions bounds the sessions a whisperer (and the Service) keeps
// state for; past it the least recently used one is forgotten, as if it
// had ended.
const MaxSessions = 10000

var _ Whisperer = (*MemoryWhisperer)(nil)

// NewMemoryWhisperer returns a whisperer over o.
func NewMemoryWhisperer(o MemoryOptions) *MemoryWhisperer {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	cfg := o.Config.Filled()
	return &MemoryWhisperer{o: o, cfg: cfg, sessions: map[sessionKey]*memorySession{}}
}

// Kind is KindMemory.
func (w *MemoryWhisperer) Kind() string { return KindMemory }

// Observe does nothing: the memory whisperer learns nothing from tools.
func (w *MemoryWhisperer) Observe(context.Context, *Observation) error { return nil }

// EndSession forgets a session's turns and cooldowns.
func (w *MemoryWhisperer) EndSession(agent, session string) {
	w.mu.Lock()
	delete(w.sessions, sessionKey{agent, session})
	w.mu.Unlock()
}

// Timeout is the whisper's total deadline (timeoutMs).
func (w *MemoryWhisperer) Timeout() time.Duration {
	return time.Duration(w.cfg.TimeoutMs) * time.Millisecond
}

// nextTurn advances a session's turn and returns it with a cooldown check
// as of that turn.
func (w *MemoryWhisperer) nextTurn(k sessionKey) (int, func(id string) bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.sessions[k]
	if s == nil {
		if len(w.sessions) >= MaxSessions {
			evictOldest(w.sessions, func(s *memorySession) uint64 { return s.used })
		}
		s = &memorySession{shown: map[string]int{}}
		w.sessions[k] = s
	}
	w.clock++
	s.turn, s.used = s.turn+1, w.clock
	turn, cooldown := s.turn, w.cfg.CooldownTurns
	for id, at := range s.shown {
		if turn-at > cooldown {
			delete(s.shown, id) // expired
		}
	}
	shown := make(map[string]bool, len(s.shown))
	for id := range s.shown {
		shown[id] = true
	}
	return turn, func(id string) bool { return shown[id] }
}

// record marks passages shown at turn.
func (w *MemoryWhisperer) record(k sessionKey, turn int, ids []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.sessions[k]
	if s == nil {
		return // the session ended meanwhile
	}
	for _, id := range ids {
		s.shown[id] = turn
	}
}

// run is one whisper's measurements and state, for the log and the
// telemetry.
type run struct {
	t          *Turn
	start      time.Time
	gate       time.Duration
	generation time.Duration
	retrieval  time.Duration
	judging    time.Duration
	recallP    float64
	candidates int
	eligible   int
	results    int
	failed     int
	chars      int
	requests   int
	also       []string
}

// Whisper runs C29 for one turn within the total deadline: the visible
// conversation within the budget (input_too_large), the judge key
// (missing_key, judge_disabled), the recall gate beside query generation
// (recall_not_needed, failed), judged search over the configured corpora
// with cooled passages left out (cooldown, no_candidates, failed,
// rejected), the top maxHints (with complementaryHints, redundancy
// pairs), the render (payload_limit) and, when emitted, the passages put
// in cooldown. It never returns an error: the Section's Outcome says how
// the turn ended.
func (w *MemoryWhisperer) Whisper(ctx context.Context, t *Turn) (Section, error) {
	r := &run{t: t, start: time.Now()}
	dctx, cancel := context.WithTimeout(ctx, w.Timeout())
	defer cancel()
	sec := w.whisper(dctx, ctx, r)
	if sec.Body != "" && dctx.Err() != nil {
		sec = Section{} // finished after the deadline: nothing is injected
	}
	if sec.Outcome == "" || (sec.Body == "" && dctx.Err() != nil && sec.Outcome != "input_too_large") {
		sec.Outcome = deadlineOutcome(ctx, dctx)
	}
	sec.Kind, sec.Also = KindMemory, r.also
	w.finish(r, sec)
	return sec, nil
}

// deadlineOutcome says how a run that ran out of time ended: timed_out at
// its own deadline, cancelled when the caller's context ended first.
func deadlineOutcome(caller, own context.Context) string {
	if caller.Err() != nil {
		return "cancelled"
	}
	if own.Err() != nil {
		return "timed_out"
	}
	return "failed"
}

func (w *MemoryWhisperer) whisper(ctx, caller context.Context, r *run) Section {
	t := r.t
	key := sessionKey{t.AgentID, t.SessionID}
	turn, cooling := w.nextTurn(key) // every user turn counts, hint or not
	conv, ok := Fit(Visible(t))
	switch {
	case conv.CurrentRequest == "":
		return Section{Outcome: "no_candidates"}
	case !ok:
		return Section{Outcome: "input_too_large"}
	}
	switch w.credential() {
	case CredentialDisabled:
		return Section{Outcome: "judge_disabled"}
	case CredentialMissing:
		return Section{Outcome: "missing_key"}
	case CredentialUnreadable:
		w.event(r, "stage_failed", "credentials", slog.String("stage", "judge"))
		return Section{Outcome: "failed"}
	}
	if w.o.Judge == nil {
		return Section{Outcome: "missing_key"}
	}
	q, outcome := w.gateAndQueries(ctx, r, conv)
	if outcome != "" {
		return Section{Outcome: outcome}
	}
	res, err := Search(ctx, w.o.Retriever, w.o.Judge, &SearchRequest{BM25Query: q.Lex, VectorQuery: q.Vec,
		Corpora: w.cfg.Corpora, MaxResults: WhisperResults, MinUsefulness: w.cfg.MinUsefulness, Conversation: &conv,
		Skip: cooling, Now: w.o.Now(), OnJudged: func(p Passage, score float64, code judge.Code, d time.Duration) {
			if code != "" {
				w.event(r, "candidate_failed", string(code), slog.Float64("ms", ms(d)))
				return
			}
			w.event(r, "candidate_completed", "", slog.Float64("ms", ms(d)), slog.Float64("usefulness", score))
		}})
	if res != nil {
		r.retrieval, r.judging, r.candidates, r.eligible, r.failed = res.Retrieval, res.Judging, res.Candidates, res.Eligible, res.Failed
		r.requests += res.Eligible
		for range res.Failed {
			r.also = append(r.also, "judge_candidate_failed")
		}
	}
	switch {
	case ctx.Err() != nil:
		return Section{Outcome: deadlineOutcome(caller, ctx)}
	case errors.Is(err, ErrAllFailed):
		return Section{Outcome: "failed"}
	case errors.Is(err, cairn.ErrUnavailable):
		w.event(r, "stage_failed", "unavailable", slog.String("stage", "search"))
		return Section{Outcome: "unavailable"} // the index cannot be read
	case err != nil:
		w.event(r, "stage_failed", string(codeOf(err)), slog.String("stage", "search"))
		return Section{Outcome: "failed"}
	case res.Eligible == 0 && res.Cooling > 0:
		return Section{Outcome: "cooldown"}
	case res.Eligible == 0:
		return Section{Outcome: "no_candidates"}
	case len(res.Results) == 0:
		return Section{Outcome: "rejected"}
	}
	hints := w.select_(ctx, r, conv.CurrentRequest, res.Results)
	if ctx.Err() != nil {
		return Section{Outcome: deadlineOutcome(caller, ctx)}
	}
	body := renderHints(hints)
	r.chars = utf8.RuneCountInString(body)
	if r.chars > MaxPayloadChars {
		return Section{Outcome: "payload_limit"}
	}
	r.results = len(hints)
	ids := make([]string, len(hints))
	for i, h := range hints {
		ids[i] = h.ID()
	}
	w.record(key, turn, ids)
	return Section{Body: body, Outcome: "emitted"}
}

func (w *MemoryWhisperer) credential() string {
	if w.o.Credential == nil {
		if w.o.Judge == nil {
			return CredentialMissing
		}
		return CredentialAvailable
	}
	return w.o.Credential()
}

// gateAndQueries runs the recall gate and query generation side by side;
// the first to end the run cancels the other. outcome is set when the run
// stops here.
func (w *MemoryWhisperer) gateAndQueries(ctx context.Context, r *run, conv Conversation) (Queries, string) {
	gctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	var p float64
	var gerr, qerr error
	var q Queries
	wg.Add(2)
	go func() {
		defer wg.Done()
		start := time.Now()
		got, err := w.o.Judge.Ask(gctx, &judge.Request{Rubric: judge.HistoricalRecall, State: conv})
		r.gate = time.Since(start)
		if err != nil {
			gerr = err
		} else if p = got.Answers["recall_needed"].P; p < judge.MinRecall {
			stop()
		}
		if err != nil {
			stop()
		}
	}()
	go func() {
		defer wg.Done()
		start := time.Now()
		var err error
		if w.o.QueryModel == nil {
			err = fmt.Errorf("generate queries: no query model: %w", cairn.ErrUnavailable)
		} else {
			q, err = GenerateQueries(gctx, w.o.QueryModel, conv)
		}
		r.generation = time.Since(start)
		if err != nil {
			qerr = err
			stop()
		}
	}()
	wg.Wait()
	r.recallP = p
	r.requests++
	switch {
	case ctx.Err() != nil:
		return q, "" // the caller sees the deadline
	case gerr == nil && p < judge.MinRecall:
		return q, "recall_not_needed"
	case gerr != nil && !(qerr != nil && gctx.Err() != nil && judge.CodeOf(gerr) == judge.CodeCancelled):
		w.event(r, "recall_failed", string(codeOf(gerr)))
		return q, "failed"
	case qerr != nil:
		w.event(r, "generation_failed", queryCode(qerr))
		return q, "failed"
	}
	r.also = append(r.also, "queries_generated")
	return q, ""
}

// queryCode is C29's error code of a query-model failure.
func queryCode(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, cairn.ErrInvalid):
		return "invalid_response"
	case errors.Is(err, cairn.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, cairn.ErrBusy):
		return "http_error"
	}
	return "unexpected"
}

// finish logs the run's completion and records its telemetry.
func (w *MemoryWhisperer) finish(r *run, sec Section) {
	elapsed := time.Since(r.start)
	w.event(r, "completed", "", slog.String("outcome", sec.Outcome), slog.Float64("elapsedMs", ms(elapsed)),
		slog.Float64("gateMs", ms(r.gate)), slog.Float64("generationMs", ms(r.generation)),
		slog.Float64("retrievalMs", ms(r.retrieval)), slog.Float64("judgeMs", ms(r.judging)),
		slog.Float64("recallP", r.recallP), slog.Int("requests", r.requests), slog.Int("candidates", r.candidates),
		slog.Int("eligible", r.eligible), slog.Int("hints", r.results))
	if w.o.Stats == nil {
		return
	}
	w.o.Stats.Record(r.t.AgentID, "memoryWhisperer", opOutcome(sec, r.failed), map[string]float64{
		"elapsedMs": ms(elapsed), "retrievalMs": ms(r.retrieval), "judgeMs": ms(r.judging), "gateMs": ms(r.gate),
		"generationMs": ms(r.generation), "candidates": float64(r.candidates), "eligible": float64(r.eligible),
		"results": float64(r.results), "contextChars": float64(r.chars)})
}

// opOutcome maps a whisper's outcome to the telemetry's.
func opOutcome(sec Section, failed int) string {
	switch sec.Outcome {
	case "emitted":
		if failed > 0 {
			return "partial"
		}
		return "ok"
	case "failed", "timed_out", "cancelled":
		return sec.Outcome
	case "missing_key", "judge_disabled", "input_too_large":
		return "skipped"
	}
	return "empty"
}

// event logs one stage of a run: ids, stage, code and numbers, never
// text.
func (w *MemoryWhisperer) event(r *run, name, code string, attrs ...slog.Attr) {
	base := []slog.Attr{slog.String("event", name), slog.String("whisperer", KindMemory),
		slog.String("agent", r.t.AgentID), slog.String("session", r.t.SessionID), slog.String("run", r.t.RunID)}
	if code != "" {
		base = append(base, slog.String("code", code))
	}
	w.o.Logger.LogAttrs(context.Background(), slog.LevelInfo, "whisper", append(base, attrs...)...)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// evictOldest deletes the entry of m whose used is least.
func evictOldest[V any](m map[sessionKey]V, used func(V) uint64) {
	var oldest sessionKey
	first, least := true, uint64(0)
	for k, v := range m {
		if u := used(v); first || u < least {
			oldest, least, first = k, u, false
		}
	}
	delete(m, oldest)
}
