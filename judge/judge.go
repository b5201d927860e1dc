package judge

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm"
	"github.com/cairnmemory/cairn/llm/openai"
)

// Defaults for a Judge.
const (
	DefaultTimeout       = 1500 * time.Millisecond // C2 judge.timeoutMs
	DefaultTopLogprobs   = 10
	DefaultMaxStateBytes = 128 << 10
)

// Purpose names judgments in requests (LLMRequest.Purpose), so usage
// counting can tell them from other calls.
const Purpose = "judge"

// LogprobModel is a model that can give the log-probabilities of its
// answer tokens (*openai.Client). Its tokens are nil when the endpoint
// ignores or refuses the request for them.
type LogprobModel interface {
	CompleteLogprobs(ctx context.Context, req *cairn.LLMRequest, top int) (*cairn.LLMResponse, []openai.TokenLogprob, error)
}

var _ LogprobModel = (*openai.Client)(nil)

// Method is how a judgment's probabilities were had.
type Method string

// Methods.
const (
	// Logprobs: from the log-probabilities of one-token answers.
	Logprobs Method = "logprobs"
	// Structured: from probabilities the model wrote in a JSON answer.
	Structured Method = "structured"
)

// Request is one judgment: a rubric, the state it is about, and the
// questions (nil: the rubric's own).
type Request struct {
	Rubric *Rubric
	// State is any JSON value (a json.RawMessage is taken as is): what the
	// agent is doing, the excerpts to judge. Every string in it is
	// redacted before it is sent, and the rubric tells the model it is
	// data, never instructions.
	State     any
	Questions []Question
}

// Judgment is a request's answers, by question key.
type Judgment struct {
	Policy  string // <model id>:<rubric id>
	Method  Method
	Answers map[string]Answer
	Cached  bool // from the cache; no request was made
}

func (j Judgment) clone() Judgment {
	a := make(map[string]Answer, len(j.Answers))
	for k, v := range j.Answers {
		a[k] = v.clone()
	}
	j.Answers = a
	return j
}

// Judge asks a model the questions of rubrics. Set its fields before the
// first call; it is then safe for concurrent use.
type Judge struct {
	// Model answers. When it is also a LogprobModel, judgments are asked
	// for one-token answers with log-probabilities first; a model that
	// gives none is asked for structured answers from then on.
	Model cairn.LLM
	// ModelID names the model in policy ids.
	ModelID string
	// Timeout bounds each judgment: the request, and the structured one
	// that follows when log-probabilities were not given. No judgment is
	// retried.
	Timeout       time.Duration
	TopLogprobs   int // alternatives asked per token, 1 to 20
	MaxStateBytes int // the largest redacted state sent
	// MaxOutputTokens caps each request's answer tokens; 0: none.
	MaxOutputTokens int
	Cache           Cache // nil: judgments are not kept
	// Usage, when set, counts each answer's tokens under Purpose (unusable
	// answers included, as llm.Counting does). The judge only adds: the
	// owner calls Usage.Flush, since a file write per judgment would sit
	// on the whisperers' deadline.
	Usage *llm.Usage

	structuredOnly atomic.Bool // learned: the model gives no log-probabilities
}

// New returns a judge over model with defaults filled and a MemoryCache
// of DefaultCacheEntries. The model should not retry (FromConfig builds
// one that does not).
func New(model cairn.LLM, modelID string) *Judge {
	return &Judge{Model: model, ModelID: modelID, Timeout: DefaultTimeout, TopLogprobs: DefaultTopLogprobs,
		MaxStateBytes: DefaultMaxStateBytes, Cache: NewMemoryCache(DefaultCacheEntries)}
}

// Policy is the policy id of a rubric under this judge's model.
func (j *Judge) Policy(r *Rubric) string { return j.ModelID + ":" + r.ID }

// Ask judges one request. A bad request (no rubric, bad questions, a state
// that is not JSON or too large) is an error matching cairn.ErrInvalid and
// sends nothing; a failed judgment is an *Error with its Code.
func (j *Judge) Ask(ctx context.Context, req *Request) (*Judgment, error) {
	if req == nil || req.Rubric == nil || req.Rubric.ID == "" || strings.TrimSpace(req.Rubric.Instructions) == "" {
		return nil, cairn.Invalidf("judge request has no rubric; allowed: a rubric with an id and instructions")
	}
	qs := req.Questions
	if qs == nil {
		qs = req.Rubric.Questions
	}
	if err := checkQuestions(qs); err != nil {
		return nil, err
	}
	limit := j.MaxStateBytes
	if limit <= 0 {
		limit = DefaultMaxStateBytes
	}
	state, err := cleanState(req.State, limit)
	if err != nil {
		return nil, err
	}
	qs = cleanQuestions(qs)
	policy := j.Policy(req.Rubric)
	key := Key{Policy: policy, Content: contentHash(req.Rubric, qs, state)}
	if j.Cache != nil {
		if got, ok := j.Cache.Get(key); ok {
			got.Cached = true
			return &got, nil
		}
	}
	out, err := j.ask(ctx, req.Rubric, qs, state, policy)
	if err != nil {
		return nil, err
	}
	if j.Cache != nil {
		j.Cache.Put(key, *out)
	}
	return out, nil
}

