package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/whisper"
)

// Fixed limits of the Skill Whisperer (C30).
const (
	// Deadline bounds one Whisper call: retrieval, judgments and all.
	Deadline = 3 * time.Second
	// MaxQueryChars is the tail of the query text that is embedded, and
	// of the request and the history a judgment is sent.
	MaxQueryChars = 12000
	// Candidates is how many skills retrieval keeps; JudgedCandidates how
	// many of them the judge is asked about, one request each.
	Candidates       = 10
	JudgedCandidates = 3
	// MaxSessions bounds the sessions whose turns and cooldowns are kept;
	// past it the session seen least recently is forgotten.
	MaxSessions = 4096
)

// Defaults of a Whisperer (the [skillWhisperer] table's).
const (
	DefaultHistoryMessages = 5
	DefaultMinScore        = 0.5
	DefaultCooldownTurns   = 10
)

// Asker asks the judge (*judge.Judge).
type Asker interface {
	Ask(ctx context.Context, req *judge.Request) (*judge.Judgment, error)
}

var _ Asker = (*judge.Judge)(nil)

// Credential states, as judge.Credential reports them.
const (
	CredentialAvailable  = "available"
	CredentialMissing    = "missing"
	CredentialDisabled   = "disabled"
	CredentialUnreadable = "unreadable"
)

// Whisperer is the Skill Whisperer (C30): before a turn, it names the one
// configured skill that fits the request, if any. It implements
// whisper.Whisperer; safe for concurrent use.
//
// Mode, decided on every call from Credential: with no judge key
// ("missing", or "disabled"), local: the skill most similar to the query
// is named when its cosine similarity is at least MinScore. With a key,
// enhanced: the three most similar are judged (rubric skill-useful, one
// request each, concurrently) and the one with the highest P(useful) at
// or above judge.MinSkillUse is named, ties to the more similar. In
// enhanced mode nothing falls back to the local choice: an unreadable key
// file or judgments that all failed are an error and no hint, and
// judgments that all say no are "rejected".
//
// Cooldown. Each session counts its turns (one per Whisper call). A skill
// named at turn s, or opened (Observe) at turn o, is cooling while
// turn − max(s, o) ≤ CooldownTurns. When the chosen skill is cooling there
// is no hint at all (never the next best); in enhanced mode, when all
// three candidates are cooling, none is judged.
type Whisperer struct {
	Index *Index
	// Judge asks the enhanced-mode judgments; nil: local mode always.
	Judge Asker
	// Credential reports the judge key's state on every call
	// (judge.Credential over the config); nil: "available" when Judge is
	// set, else "missing".
	Credential      func() string
	HistoryMessages int     // visible messages before the prompt in the query
	MinScore        float64 // local mode: the least similarity named
	CooldownTurns   int
	// Logger hears turns that end timed out, cancelled or unavailable
	// (codes only, never text); nil: discarded.
	Logger *slog.Logger

	deadline time.Duration // Deadline; tests shorten it

	mu       sync.Mutex
	sessions map[sessionKey]*session
	order    []sessionKey // insertion order, for eviction
}

var _ whisper.Whisperer = (*Whisperer)(nil)

type sessionKey struct{ agent, session string }

// session is one session's turn counter and per-skill turns, by the
// skill's real path.
type session struct {
	turn      int
	mode      string // the mode of its last turn (Mode)
	suggested map[string]int
	opened    map[string]int
}

// NewWhisperer returns a whisperer over idx with the default settings;
// j may be nil (local mode).
func NewWhisperer(idx *Index, j Asker) *Whisperer {
	return &Whisperer{Index: idx, Judge: j, HistoryMessages: DefaultHistoryMessages,
		MinScore: DefaultMinScore, CooldownTurns: DefaultCooldownTurns}
}

// Kind is whisper.KindSkill.
func (w *Whisperer) Kind() string { return whisper.KindSkill }

// Mode is the mode the next call runs in: "enhanced", or "missing_key" or
// "judge_disabled" for local mode, or "failed" when the key file cannot be
// read (no hint).
func (w *Whisperer) Mode() string {
	switch w.credential() {
	case CredentialDisabled:
		return "judge_disabled"
	case CredentialMissing:
		return "missing_key"
	case CredentialUnreadable:
		return "failed"
	}
	return "enhanced"
}

func (w *Whisperer) credential() string {
	if w.Credential != nil {
		c := w.Credential()
		if c == CredentialAvailable && w.Judge == nil {
			return CredentialMissing
		}
		return c
	}
	if w.Judge == nil {
		return CredentialMissing
	}
	return CredentialAvailable
}

// Whisper answers one turn: a <skill> section naming one skill, or an
// empty Body with the reason in Outcome. A turn that ends with an outcome
// of its own (timed_out, cancelled, unavailable) returns it with a nil
// error, so the Service counts it as such, and logs its code; an error
// is a failure (every judgment failed, an unreadable key file).
func (w *Whisperer) Whisper(ctx context.Context, t *whisper.Turn) (whisper.Section, error) {
	sec, err := w.whisper(ctx, t)
	if err != nil && sec.Outcome != "failed" {
		w.logger().LogAttrs(context.Background(), slog.LevelWarn, "whisper", slog.String("event", "skill_"+sec.Outcome),
			slog.String("whisperer", whisper.KindSkill), slog.String("agent", t.AgentID), slog.String("session", t.SessionID),
			slog.String("run", t.RunID), slog.String("code", errorCode(err)))
		return sec, nil
	}
	return sec, err
}

