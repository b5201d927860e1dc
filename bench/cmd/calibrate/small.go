package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/eval"
	"github.com/cairnmemory/cairn/local"
)

// smallConv names the searches of the small indexes in a dump.
const smallConv = "small"

// smallSizes are the note counts of the small indexes: a new user's first
// notes, where each lane holds the whole index and the query's signals
// (its best cosine, its best term share) are shared by every note.
var smallSizes = []int{3, 5}

// smallFixture asks the ranking fixture's questions and offTopic of small
// indexes made of the fixture's notes: for each size, ten indexes of
// consecutive notes (in name order, wrapping). A question is asked of every
// index that holds its expected note, which is the answer and the other
// notes are not; each off-topic query is asked of one index (by its place
// in the list), so the small indexes weigh as the fixture does among the
// off-topic searches.
func smallFixture(ctx context.Context, shared, mode string, offTopic []string) ([]eval.CalibrationQuery, error) {
	dir, err := filepath.Abs("engine/testdata/rank/notes")
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var notes []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			notes = append(notes, e.Name())
		}
	}
	sort.Strings(notes)
	questions, err := fixtureQuestions()
	if err != nil {
		return nil, err
	}
	questions = append(questions, smallParaphrases...)
	var out []eval.CalibrationQuery
	k := 0
	for _, size := range smallSizes {
		for start := range notes {
			var subset []string
			for i := range size {
				subset = append(subset, notes[(start+i)%len(notes)])
			}
			var asked []fixtureQuestion
			for _, q := range questions {
				for _, n := range subset {
					if q.want == "cairn://rank/"+n {
						asked = append(asked, q)
					}
				}
			}
			for i, t := range offTopic {
				if i%(len(smallSizes)*len(notes)) == k {
					asked = append(asked, fixtureQuestion{t, ""})
				}
			}
			k++
			qs, err := askSubset(ctx, shared, mode, dir, subset, fmt.Sprintf("small-%d-%d", size, start), asked)
			if err != nil {
				return nil, err
			}
			out = append(out, qs...)
		}
	}
	return out, nil
}

// askSubset indexes the notes of subset (copied from dir into a temporary
// folder) and asks qs of them, in mode.
func askSubset(ctx context.Context, shared, mode, dir string, subset []string, target string, qs []fixtureQuestion) ([]eval.CalibrationQuery, error) {
	var emb cairn.Embedder
	if mode != cairn.ModeLexical {
		var err error
		if emb, err = embedder(shared); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "cairn-calibrate-small")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	notes := filepath.Join(tmp, "notes")
	if err := os.MkdirAll(notes, 0o755); err != nil {
		return nil, err
	}
	for _, n := range subset {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(notes, n), data, 0o644); err != nil {
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
	return askFixture(ctx, eng, mode, smallConv, target, qs)
}

// smallParaphrases are questions about the fixture's notes in words the
// notes do not use, asked of the small indexes beside the fixture's own
// questions: in a small index none of their words may be known, and the
// vector lane is all that finds the note. Written for the fit; they share
// no query with engine TestParaphraseKept or TestTinyIndexScores.
var smallParaphrases = []fixtureQuestion{
	{"growing vegetables at home", "cairn://rank/garden.md"},
	{"a circle for gay and trans people", "cairn://rank/meeting-support-group.md"},
	{"holiday in portugal", "cairn://rank/travel.md"},
	{"shipping a new version to the servers", "cairn://rank/deploy-runbook.md"},
	{"why customers could not pay", "cairn://rank/incident-2024-03.md"},
	{"how many clients can the db take", "cairn://rank/postgres-pooling.md"},
	{"keeping a lock held while waiting", "cairn://rank/rust-async.md"},
	{"why the app launches faster now", "cairn://rank/parser-refactor.md"},
	{"which weekdays are releases allowed", "cairn://rank/team-preferences.md"},
	{"concurrent writers clash", "cairn://rank/sqlite-locking.md"},
}
