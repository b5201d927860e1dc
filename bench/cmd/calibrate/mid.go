package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/eval"
	"github.com/cairnmemory/cairn/local"
)

// midConv names the searches of the mid-sized indexes in a dump; each
// index is its own Target ("mid-300"), the fold that leave-one-index-out
// holds out.
const midConv = "mid"

// midSizes are the generated notes beside the fixture's ten in the
// mid-sized indexes (bench/corpus, default note size: 100 make about 1,100
// chunks, 300 about 3,200). There each lane holds a small part of the
// index: a vector hit that holds none of the query's words is no longer
// rare, and the query's best cosine and term share say nothing of it.
var midSizes = []int{100, 300}

// midRare are queries of which one fixture note holds one or two rare
// words and the rest are nonsense or absent, written for the fit: the
// note is the answer, every other hit is not. They share no query with
// engine TestMidIndexScores.
var midRare = []fixtureQuestion{
	{"pgbouncer xylofant", "cairn://rank/postgres-pooling.md"},
	{"frobbly kubectl undo", "cairn://rank/deploy-runbook.md"},
	{"basil heatwave quenzor", "cairn://rank/garden.md"},
	{"alfama trelbin plaxy", "cairn://rank/travel.md"},
	{"tokio spawn wibbleton", "cairn://rank/rust-async.md"},
	{"checkpoint truncate gorvish", "cairn://rank/sqlite-locking.md"},
	{"authorisations snorfle", "cairn://rank/incident-2024-03.md"},
	{"volunteer youth centre blenkit", "cairn://rank/meeting-support-group.md"},
	{"load_settings zumbrack", "cairn://rank/parser-refactor.md"},
	{"british spelling quaffnel", "cairn://rank/team-preferences.md"},
}

// midFixture asks the fixture's questions, the paraphrases of the small
// indexes and midRare (unless ask is false) and offTopic of indexes of the fixture's notes beside
// generated ones (midSizes), in mode. The expected note is a question's
// answer and every other hit a negative.
func midFixture(ctx context.Context, shared, mode string, offTopic []string, ask bool) ([]eval.CalibrationQuery, error) {
	dir, err := filepath.Abs("engine/testdata/rank/notes")
	if err != nil {
		return nil, err
	}
	var questions []fixtureQuestion
	if ask {
		if questions, err = fixtureQuestions(); err != nil {
			return nil, err
		}
		questions = append(append(questions, smallParaphrases...), midRare...)
	}
	for _, t := range offTopic {
		questions = append(questions, fixtureQuestion{t, ""})
	}
	var out []eval.CalibrationQuery
	for i, n := range midSizes {
		qs, err := askMid(ctx, shared, mode, dir, n, int64(11+i), questions)
		if err != nil {
			return nil, err
		}
		out = append(out, qs...)
	}
	return out, nil
}

// askMid indexes the fixture's notes of dir and n generated notes (seed)
// in a temporary folder and asks qs of it in mode.
func askMid(ctx context.Context, shared, mode, dir string, n int, seed int64, qs []fixtureQuestion) ([]eval.CalibrationQuery, error) {
	var emb cairn.Embedder
	if mode != cairn.ModeLexical {
		var err error
		if emb, err = embedder(shared); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "cairn-calibrate-mid")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	notes := filepath.Join(tmp, "notes")
	if _, _, err := corpus.Generate(filepath.Join(notes, "gen"), corpus.Options{Notes: n, Seed: seed}); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(notes, e.Name()), data, 0o644); err != nil {
			return nil, err
		}
	}
	eng, err := local.Open(ctx, engine.Options{Dir: filepath.Join(tmp, "index"), Embedder: emb,
		Corpora: []cairn.Corpus{{Name: "rank", Kind: cairn.KindFiles, Paths: []string{notes}}}})
	if err != nil {
		return nil, err
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		return nil, err
	}
	return askFixture(ctx, eng, mode, midConv, fmt.Sprintf("mid-%d", n), qs)
}
