package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/google/jsonschema-go/jsonschema"
)

// Search runs memory_search (spec C11, local mode). Bad input is an error
// matching cairn.ErrInvalid that names the field; an unavailable index or
// embedder is a result with Error set and no hits.
func (a *Agent) Search(ctx context.Context, in SearchIn) (*SearchOut, error) {
	start := time.Now()
	if err := a.unavailable(); err != nil {
		return &SearchOut{Results: []SearchHit{}, Error: err.Error()}, nil // spec C1
	}
	if err := scopeCorpora(ctx, in.Corpora); err != nil { // access.go
		return nil, err
	}
	query, opts, err := a.searchOptions(in)
	if err != nil {
		return nil, err
	}
	// The first call waits for the first sync's full-text index (not for
	// vectors), within a bound; past it, what is indexed answers.
	a.waitFirstSync(ctx)
	hits, err := a.eng.Search(ctx, query, opts)
	a.tel.recordSearch(ctx, opts.Mode, a.eng.Embedder() != nil, start, len(hits), err)
	if errors.Is(err, cairn.ErrUnavailable) {
		return &SearchOut{Results: []SearchHit{}, Error: err.Error()}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out := &SearchOut{Results: make([]SearchHit, 0, len(hits))}
	for _, h := range hits {
		out.Results = append(out.Results, toHit(h, opts.Mode))
	}
	out.Warning = a.searchWarning(ctx, opts.Mode)
	notices := a.notices(ctx, len(hits) == 0)
	if len(hits) == 0 && namesMemories(opts.Corpora) && !memoriesLive(a.searchCorpora()) {
		notices = append(notices, engine.NoMemories)
	}
	out.Notice = strings.Join(notices, "; ")
	return out, nil
}

// memoriesLive reports whether the engine searches a memories corpus yet
// (a sessions corpus is configured or memories are stored).
func memoriesLive(corpora []cairn.Corpus) bool {
	return slices.ContainsFunc(corpora, func(c cairn.Corpus) bool { return c.Kind == cairn.KindMemories })
}

// namesMemories reports whether a corpora selection names the memories
// corpus (ignoring case, as SelectCorpora matches).
func namesMemories(names []string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(strings.TrimSpace(n), cairn.MemoriesCorpus) })
}

// searchWarning says why only the lexical lane answered: the embedder
// could not load, or chunks still wait for their vectors.
func (a *Agent) searchWarning(ctx context.Context, mode string) string {
	if mode == cairn.ModeLexical && a.EmbedderError != "" {
		return "vectors are off, so only the lexical lane answered: the embedder could not load: " + a.EmbedderError
	}
	if mode == cairn.ModeLexical || a.eng.Embedder() == nil {
		return ""
	}
	// The vector lane waits for the whole agent's vectors, but a token
	// limited to some corpora is told only how many of its own wait
	// (ScopedPendingEmbeddings); when none of those do, it hears that
	// chunks wait, not how many.
	n, err := a.eng.PendingEmbeddings(ctx)
	if err != nil || n == 0 {
		return ""
	}
	who := "a sync embeds them"
	if fs := a.first.snapshot(); fs != nil && fs.Status == firstRunning {
		who = "the server's first sync is embedding them"
	}
	own, err := a.eng.ScopedPendingEmbeddings(ctx)
	if err != nil || own == 0 {
		return "chunks are still waiting for vectors, so only the lexical lane answered; " + who
	}
	return fmt.Sprintf("%d chunks are still waiting for vectors, so only the lexical lane answered; %s", own, who)
}

// searchOptions validates in and turns it into the engine's options.
func (a *Agent) searchOptions(in SearchIn) (string, *cairn.SearchOptions, error) {
	var emb cairn.Embedder
	if a.eng != nil {
		emb = a.eng.Embedder()
	}
	o, err := a.searchOptionsOf(in, emb)
	if err != nil {
		return "", nil, err
	}
	return strings.TrimSpace(in.Query), o, nil
}

