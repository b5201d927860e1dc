package eval

import (
	"context"
	"os"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/transcript"
)

// checkMode fills the defaults shared by every dataset and refuses a mode
// that needs an embedder when there is none.
func checkMode(mode *string, limit *int, emb cairn.Embedder) error {
	if *mode == "" {
		*mode = cairn.ModeLexical
	}
	if *mode != cairn.ModeLexical && emb == nil {
		return cairn.Invalidf("mode %q needs an embedder: configure [embedder] or use --mode lexical", *mode)
	}
	if *limit == 0 {
		*limit = 50
	}
	return nil
}

// openEval opens a fresh store (in dir, else a temporary folder removed by
// the returned close) with one sessions corpus that keeps every chat type.
func openEval(ctx context.Context, dir string, emb cairn.Embedder) (*engine.Engine, func(), error) {
	return openEvalOn(ctx, dir, emb, nil)
}

// openEvalOn is openEval over a storage backend (nil: SQLite's, as
// local.Fill picks).
func openEvalOn(ctx context.Context, dir string, emb cairn.Embedder, backend cairn.Backend) (*engine.Engine, func(), error) {
	cleanup := func() {}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "cairn-eval")
		if err != nil {
			return nil, nil, err
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	}
	eng, err := local.Open(ctx, engine.Options{Dir: dir, Backend: backend, Embedder: emb, Corpora: []cairn.Corpus{{Name: "sessions", Kind: cairn.KindSessions,
		ChatTypes: []string{"direct", "group", "channel"}, MaxExpandedTokens: cairn.DefaultMaxExpandedTokens}}})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return eng, func() { eng.Close(ctx); cleanup() }, nil
}

// retrieveTurns asks question within one conversation and returns the
// turn ids ("<session>:<n>", n by message position) the hits' line ranges
// cover, in rank order. session names a session from its id. A question
// with nothing searchable has no hits. minScore cuts the calibrated score
// as the CLI and MCP defaults do (0: no cut).
func retrieveTurns(ctx context.Context, eng *engine.Engine, conv, question, mode string, limit int, minScore float64, session func(id string) string) ([]string, error) {
	hits, err := eng.Search(ctx, question, &cairn.SearchOptions{Limit: limit, Mode: mode, MinScore: minScore, Sessions: &cairn.SessionFilter{ConversationID: conv}})
	if err != nil {
		if strings.Contains(err.Error(), "only common words") || strings.Contains(err.Error(), "no words") {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	cache := map[string][]transcript.Span{}
	for _, h := range hits {
		turns, err := hitTurns(ctx, eng, h, cache, session)
		if err != nil {
			return nil, err
		}
		out = append(out, turns...)
	}
	return out, nil
}
