package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/whisper"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Enhanced is what an agent has of enhanced mode (C11 judged search, the
// whisper API of C28, C16's diagnostics of both). Set Agent.Enhanced
// before serving; nil is local mode with no whisperers.
type Enhanced struct {
	// Judged makes memory_search the judged tool (memorySearch.mode =
	// "judged"): its schema takes bm25Query and vectorQuery, not query.
	Judged bool
	// Judge asks the judgments; nil when no judge model is configured.
	Judge whisper.Asker
	// Credential reads the judge key's state on each call:
	// whisper.Credential* (judge.Credential over the configuration).
	Credential func() string
	// Whisper serves /v1/whisper; nil: the API answers with nothing.
	Whisper *whisper.Service
	// Enabled are C16's enabled flags of the whisperers.
	Skill, Memory, ComplementaryHints bool
	// Close, when set, stops the whisperers; the server's owner calls it
	// when the agent closes.
	Close func()
}

// DefaultMinUsefulness is judged search's default minUsefulness (C11).
const DefaultMinUsefulness = 0.7

// JudgedSearchIn is the input of memory_search in judged mode (C11
// enhanced).
type JudgedSearchIn struct {
	BM25Query     string         `json:"bm25Query" jsonschema:"keywords for the full-text lane: distinctive names, identifiers, file names, error strings; quotes make no phrases; must not be blank"`
	VectorQuery   string         `json:"vectorQuery" jsonschema:"the need in plain language, for the vector lane; the judge weighs each passage against it; must not be blank"`
	Corpora       []string       `json:"corpora,omitempty" jsonschema:"names of the corpora to search; default every configured corpus (the memories corpus included when it exists)"`
	SessionFilter *SessionFilter `json:"sessionFilter,omitempty" jsonschema:"keeps only the session hits that match every given field; hits from the other corpora searched stay eligible"`
	MaxResults    *int           `json:"maxResults,omitempty" jsonschema:"most results to return, 1 to 20 (default 5)"`
	MinUsefulness *float64       `json:"minUsefulness,omitempty" jsonschema:"lowest judged probability that a passage helps, 0 to 1 (default 0.7)"`
}

func judgedSearchSchema() *jsonschema.Schema {
	return inputSchema[JudgedSearchIn](func(p map[string]*jsonschema.Schema) {
		rangeOf(p["maxResults"], 1, MaxMaxResults, DefaultMaxResults)
		rangeOf(p["minUsefulness"], 0, 1, DefaultMinUsefulness)
		p["corpora"].Items.MinLength = jsonschema.Ptr(1)
		p["bm25Query"].MinLength = jsonschema.Ptr(1)
		p["vectorQuery"].MinLength = jsonschema.Ptr(1)
	})
}

// judged reports whether memory_search is the judged tool.
func (a *Agent) judged() bool { return a.Enhanced != nil && a.Enhanced.Judged }

// addSearch registers memory_search in the mode the agent was started in.
func addSearch(s *mcp.Server, a *Agent, readOnly *mcp.ToolAnnotations) bool {
	if !a.judged() {
		return false
	}
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolSearch, InputSchema: judgedSearchSchema(), Annotations: readOnly,
		Description: "Search long-term memory (notes and past agent sessions) with a judge: a keyword lane (bm25Query) and a " +
			"meaning lane (vectorQuery) bring candidates, and a model keeps the passages that would help with vectorQuery. " +
			"Each result has a cairn:// path, line range, score (the judged probability, 0-1) and snippet; read more with memory_get.",
	}, handler(a.JudgedSearch))
	return true
}

// judgedOptions validates in: the queries (C11 step 1), the fields shared
// with local mode as local mode checks them, minUsefulness.
func (a *Agent) judgedOptions(in JudgedSearchIn) (*whisper.SearchRequest, error) {
	if err := whisper.CheckQuery("bm25Query", in.BM25Query); err != nil {
		return nil, err
	}
	if err := whisper.CheckQuery("vectorQuery", in.VectorQuery); err != nil {
		return nil, err
	}
	if in.MaxResults != nil && (*in.MaxResults < 1 || *in.MaxResults > MaxMaxResults) {
		return nil, cairn.Invalidf("maxResults %d out of range: allowed 1 to %d", *in.MaxResults, MaxMaxResults)
	}
	local, err := a.searchOptionsOf(SearchIn{Query: in.VectorQuery, Corpora: in.Corpora, SessionFilter: in.SessionFilter,
		MaxResults: in.MaxResults}, nil)
	if err != nil {
		return nil, err
	}
	req := &whisper.SearchRequest{BM25Query: in.BM25Query, VectorQuery: in.VectorQuery, Corpora: in.Corpora,
		Sessions: local.Sessions, MaxResults: local.Limit, MinUsefulness: DefaultMinUsefulness}
	if in.MinUsefulness != nil {
		if v := *in.MinUsefulness; math.IsNaN(v) || v < 0 || v > 1 {
			return nil, cairn.Invalidf("minUsefulness %g out of range: allowed 0 to 1", v)
		}
		req.MinUsefulness = *in.MinUsefulness
	}
	return req, nil
}