// searchOptionsOf validates in against the configured corpora and
// embedder emb (nil: none).
func (a *Agent) searchOptionsOf(in SearchIn, emb cairn.Embedder) (*cairn.SearchOptions, error) {
	query := strings.TrimSpace(in.Query)
	if query == "" {
		return nil, cairn.Invalidf("query is blank: give words, identifiers or a \"quoted phrase\" to search for")
	}
	o := &cairn.SearchOptions{Limit: DefaultMaxResults, MinScore: DefaultMinScore}
	if in.MaxResults != nil {
		// A search of the memories corpus alone may ask for every
		// instance (up to 200: counting and listing questions); others
		// stay at 20.
		if hi := maxResultsOf(in.Corpora); *in.MaxResults < 1 || *in.MaxResults > hi {
			return nil, cairn.Invalidf("maxResults %d out of range: allowed 1 to %d (up to %d when corpora is [\"memories\"])",
				*in.MaxResults, hi, cairn.MaxRecallLimit)
		}
		o.Limit = *in.MaxResults
	}
	if in.MinScore != nil {
		if math.IsNaN(*in.MinScore) || *in.MinScore < 0 || *in.MinScore > 1 {
			return nil, cairn.Invalidf("minScore %g out of range: allowed 0 to 1", *in.MinScore)
		}
		o.MinScore = *in.MinScore
	}
	switch in.Mode {
	case "", cairn.ModeHybrid:
		// The engine's default: hybrid with an embedder, else BM25 alone.
		o.Mode = cairn.ModeLexical
		if emb != nil {
			o.Mode = cairn.ModeHybrid
		}
	case cairn.ModeLexical:
		o.Mode = cairn.ModeLexical
	case cairn.ModeVector:
		if emb == nil && a.EmbedderError != "" {
			return nil, cairn.Invalidf("mode \"vector\" needs an embedder, and the configured one could not load (%s): use hybrid or lexical", a.EmbedderError)
		}
		if emb == nil {
			return nil, cairn.Invalidf("mode \"vector\" needs an embedder, and none is configured: use hybrid or lexical")
		}
		o.Mode = cairn.ModeVector
	default:
		return nil, cairn.Invalidf("mode %q: allowed hybrid, lexical or vector", in.Mode)
	}
	if in.Corpora != nil && len(in.Corpora) == 0 {
		// Spec C3: omitted or ["all"] is every corpus; an empty list is an
		// error, not a quiet "all".
		return nil, cairn.Invalidf("corpora: unknown corpus: [] selects none (omit corpora or pass [\"all\"] for every corpus; known: %s)",
			strings.Join(a.searchableNames(), ", "))
	}
	for i, c := range in.Corpora {
		if strings.TrimSpace(c) == "" {
			return nil, cairn.Invalidf("corpora[%d] is blank: allowed %s", i, strings.Join(a.searchableNames(), ", "))
		}
	}
	if len(a.searchable()) == 0 {
		return nil, fmt.Errorf("corpora: %w", a.noCorpus())
	}
	// The memories corpus may be named before the first memory: the
	// engine answers it with no hits (30c083d) and the notice says why.
	sel := a.searchCorpora()
	if !memoriesLive(sel) {
		sel = append(slices.Clip(sel), cairn.Corpus{Name: cairn.MemoriesCorpus, Kind: cairn.KindMemories})
	}
	if _, err := cairn.SelectCorpora(sel, in.Corpora); err != nil {
		return nil, fmt.Errorf("corpora: %w", err)
	}
	o.Corpora = in.Corpora
	f, err := sessionFilter(in.SessionFilter)
	if err != nil {
		return nil, err
	}
	o.Sessions = f
	if o.Memories, err = memoryFilter(in.MemoryFilter); err != nil {
		return nil, err
	}
	return o, nil
}

// maxResultsOf is the largest maxResults for a selection of corpora.
func maxResultsOf(corpora []string) int {
	if len(corpora) > 0 && !slices.ContainsFunc(corpora, func(c string) bool { return c != cairn.MemoriesCorpus }) {
		return cairn.MaxRecallLimit
	}
	return MaxMaxResults
}

// searchCorpora are the corpora a search can name: the configured ones
// and the memories corpus when the engine has it (a sessions corpus is
// configured or memories are stored).
func (a *Agent) searchCorpora() []cairn.Corpus {
	if a.eng == nil {
		return a.corpora
	}
	return a.eng.SearchCorpora()
}

// searchableNames names the corpora a search can name, skills aside.
func (a *Agent) searchableNames() []string {
	var out []string
	for _, c := range a.searchCorpora() {
		if c.Kind != cairn.KindSkills {
			out = append(out, c.Name)
		}
	}
	return out
}

// memoryFilter reads memoryFilter; the engine checks the values it holds
// (kinds, scope, status, dates) and names the field of a bad one.
func memoryFilter(in *MemoryFilter) (*cairn.MemorySearch, error) {
	if in == nil {
		return nil, nil
	}
	f := &cairn.MemorySearch{Scope: strings.TrimSpace(in.Scope), Project: strings.TrimSpace(in.Project),
		Status: strings.TrimSpace(in.Status), From: strings.TrimSpace(in.From), To: strings.TrimSpace(in.To)}
	for _, k := range in.Kinds {
		f.Kinds = append(f.Kinds, strings.TrimSpace(k))
	}
	var err error
	if f.ToldFrom, err = parseTime("memoryFilter.toldFrom", in.ToldFrom); err != nil {
		return nil, err
	}
	if f.ToldTo, err = parseTime("memoryFilter.toldTo", in.ToldTo); err != nil {
		return nil, err
	}
	if err := engine.CheckMemorySearch(f); err != nil {
		return nil, err
	}
	return f, nil
}

