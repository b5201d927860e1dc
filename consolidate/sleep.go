package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// Defaults of a Sleeper.
const (
	// DefaultSleepMinScore is the similarity (word overlap plus bonuses)
	// two memories need to be judged together.
	DefaultSleepMinScore = 0.4
	DefaultSleepGroup    = 8   // members of a group at most
	DefaultSleepPosting  = 200 // a word, concept or subject shared by more memories pairs nothing
	DefaultSleepTokens   = 4000
	DefaultSleepTimeout  = 120 * time.Second
	DefaultSleepBody     = 1500 // characters of a body shown to the model
)

const schemaNameSleep = "cairn_sleep"

var schemaSleep = mustRead("prompts/sleep.schema.json")

// Sleeper is the later pass over stored memories: it finds groups of
// active memories of one family that look alike (in code: shared words of
// title and summary, shared concepts, the same subject), asks the fast
// model what they are to each other, and applies what a gate in code lets
// through: duplicates merged into the best-supported one, older memories
// superseded by newer ones, related ones linked both ways. Each group is
// one transaction; a pair of memories is judged once, so a second pass
// changes nothing.
type Sleeper struct {
	LLM   cairn.LLM
	Store cairn.SleepStore

	MinScore    float64
	MaxGroup    int
	MaxPosting  int
	MaxTokens   int
	CallTimeout time.Duration
	BodyChars   int

	// Profiles (profile.go): a subject needs ProfileMin active
	// observations (0 or less: no profiles); a profile is written from the
	// newest ProfileLines of them with an answer budget of ProfileTokens.
	ProfileMin    int
	ProfileLines  int
	ProfileTokens int
}

// NewSleeper returns a sleeper with the defaults filled.
func NewSleeper(llm cairn.LLM, store cairn.SleepStore) *Sleeper {
	return &Sleeper{LLM: llm, Store: store, MinScore: DefaultSleepMinScore, MaxGroup: DefaultSleepGroup,
		MaxPosting: DefaultSleepPosting, MaxTokens: DefaultSleepTokens, CallTimeout: DefaultSleepTimeout, BodyChars: DefaultSleepBody,
		ProfileMin: DefaultProfileMin, ProfileLines: DefaultProfileLines, ProfileTokens: DefaultProfileTokens}
}

// Run judges every candidate group (a dry run only lists them), then
// writes the profiles the observations call for (profile.go). Groups
// are found again after each round, so members that an earlier round left
// out of a full group are judged in the same run. An unavailable or busy
// model pauses the pass with every group judged so far applied and none
// half-applied; that is not an error. The error is for the store or a
// cancelled context.
func (s *Sleeper) Run(ctx context.Context, opts *cairn.SleepOptions) (*cairn.SleepResult, error) {
	o := cairn.SleepOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Limit < 0 {
		return nil, cairn.Invalidf("limit %d: allowed 0 (no limit) or more", o.Limit)
	}
	res := &cairn.SleepResult{Dropped: map[string]int{}, Status: cairn.ConsolidateCompleted}
	done, err := s.groups(ctx, o, res)
	if err != nil || !done {
		return res, err
	}
	if s.ProfileMin <= 0 {
		return settle(res), nil
	}
	work, err := s.planProfiles(ctx)
	if err != nil {
		return res, err
	}
	if o.DryRun {
		res.Profiles = len(work.build)
		return res, nil
	}
	err = s.profiles(ctx, work, res)
	var p *errPause
	if errors.As(err, &p) {
		res.Status, res.Error = p.status, p.err.Error()
		return res, nil
	}
	if err != nil {
		return res, err
	}
	return settle(res), nil
}

// groups judges the candidate groups. It reports whether the pass may go
// on to profiles: not after a pause or a limit.
func (s *Sleeper) groups(ctx context.Context, o cairn.SleepOptions, res *cairn.SleepResult) (bool, error) {
	skip := map[[2]string]bool{} // pairs of groups this run could not judge
	for {
		groups, ms, judged, err := s.candidates(ctx, skip)
		if err != nil {
			return false, err
		}
		if o.DryRun {
			res.Plan, res.Groups, res.Pending = groups, len(groups), len(groups)
			return true, nil
		}
		if len(groups) == 0 {
			return true, nil
		}
		for i, g := range groups {
			if o.Limit > 0 && res.Groups >= o.Limit {
				res.Pending = len(groups) - i
				settle(res)
				return false, nil
			}
			err := s.judge(ctx, g, ms, judged, res)
			var p *errPause
			switch {
			case errors.As(err, &p):
				res.Status, res.Error, res.Pending = p.status, p.err.Error(), len(groups)-i
				return false, nil
			case errors.Is(err, errUnusable), errors.Is(err, cairn.ErrNotFound):
				if errors.Is(err, errUnusable) {
					res.Dropped[DropInvalidAnswer]++
					res.Failed++
					res.Error = err.Error()
				} else {
					res.Dropped[DropSleepStale]++
				}
				for x, a := range g.Members {
					for _, b := range g.Members[x+1:] {
						skip[pairKey(a, b)] = true
					}
				}
			case err != nil:
				return false, err
			default:
				res.Groups++
			}
		}
	}
}