// JudgedSearch runs memory_search in judged mode (C11 enhanced): bad input
// and an unreadable judge key are tool errors; no judge, a disabled one,
// an unavailable index, or every judgment failing are {results: [],
// error}; some judgments failing is a warning with the rest.
func (a *Agent) JudgedSearch(ctx context.Context, in JudgedSearchIn) (*SearchOut, error) {
	start := time.Now()
	empty := func(msg string) *SearchOut { return &SearchOut{Results: []SearchHit{}, Error: msg} }
	if err := a.unavailable(); err != nil {
		return empty(err.Error()), nil
	}
	if err := scopeCorpora(ctx, in.Corpora); err != nil { // access.go
		return nil, err
	}
	req, err := a.judgedOptions(in)
	if err != nil {
		return nil, err
	}
	e := a.Enhanced
	cred := whisper.CredentialMissing
	if e != nil && e.Credential != nil {
		cred = e.Credential()
	}
	switch {
	case cred == whisper.CredentialUnreadable:
		return nil, fmt.Errorf("judge key: the configured key file cannot be read: %w", cairn.ErrUnavailable)
	case cred == whisper.CredentialDisabled:
		a.tel.record("memorySearch", "skipped", map[string]float64{"elapsedMs": msSince(start)})
		return empty("the judge is disabled ([llm.judge] enabled = false): judged search needs it"), nil
	case e == nil || e.Judge == nil || cred == whisper.CredentialMissing:
		a.tel.record("memorySearch", "skipped", map[string]float64{"elapsedMs": msSince(start)})
		return empty("no judge: configure [llm.judge] or [llm.fast] with its key"), nil
	}
	a.waitFirstSync(ctx)
	res, err := whisper.Search(ctx, whisper.EngineRetriever{Engine: a.eng}, e.Judge, req)
	a.recordJudged(ctx, start, res, err)
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("judged search: %w", ctx.Err())
	case errors.Is(err, whisper.ErrAllFailed):
		return empty(fmt.Sprintf("every judgment failed (%d of %d): %s", res.Failed, res.Eligible, codes(res))), nil
	case errors.Is(err, cairn.ErrInvalid):
		return nil, err
	case err != nil:
		return empty(err.Error()), nil
	}
	out := &SearchOut{Results: make([]SearchHit, 0, len(res.Results))}
	for _, r := range res.Results {
		h := toHit(r.Hit, "")
		h.Score, h.TextScore, h.VectorScore = round2(r.Score), nil, nil
		if r.Hit.Messages == nil {
			h.Snippet = r.Text // the whole passage the judge read
		}
		out.Results = append(out.Results, h)
	}
	if res.Failed > 0 {
		out.Warning = fmt.Sprintf("%d of %d judgments failed (%s): their passages are left out, results are partial", res.Failed, res.Eligible, codes(res))
	}
	return out, nil
}

// codes lists the distinct judge error codes of a result.
func codes(res *whisper.SearchResult) string {
	seen := map[string]bool{}
	out := ""
	for _, c := range res.FailCodes {
		if !seen[string(c)] {
			seen[string(c)] = true
			if out != "" {
				out += ", "
			}
			out += string(c)
		}
	}
	return out
}

// recordJudged counts a judged search in the memorySearch telemetry.
func (a *Agent) recordJudged(ctx context.Context, start time.Time, res *whisper.SearchResult, err error) {
	outcome := "ok"
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		outcome = "timed_out"
	case ctx.Err() != nil:
		outcome = "cancelled"
	case err != nil:
		outcome = "failed"
	case len(res.Results) == 0:
		outcome = "empty"
	case res.Failed > 0:
		outcome = "partial"
	}
	m := map[string]float64{"elapsedMs": msSince(start)}
	if res != nil {
		m["retrievalMs"] = float64(res.Retrieval.Microseconds()) / 1000
		m["judgeMs"] = float64(res.Judging.Microseconds()) / 1000
		m["candidates"], m["eligible"], m["results"] = float64(res.Candidates), float64(res.Eligible), float64(len(res.Results))
	}
	a.tel.record("memorySearch", outcome, m)
	if a.eng != nil && a.eng.Embedder() != nil && res != nil {
		a.tel.record("vector", outcome, map[string]float64{"elapsedMs": m["retrievalMs"]}) // the vector lane ran beside the lexical one
	}
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

// checkJudged validates judged memory_search arguments as the tool will.
func (a *Agent) checkJudged(raw []byte) error {
	in, err := decode[JudgedSearchIn](raw)
	if err == nil {
		_, err = a.judgedOptions(in)
	}
	return err
}