// sessionFilter validates the filter (spec C11 sessionFilter).
func sessionFilter(in *SessionFilter) (*cairn.SessionFilter, error) {
	if in == nil {
		return nil, nil
	}
	f := &cairn.SessionFilter{Provider: strings.TrimSpace(in.Provider), ChatType: strings.TrimSpace(in.ChatType),
		AccountID: strings.TrimSpace(in.AccountID), ConversationID: strings.TrimSpace(in.ConversationID),
		Source: strings.TrimSpace(in.Source), Cwd: in.Cwd}
	var err error
	if f.StartedFrom, err = parseTime("sessionFilter.startedFrom", in.StartedFrom); err != nil {
		return nil, err
	}
	if f.StartedTo, err = parseTime("sessionFilter.startedTo", in.StartedTo); err != nil {
		return nil, err
	}
	if !f.StartedFrom.IsZero() && !f.StartedTo.IsZero() && f.StartedFrom.After(f.StartedTo) {
		return nil, cairn.Invalidf("sessionFilter.startedFrom %s is after sessionFilter.startedTo %s: give a range that starts before it ends",
			in.StartedFrom, in.StartedTo)
	}
	if f.Source != "" && !contains(cairn.Sources, f.Source) {
		return nil, cairn.Invalidf("sessionFilter.source %q: allowed %s", f.Source, strings.Join(cairn.Sources, ", "))
	}
	return f, nil
}

// parseTime reads an ISO-8601 (RFC 3339) time with an offset.
func parseTime(field, v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, cairn.Invalidf("%s %q is not an ISO-8601 time with an offset: use e.g. 2026-05-04T09:00:00+02:00 or 2026-05-04T07:00:00Z", field, v)
	}
	return t, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// toHit converts an engine hit: scores rounded to hundredths, the snippet a
// string for files and a message array for sessions.
func toHit(h cairn.Hit, mode string) SearchHit {
	out := SearchHit{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Score: round2(h.Score),
		Snippet: h.Snippet, Corpus: h.Corpus, MessageTimestamp: h.MessageTimestamp}
	if h.Messages != nil {
		out.Snippet = h.Messages
	}
	if m := h.Memory; m != nil {
		out.Memory = &HitMemory{ID: m.ID, Kind: m.Kind, Title: m.Title, Status: m.Status, EventDate: m.EventDate,
			StartDate: m.StartDate, EndDate: m.EndDate, ToldAt: m.ToldAt, Scope: m.Scope, Sources: []MemorySource{}}
		for _, p := range m.Sources {
			out.Memory.Sources = append(out.Memory.Sources, MemorySource{Path: p.Path, StartLine: p.StartLine,
				EndLine: p.EndLine, SessionID: p.SessionID, ToldAt: p.ToldAt})
		}
	}
	if s := h.Session; s != nil {
		out.Session = &HitSession{SessionID: s.SessionID, Source: s.Source, Provider: s.Provider, ChatType: s.ChatType,
			AccountID: s.AccountID, ConversationID: s.ConversationID, Cwd: s.Cwd, Title: s.Title, StartedAt: s.StartedAt, ParentID: s.ParentID}
	}
	// textScore and vectorScore are the lanes' own measures (the BM25 score
	// as s/(1+s), the cosine); score is the calibrated one.
	switch sig := h.Signals; {
	case mode == cairn.ModeLexical && sig != nil:
		out.TextScore = ptr(round2(sig.BM25 / (1 + sig.BM25)))
	case mode == cairn.ModeVector && sig != nil:
		out.VectorScore = ptr(round2(sig.Cosine))
	case mode == cairn.ModeLexical:
		out.TextScore = ptr(round2(h.Score))
	case mode == cairn.ModeVector:
		out.VectorScore = ptr(round2(h.Score))
	default:
		if h.TextScore != nil {
			out.TextScore = ptr(round2(*h.TextScore))
		}
		if h.VectorScore != nil {
			out.VectorScore = ptr(round2(*h.VectorScore))
		}
	}
	return out
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func ptr[T any](v T) *T { return &v }

// memoryFilterSchema lists the allowed values of memoryFilter's fields in
// the schema.
func memoryFilterSchema(s *jsonschema.Schema) {
	var kinds []any
	for _, k := range append(append([]string{cairn.MemoryEpisode, cairn.MemoryObservation}, cairn.ItemKinds...), cairn.MemoryProfile) {
		kinds = append(kinds, k)
	}
	s.Properties["kinds"].Items.Enum = kinds
	s.Properties["scope"].Enum = []any{"project", "global", "person"}
	s.Properties["status"].Enum = []any{cairn.StatusActive}
}
