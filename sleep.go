package cairn

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Links between memories, written by the sleep pass.
const (
	// LinkRelated joins two memories on the same subject that say
	// different things; it is stored both ways.
	LinkRelated = "related"
	// LinkSupersedes goes from a newer memory to the older one it replaced
	// ("now X, before Y"); the older is superseded by the newer.
	LinkSupersedes = "supersedes"
	// LinkMerged goes from the memory kept to a near-duplicate merged into
	// it; the duplicate is superseded by the one kept.
	LinkMerged = "merged"
)

// MemoryLink is one link between two memories. JSON names are fixed.
type MemoryLink struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Kind   string `json:"kind"`             // LinkRelated, LinkSupersedes or LinkMerged
	Reason string `json:"reason,omitempty"` // the model's words, redacted
	// Added is what the link's decision added to From (a merge's cues,
	// concepts and sources; a supersession's note), kept so the decision
	// can be undone when To is consolidated again or removed.
	Added     *MemoryAddition `json:"added,omitempty"`
	CreatedAt time.Time       `json:"created_at"`
}

// MemoryAddition is what a sleep decision added to a memory.
type MemoryAddition struct {
	Cues       []string     `json:"cues,omitempty"`
	Concepts   []string     `json:"concepts,omitempty"`
	Provenance []Provenance `json:"provenance,omitempty"`
	Body       string       `json:"body,omitempty"` // text appended to the body, separator included
}

// Subtract takes an addition back out of m: its cues, concepts and sources,
// and its text from the body.
func (m *Memory) Subtract(a *MemoryAddition) {
	if a == nil {
		return
	}
	m.Cues = slices.DeleteFunc(m.Cues, func(c string) bool { return slices.Contains(a.Cues, c) })
	m.Concepts = slices.DeleteFunc(m.Concepts, func(c string) bool { return slices.Contains(a.Concepts, c) })
	m.Provenance = slices.DeleteFunc(m.Provenance, func(p Provenance) bool { return slices.Contains(a.Provenance, p) })
	if a.Body != "" {
		m.Body = strings.Replace(m.Body, a.Body, "", 1)
	}
}

// SleepChange is what the sleep pass applies for one candidate group, in
// one transaction.
type SleepChange struct {
	// Members are the group's memories: each must still be stored and
	// active, and every pair of them is marked judged.
	Members []string
	// Updates are members as rewritten (a kept memory's union, a newer
	// memory's note, a superseded one's status and pointer).
	Updates []Memory
	Links   []MemoryLink
	// Seen holds each member's MemoryFingerprint as the judge read it:
	// a member rewritten since (a consolidation replaced its window) fails
	// the change instead of being overwritten with the old copy.
	Seen map[string]string
}

// SleepStore is what the sleep pass needs from a store besides a
// MemoryStore.
type SleepStore interface {
	MemoryStore
	// JudgedPairs returns every pair of memories the sleep pass has judged,
	// each as [2]string{a, b} with a < b.
	JudgedPairs(ctx context.Context) (map[[2]string]bool, error)
	// ApplySleep applies one group's decisions atomically. It fails with an
	// error matching ErrNotFound when a member is gone or no longer active.
	ApplySleep(ctx context.Context, c SleepChange) error
	// MemoryLinks lists the links from or to a memory.
	MemoryLinks(ctx context.Context, id string) ([]MemoryLink, error)
}

// SleepOptions tune one sleep pass. A nil pointer means defaults.
type SleepOptions struct {
	DryRun bool // find the candidate groups, call no model
	Limit  int  // at most this many groups (0: no limit)
}

// SleepResult reports a sleep pass. JSON names are fixed.
type SleepResult struct {
	Groups     int `json:"groups"`     // groups judged (dry run: found)
	Merged     int `json:"merged"`     // duplicates merged into the memory kept
	Superseded int `json:"superseded"` // memories marked superseded by a newer one
	Linked     int `json:"linked"`     // pairs linked as related
	// Profiles counts the profile memories written (built for a subject
	// that enough observations are about, or rebuilt because they
	// changed); a dry run counts those it would write.
	Profiles int            `json:"profiles"`
	Dropped  map[string]int `json:"dropped"` // gate reason → count
	// Status is ConsolidateCompleted, a paused status,
	// ConsolidateCompletedWithFailures when some group's answer was
	// unusable twice, or ConsolidateFailed when every group's was.
	Status string `json:"status"`
	// Pending counts the candidate groups left unjudged (a pause, a limit,
	// an unusable answer).
	Pending int `json:"pending"`
	// InvalidAnswers counts the fast model's answers that could not be
	// used, retried ones included; Failed the groups left unjudged because
	// both answers were.
	InvalidAnswers int `json:"invalid_answers"`
	Failed         int `json:"failed"`
	// Plan lists the groups of a dry run.
	Plan      []SleepGroup `json:"plan,omitempty"`
	TokensIn  int          `json:"-"`
	TokensOut int          `json:"-"`
	Error     string       `json:"-"` // why the pass paused
}

// SleepGroup is one candidate group: memories of one kind family that
// look alike.
type SleepGroup struct {
	Family  string   `json:"family"` // observation, knowledge or howto
	Members []string `json:"members"`
	Titles  []string `json:"titles"`
	Score   float64  `json:"score"` // the weakest similarity that joined it
}