func (w *Whisperer) logger() *slog.Logger {
	if w.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Logger
}

// errorCode names an error for logs without its text (which may quote a
// provider's body or a path): the judge's code, else timeout, cancelled,
// unavailable or unexpected.
func errorCode(err error) string {
	switch {
	case judge.CodeOf(err) != "":
		return string(judge.CodeOf(err))
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, cairn.ErrUnavailable):
		return "unavailable"
	}
	return "unexpected"
}

func (w *Whisperer) whisper(ctx context.Context, t *whisper.Turn) (whisper.Section, error) {
	out := whisper.Section{Kind: whisper.KindSkill}
	d := w.deadline
	if d <= 0 {
		d = Deadline
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	turn := w.nextTurn(t.AgentID, t.SessionID)
	mode := w.Mode()
	if mode == "failed" {
		out.Outcome = "failed"
		return out, errors.New("whisper skill: the judge's key file cannot be read; no hint (no local fallback)")
	}
	hist, request := history(t, w.HistoryMessages)
	if mode != "enhanced" && w.modeChanged(t.AgentID, t.SessionID, mode) {
		// Local mode (C30 step 1) is counted as missing_key or
		// judge_disabled once per session, when it starts or the mode
		// changes; every turn counts its own outcome (emitted, cooldown,
		// no_candidates, ...) like an enhanced one.
		out.Also = []string{mode}
	} else if mode == "enhanced" {
		w.modeChanged(t.AgentID, t.SessionID, mode)
	}
	matches, err := w.Index.Search(ctx, queryText(hist, request), Candidates)
	if err != nil {
		out.Outcome = outcomeOf(ctx, "unavailable")
		return out, fmt.Errorf("whisper skill: %w", err)
	}
	var pick *Match
	if mode == "enhanced" {
		pick, out.Outcome, err = w.judged(ctx, t, hist, request, matches, turn)
	} else {
		pick, out.Outcome = w.local(t, matches, turn)
	}
	if err != nil || pick == nil {
		return out, err
	}
	if ctx.Err() != nil { // past the deadline: nothing is named, nothing recorded
		out.Outcome = outcomeOf(ctx, "failed")
		return out, fmt.Errorf("whisper skill: %w", ctx.Err())
	}
	if !w.suggest(t.AgentID, t.SessionID, pick.Real, turn) {
		out.Outcome = "cooldown"
		return out, nil
	}
	out.Body, out.Outcome = render(pick.Skill), "emitted"
	return out, nil
}

// local picks the most similar skill at or above MinScore.
func (w *Whisperer) local(t *whisper.Turn, matches []Match, turn int) (*Match, string) {
	if len(matches) == 0 || matches[0].Score < w.MinScore {
		return nil, "no_candidates"
	}
	if w.cooling(t.AgentID, t.SessionID, matches[0].Skill, turn) {
		return nil, "cooldown"
	}
	return &matches[0], ""
}

// outcomeOf names a failure: "timed_out" past the deadline, "cancelled"
// when the caller ended the call, else def.
func outcomeOf(ctx context.Context, def string) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "timed_out"
	case ctx.Err() != nil:
		return "cancelled"
	}
	return def
}

// render is the <skill> section's body: one sentence naming the skill and
// its SKILL.md path as JSON strings (< and > escaped).
func render(s Skill) string {
	name, _ := json.Marshal(s.Name)
	path, _ := json.Marshal(s.Path)
	return string(whisper.EscapeJSON([]byte(fmt.Sprintf("The skill %s may be relevant to this request; to use it, read its instructions at %s.", name, path))))
}

// Observe marks a skill opened when a successful read names its SKILL.md
// (args path, file_path or filePath; C30 step 5).
func (w *Whisperer) Observe(_ context.Context, o *whisper.Observation) error {
	if o == nil || !o.OK || !strings.EqualFold(o.Tool, "read") {
		return nil
	}
	var args struct {
		Path       string `json:"path"`
		FilePath   string `json:"file_path"`
		FilePathJS string `json:"filePath"`
	}
	if len(o.Args) > 0 && json.Unmarshal(o.Args, &args) != nil {
		return nil // args that are no object name no file
	}
	p := firstNonBlank(args.Path, args.FilePath, args.FilePathJS)
	if p == "" || !filepath.IsAbs(p) || !strings.EqualFold(filepath.Base(p), FileName) {
		return nil
	}
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.sessionLocked(o.AgentID, o.SessionID)
	s.opened[p] = s.turn
	return nil
}

func firstNonBlank(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return strings.TrimSpace(x)
		}
	}
	return ""
}

// EndSession forgets a session's turns and cooldowns.
func (w *Whisperer) EndSession(agentID, sessionID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.sessions, sessionKey{agentID, sessionID})
}