// ask makes the request (and the structured one after a model that gave
// no log-probabilities) within the timeout.
func (j *Judge) ask(ctx context.Context, r *Rubric, qs []Question, state []byte, policy string) (*Judgment, error) {
	timeout := j.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	obs := &observed{}
	jctx, cancel := context.WithTimeoutCause(context.WithValue(ctx, observedKey{}, obs), timeout, errTimeout)
	defer cancel()
	fail := func(err error) error { return classify(ctx, jctx, obs, policy, err) }
	if lm, ok := j.Model.(LogprobModel); ok && !j.structuredOnly.Load() {
		top := j.TopLogprobs
		if top < 1 || top > openai.MaxTopLogprobs {
			top = DefaultTopLogprobs
		}
		res, tokens, err := lm.CompleteLogprobs(jctx, j.request(r, qs, state, true), top)
		if err != nil {
			j.count(res, err, false)
			return nil, fail(err)
		}
		if len(tokens) > 0 {
			answers, err := fromLogprobs(qs, tokens)
			j.count(res, nil, err != nil)
			if err != nil {
				return nil, &Error{Code: CodeInvalid, Policy: policy, Reason: err.Error(), err: cairn.ErrInvalid}
			}
			return &Judgment{Policy: policy, Method: Logprobs, Answers: answers}, nil
		}
		j.count(res, nil, false)
		j.structuredOnly.Store(true) // the endpoint gives none: ask for structure now and from now on
	}
	res, err := j.Model.Complete(jctx, j.request(r, qs, state, false))
	if err != nil {
		j.count(res, err, false)
		return nil, fail(err)
	}
	answers, err := fromStructured(qs, res.Text)
	j.count(res, nil, err != nil)
	if err != nil {
		return nil, &Error{Code: CodeInvalid, Policy: policy, Reason: err.Error(), err: cairn.ErrInvalid}
	}
	return &Judgment{Policy: policy, Method: Structured, Answers: answers}, nil
}

// request is the chat request of a judgment.
func (j *Judge) request(r *Rubric, qs []Question, state []byte, logprobs bool) *cairn.LLMRequest {
	req := &cairn.LLMRequest{System: system(r, logprobs), Prompt: prompt(state, qs, logprobs), Purpose: Purpose}
	if logprobs {
		req.MaxTokens = 12*len(qs) + 8 // "<key>: <answer>" lines
		return j.capped(req)
	}
	req.MaxTokens = 96*len(qs) + 64
	req.Schema, req.SchemaName = answerSchema(qs), "judgment"
	return j.capped(req)
}

func (j *Judge) capped(req *cairn.LLMRequest) *cairn.LLMRequest {
	if j.MaxOutputTokens > 0 {
		req.MaxTokens = min(req.MaxTokens, j.MaxOutputTokens)
	}
	return req
}

// count adds what one model call cost to Usage: an answer (invalid when
// it could not be read as the questions' answers), or a failure the
// client says was billed.
func (j *Judge) count(res *cairn.LLMResponse, err error, invalid bool) {
	if j.Usage == nil {
		return
	}
	var spent interface{ Tokens() (in, out int) }
	switch {
	case err == nil && res != nil:
		t := llm.Totals{Calls: 1, TokensIn: int64(res.TokensIn), TokensOut: int64(res.TokensOut)}
		if invalid {
			t.Invalid = 1
		}
		j.Usage.Add(Purpose, t)
	case errors.As(err, &spent):
		in, out := spent.Tokens()
		j.Usage.Add(Purpose, llm.Totals{Calls: 1, Invalid: 1, TokensIn: int64(in), TokensOut: int64(out)})
	case errors.As(err, new(*cairn.InvalidOutputError)):
		j.Usage.Add(Purpose, llm.Totals{Calls: 1, Invalid: 1})
	}
}
