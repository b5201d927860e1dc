package engine

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/cairnmemory/cairn"
)

// memoryGate is what a search of an engine with no memory stored knows
// about the memories corpus in the index, so that it need not ask the
// store on every search whether memories arrived (liveCorpora asks, one
// statement; on PostgreSQL a round trip, 1 of the 2.6 statements of a warm
// lexical search).
//
// The index answers instead. The documents of the memories corpus are
// written with the memories, by whichever process stores them (Remember,
// consolidation, sleep, import), so while the index holds none of its own
// a search of every corpus can take the memories corpus in: it adds no
// hit until a memory exists and then finds it at once, whoever stored it.
// It changes no score either: the lexical statistics are index-wide. That
// holds from the moment the first search has seen, in one look, no memory
// stored and no memories document indexed (gateClean). An index holding
// such documents without memories (a memory.db deleted or replaced by
// hand) keeps the old way (gateAsk): the store is asked on every search,
// and its documents stay out until a memory is stored again.
type memoryGate struct {
	state atomic.Int32
}

// States of a memoryGate.
const (
	gateUnknown int32 = iota // not looked yet
	gateClean                // no memories documents without memories: the index answers
	gateAsk                  // documents without memories: ask the store each search
)

// searchCorpora returns the corpora a search selects from, given the
// corpus names it asked for and the mode it runs in, asking the store as
// little as it can while the memories corpus is not live (see liveCorpora,
// the answer Sync takes, and memoryGate):
//
//   - names that leave the memories corpus out need no answer;
//   - names that include it are answered by the store (HasMemories), so
//     that it is selectable only once a memory is stored;
//   - no names (or "all") in lexical mode: after the first look, the
//     memories corpus is searched with the others without a question.
//
// Hybrid and vector mode ask as before: the vector lane reads its filter
// from the configured corpora that are live (searchableCorpora), and a
// memories corpus taken in while not live would turn that filter off.
// With no other corpus configured the store is asked too, so a search
// still says that no corpus is configured.
func (e *Engine) searchCorpora(ctx context.Context, g *memoryGate, names []string, mode string) ([]cairn.Corpus, error) {
	if e.recall.live.Load() {
		return e.opts.Corpora, nil
	}
	if !(len(names) == 0 || len(names) == 1 && names[0] == "all") {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, cairn.MemoriesCorpus) }) {
			return lessMemories(e.opts.Corpora), nil
		}
		return e.liveCorpora(ctx)
	}
	lexical := mode == cairn.ModeLexical || mode == "" && e.opts.Embedder == nil
	if !lexical || !slices.ContainsFunc(e.opts.Corpora, func(c cairn.Corpus) bool {
		return c.Kind != cairn.KindMemories && c.Kind != cairn.KindSkills
	}) {
		return e.liveCorpora(ctx)
	}
	switch g.state.Load() {
	case gateClean:
		return e.opts.Corpora, nil
	case gateAsk:
		return e.liveCorpora(ctx)
	}
	return e.lookMemories(ctx, g)
}

// lookMemories is a gate's first look: memories stored make the corpus
// live; else the index's memories documents decide the gate's state.
// The memories are asked first: a memory stored between the two reads
// comes with its document, which sends the gate to gateAsk, whose next
// search finds the memory.
func (e *Engine) lookMemories(ctx context.Context, g *memoryGate) ([]cairn.Corpus, error) {
	has, err := e.store.HasMemories(ctx)
	if err != nil {
		return nil, err
	}
	if has {
		e.recall.live.Store(true)
		return e.opts.Corpora, nil
	}
	docs, err := e.store.DocStates(ctx, cairn.MemoriesCorpus)
	if err != nil {
		return nil, err
	}
	if len(docs) > 0 {
		g.state.Store(gateAsk)
		return lessMemories(e.opts.Corpora), nil
	}
	g.state.Store(gateClean)
	return e.opts.Corpora, nil
}

// lessMemories is corpora less the memories corpus, in a new slice.
func lessMemories(corpora []cairn.Corpus) []cairn.Corpus {
	return slices.DeleteFunc(slices.Clone(corpora), func(c cairn.Corpus) bool { return c.Kind == cairn.KindMemories })
}
