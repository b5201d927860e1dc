package consolidate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
)

// Forgetting a memory (cairn forget, memory_forget) goes through the
// store's one write of memories, CommitWindow, in two commits under the
// pass ForgottenPass of the memory's own thread, with the memory's id as
// the one record:
//
//  1. the memory is written again as it is, in a window of its own (it
//     leaves the window that wrote it, whose other memories and records
//     are not touched);
//  2. a window reading the same record and writing no memory replaces
//     that one: the memory is removed, and the sleep decisions involving
//     it are undone as for any memory a window stops writing (what it
//     added to a memory it was merged into is taken out again; a memory
//     it superseded or absorbed is active again).
//
// The record stays done in ForgottenPass: that checkpoint row is the
// tombstone. A window of the thread read again later (one of its records
// changed) that would write a memory of the same id drops it
// (DropForgotten), and the sleep pass does not build a forgotten profile
// again; a memory told again on purpose (remember, same kind, title and
// summary) is stored again. The records that consolidated a forgotten
// memory stay done in their own pass, so the next run does not read them
// again either.
//
// The two commits are not one transaction: a crash between them leaves
// the memory stored (in its window of one) and forgetting it again
// finishes the work.
const (
	ForgottenPass = "forgotten"
	DropForgotten = "forgotten"
)

// ForgetKey is the corpus and thread a memory's tombstone is kept under:
// its Thread split at the first slash ("sessions/claude-code/x.md" is
// corpus sessions, thread claude-code/x.md; "told/cli" is corpus told,
// thread cli; "profile/dana" is corpus profile, thread dana), as the
// worker and the sleep pass name the thread when they commit.
func ForgetKey(m *cairn.Memory) (corpus, thread string) {
	corpus, thread, _ = strings.Cut(m.Thread, "/")
	return corpus, thread
}

// Forget removes memory m from st as described above and returns what the
// two commits changed: Removed holds m, Touched the memories whose sleep
// decisions were undone. m must be the stored memory (st.Memory).
func Forget(ctx context.Context, st cairn.MemoryStore, m cairn.Memory) (cairn.Committed, error) {
	corpus, thread := ForgetKey(&m)
	w := cairn.WindowCommit{Corpus: corpus, Thread: thread, Pass: ForgottenPass, Records: []string{m.ID},
		Memories: []cairn.Memory{m}}
	moved, err := st.CommitWindow(ctx, w)
	if err != nil {
		return cairn.Committed{}, fmt.Errorf("forget memory %s: %w", m.ID, err)
	}
	w.Memories = nil
	gone, err := st.CommitWindow(ctx, w)
	if err != nil {
		return cairn.Committed{}, fmt.Errorf("forget memory %s: %w", m.ID, err)
	}
	out := cairn.Committed{Removed: gone.Removed}
	for _, id := range append(moved.Touched, gone.Touched...) {
		if id != m.ID && !slices.Contains(out.Touched, id) {
			out.Touched = append(out.Touched, id)
		}
	}
	if !slices.ContainsFunc(out.Removed, func(r cairn.Memory) bool { return r.ID == m.ID }) {
		return out, fmt.Errorf("forget memory %s: the store kept it", m.ID)
	}
	return out, nil
}

// Forgotten returns the ids of the memories forgotten in a thread (their
// tombstones).
func Forgotten(ctx context.Context, st cairn.MemoryStore, corpus, thread string) (map[string]bool, error) {
	done, err := st.DoneRecords(ctx, corpus, thread, ForgottenPass)
	if err != nil {
		return nil, fmt.Errorf("read forgotten memories of %s: %w", thread, err)
	}
	out := make(map[string]bool, len(done))
	for id := range done {
		out[id] = true
	}
	return out, nil
}

// dropForgotten leaves out of ms the memories forgotten in the thread,
// counting each in dropped.
func dropForgotten(ctx context.Context, st cairn.MemoryStore, corpus, thread string, ms []cairn.Memory, dropped map[string]int) ([]cairn.Memory, error) {
	if len(ms) == 0 {
		return ms, nil
	}
	gone, err := Forgotten(ctx, st, corpus, thread)
	if err != nil || len(gone) == 0 {
		return ms, err
	}
	return slices.DeleteFunc(ms, func(m cairn.Memory) bool {
		if gone[m.ID] {
			dropped[DropForgotten]++
			return true
		}
		return false
	}), nil
}

// ProfilesOf returns the profiles, active or superseded, built from
// observation obs: profiles of its subject whose sources hold every source
// of obs. Their text may say what obs said. A profile built from another
// observation of the same subject and record matches too; forgetting it
// costs a rebuild by the next sleep pass, no more.
func ProfilesOf(ctx context.Context, st cairn.MemoryStore, obs *cairn.Memory) ([]cairn.Memory, error) {
	key := conceptKey(obs.About)
	if obs.Kind != cairn.MemoryObservation || key == "" || len(obs.Provenance) == 0 {
		return nil, nil
	}
	ps, err := st.Memories(ctx, cairn.MemoryFilter{Kind: KindProfile})
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ps, func(p cairn.Memory) bool {
		if p.Thread != profileCorpus+"/"+key {
			return true
		}
		for _, src := range obs.Provenance {
			if !slices.Contains(p.Provenance, src) {
				return true
			}
		}
		return false
	}), nil
}