// candidates reads the active memories and the judged pairs and finds the
// groups to judge.
func (s *Sleeper) candidates(ctx context.Context, skip map[[2]string]bool) ([]cairn.SleepGroup, map[string]cairn.Memory, map[[2]string]bool, error) {
	all, err := s.Store.Memories(ctx, cairn.MemoryFilter{Status: cairn.StatusActive})
	if err != nil {
		return nil, nil, nil, err
	}
	judged, err := s.Store.JudgedPairs(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	both := map[[2]string]bool{}
	for p := range judged {
		both[p] = true
	}
	for p := range skip {
		both[p] = true
	}
	ms := map[string]cairn.Memory{}
	for _, m := range all {
		ms[m.ID] = m
	}
	return sleepGroups(all, both, s.MinScore, s.MaxGroup, s.MaxPosting), ms, judged, nil
}

// judge asks the model about one group, gates its decisions and applies
// them in one transaction.
func (s *Sleeper) judge(ctx context.Context, grp cairn.SleepGroup, ms map[string]cairn.Memory, judged map[[2]string]bool, res *cairn.SleepResult) error {
	var members []cairn.Memory
	for _, id := range grp.Members {
		members = append(members, ms[id])
	}
	a, err := s.ask(ctx, sleepPrompt(grp.Family, members, s.BodyChars), res)
	if err != nil {
		return err
	}
	dropped := map[string]int{}
	g := newSleepGate(members, judged, dropped)
	change := g.run(a)
	change.Seen = map[string]string{}
	for _, m := range members {
		change.Seen[m.ID] = cairn.MemoryFingerprint(m)
	}
	if err := s.Store.ApplySleep(ctx, change); err != nil {
		return err
	}
	for k, v := range dropped {
		res.Dropped[k] += v
	}
	res.Merged += g.nMerged
	res.Superseded += g.nSuperseded
	res.Linked += g.nLinked
	return nil
}

// ask sends a group to the fast model and reads the answer, checked
// against the sleep schema; an unusable answer is asked again once, naming
// what was wrong (see askTwice). Every answer's tokens are counted in res.
func (s *Sleeper) ask(ctx context.Context, prompt string, res *cairn.SleepResult) (*sleepAnswer, error) {
	req := &cairn.LLMRequest{System: sleepSystem(), Prompt: redacted(prompt), Purpose: cairn.PurposeFast,
		MaxTokens: s.MaxTokens, Schema: schemaSleep, SchemaName: schemaNameSleep}
	var t tally
	var a *sleepAnswer
	err := askTwice(ctx, s.call, req, "judge group", checked(checkSleep(), decodeSleep, &a), &t)
	res.TokensIn, res.TokensOut, res.InvalidAnswers = res.TokensIn+t.in, res.TokensOut+t.out, res.InvalidAnswers+t.invalid
	if err != nil {
		return nil, err
	}
	return a, nil
}

// settle sets the status of a pass that went through its groups and
// profiles: some groups or profiles whose answers were unusable twice
// make it completed_with_failures, and all of them (nothing judged or
// written) failed.
func settle(res *cairn.SleepResult) *cairn.SleepResult {
	switch {
	case res.Failed > 0 && res.Groups+res.Profiles == 0:
		res.Status = cairn.ConsolidateFailed
	case res.Failed > 0:
		res.Status = cairn.ConsolidateCompletedWithFailures
	}
	return res
}

func (s *Sleeper) call(ctx context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	if s.CallTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.CallTimeout)
		defer cancel()
	}
	if s.LLM == nil {
		return nil, fmt.Errorf("%w: no fast model configured for sleep (set [llm.fast] in config.toml)", cairn.ErrUnavailable)
	}
	return s.LLM.Complete(ctx, req)
}

// decodeSleep reads the model's answer, checked against the sleep schema
// and unfenced (see checked): one JSON object with at least one of the
// schema's fields.
func decodeSleep(s string) (*sleepAnswer, error) {
	if !strings.HasPrefix(s, "{") {
		return nil, errNoObject
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &keys); err != nil {
		return nil, err
	}
	if keys["duplicates"] == nil && keys["supersedes"] == nil && keys["related"] == nil {
		return nil, errors.New("answer has none of duplicates, supersedes, related")
	}
	var a sleepAnswer
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return nil, err
	}
	return &a, nil
}
