package cairn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// The memories corpus: consolidated memories rendered as documents and
// indexed like any corpus. Its name is reserved in configurations.
const (
	KindMemories   = "memories"
	MemoriesCorpus = "memories"
)

// Memory kinds: an episode (one record worth finding again), a dated
// observation, an item of one of the nine ItemKinds, or a profile (what
// the observations about one person or entity say, written by the sleep
// pass: consolidate/profile.go).
const (
	MemoryEpisode     = "episode"
	MemoryObservation = "observation"
	MemoryProfile     = "profile"
)

// ItemKinds are the nine kinds of durable, reusable knowledge an item can
// be, in the order the prompt lists them.
var ItemKinds = []string{"decision", "procedure", "snippet", "template", "pitfall", "fact", "architecture", "preference", "reference"}

// Memory statuses.
const (
	StatusActive     = "active"
	StatusSuperseded = "superseded"
)

// Memory is one consolidated memory: an episode, an item or an
// observation, with where it came from. Every text field is redacted
// before it is stored. JSON names are fixed.
type Memory struct {
	ID      string `json:"id"` // content-derived: consolidating a window again yields the same ids
	Kind    string `json:"kind"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
	Body    string `json:"body,omitempty"`

	// Items.
	AppliesWhen string `json:"applies_when,omitempty"`
	Scope       string `json:"scope,omitempty"`      // project, global or person
	Confidence  string `json:"confidence,omitempty"` // verified or stated (the gate drops inferred)
	Importance  int    `json:"importance,omitempty"` // 1..5
	// Episodes: success, partial, fail or uncertain.
	Outcome string `json:"outcome,omitempty"`
	// Observations: who or what it is about, and done, plan, ongoing or state.
	About string `json:"about,omitempty"`
	Phase string `json:"phase,omitempty"`

	Cues     []string `json:"cues"`
	Concepts []string `json:"concepts"`

	// Thread names the conversation: the sessions corpus and the
	// projection path of the session.
	Thread     string       `json:"thread"`
	Source     string       `json:"source,omitempty"` // transcript source (claude-code, codex, ...)
	Provenance []Provenance `json:"provenance"`

	// ToldAt is when it was said (the first source record), zero and left
	// out of the JSON when unknown; EventDate, StartDate and EndDate when
	// it happened (YYYY, YYYY-MM or YYYY-MM-DD).
	ToldAt    time.Time `json:"told_at,omitzero"`
	EventDate string    `json:"event_date,omitempty"`
	StartDate string    `json:"start_date,omitempty"`
	EndDate   string    `json:"end_date,omitempty"`

	Status       string    `json:"status"`                  // StatusActive or StatusSuperseded
	SupersededBy string    `json:"superseded_by,omitempty"` // the memory that replaced it
	CreatedAt    time.Time `json:"created_at"`
}

// Provenance is one source record of a memory, down to the transcript
// document (a session projection) and its line range.
type Provenance struct {
	Record     string `json:"record"` // the record's uid
	Corpus     string `json:"corpus"`
	Path       string `json:"path"` // the projection, cairn://<corpus>/<path>
	StartLine  int    `json:"startLine"`
	EndLine    int    `json:"endLine"`
	SessionID  string `json:"sessionId,omitempty"`
	Transcript string `json:"transcript,omitempty"` // the source file the session was read from
	ToldAt     string `json:"toldAt,omitempty"`     // the record's timestamp as projected
}

// MemoryHit is what a search hit in the memories corpus carries: which
// memory matched, when it happened and was told, and the transcript lines
// it came from. JSON names are fixed.
type MemoryHit struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Title  string `json:"title"`
	Status string `json:"status"`
	// EventDate, StartDate and EndDate are when it happened, at the
	// precision the memory has (YYYY, YYYY-MM or YYYY-MM-DD); ToldAt when
	// it was said (RFC 3339, UTC).
	EventDate string       `json:"eventDate,omitempty"`
	StartDate string       `json:"startDate,omitempty"`
	EndDate   string       `json:"endDate,omitempty"`
	ToldAt    string       `json:"toldAt,omitempty"`
	Scope     string       `json:"scope,omitempty"` // items: project, global or person
	Sources   []Provenance `json:"sources"`
}

// MemoryFilter selects memories to list. Zero fields match anything.
type MemoryFilter struct {
	Kind   string
	Thread string
	Status string
	Limit  int // 0: no limit

	// Kinds, when not empty, keeps memories of these kinds (with Kind, of
	// both).
	Kinds []string
	// Scope keeps items of this scope (project, global or person).
	Scope string
	// Threads, when not nil, keeps memories of these threads
	// (corpus/projection path); an empty list keeps none.
	Threads []string
	// ToldFrom and ToldTo bound when a memory was told, inclusive.
	ToldFrom, ToldTo time.Time
	// EventFrom and EventTo (YYYY, YYYY-MM or YYYY-MM-DD, either may be
	// empty for an open end) keep memories whose event date, or start to
	// end span, overlaps the range at the precision each side has (see
	// DateBounds). A memory with no event date and no span does not match
	// when either is set.
	EventFrom, EventTo string
}

// MaxRecallLimit is the most results one search returns when it searches
// the memories corpus alone (a gather or a count needs every instance);
// searches that take in other corpora stop at MaxSearchLimit.
const MaxRecallLimit = 200

// MemorySearch narrows the memory hits of a search (SearchOptions.Memories);
// hits from the other corpora searched stay eligible. Zero fields match
// anything.
type MemorySearch struct {
	Kinds []string // episode, observation or an item kind
	Scope string   // items of this scope: project, global or person
	// Project keeps memories consolidated from sessions that ran in this
	// working folder (the session's cwd, exact after trimming).
	Project string
	// Status is active (the default, also for ""). Superseded memories
	// are out of the index; list them with cairn memories list.
	Status string
	// ToldFrom and ToldTo bound when the memory was told, inclusive.
	ToldFrom, ToldTo time.Time
	// From and To bound when it happened (YYYY, YYYY-MM or YYYY-MM-DD):
	// the overlap rule of MemoryFilter.EventFrom.
	From, To string
}

// IsZero reports whether the filter keeps every active memory.
func (f *MemorySearch) IsZero() bool {
	return f == nil || len(f.Kinds) == 0 && f.Scope == "" && f.Project == "" && (f.Status == "" || f.Status == StatusActive) &&
		f.ToldFrom.IsZero() && f.ToldTo.IsZero() && f.From == "" && f.To == ""
}

// DateBounds returns the first and last day a date of the given precision
// covers, as YYYY-MM-DD strings that compare in time order: "2023" is
// 2023-01-01 to 2023-12-31, "2023-06" 2023-06-01 to 2023-06-31 (a day
// that sorts after every day of June, which is all a bound needs), and a
// full date is itself. ok is false for anything else.
func DateBounds(d string) (first, last string, ok bool) {
	layout := map[int]string{4: "2006", 7: "2006-01", 10: "2006-01-02"}[len(d)]
	if layout == "" {
		return "", "", false
	}
	if _, err := time.Parse(layout, d); err != nil {
		return "", "", false
	}
	switch len(d) {
	case 4:
		return d + "-01-01", d + "-12-31", true
	case 7:
		return d + "-01", d + "-31", true
	}
	return d, d, true
}

// WindowCommit is what one consolidated window writes in one transaction:
// its memories and the records it marks done for one pass.
type WindowCommit struct {
	Corpus  string
	Thread  string // projection path of the session
	Pass    string // "main" or "observations"
	Records []string
	// Hashes holds the content hash of each of Records, in order: a record
	// whose text hashes differently later is read again.
	Hashes []string
	// Replaces names earlier windows of this pass that this one replaces
	// besides those that read its records: windows whose records are all
	// gone from the thread (edited into new records, or removed).
	Replaces []int64
	Memories []Memory
	Summary  string // the window's segment_summary, redacted
	TokensIn int
	// TokensOut counts the answer's tokens.
	TokensOut int
}

// Committed is what a window's commit changed besides storing the
// window's memories.
type Committed struct {
	Removed []Memory // memories of replaced windows not written again
	// Touched names other memories it changed: sleep decisions undone
	// because a memory they involved was written again or removed.
	Touched []string
}

// DoneRecord is one record's checkpoint in one pass.
type DoneRecord struct {
	Hash   string // the record's content hash when it was read; "" when read before hashes were kept
	Window int64  // the window that read it
}

// MemoryStore keeps consolidated memories and which records each pass has
// consolidated.
type MemoryStore interface {
	// CommitWindow writes a window's memories (replacing any with the same
	// id) and marks its records done, atomically. When some of its records
	// were done before, the earlier windows that read them are replaced:
	// their memories that this window does not write again are removed,
	// and their other records become pending. Sleep decisions involving a
	// memory written again or removed are undone.
	CommitWindow(ctx context.Context, w WindowCommit) (Committed, error)
	// DoneRecords returns the checkpoint of a thread in a pass: each done
	// record's uid with its hash and window.
	DoneRecords(ctx context.Context, corpus, thread, pass string) (map[string]DoneRecord, error)
	// Memories lists memories, newest told first.
	Memories(ctx context.Context, f MemoryFilter) ([]Memory, error)
	// Memory returns one memory or ErrNotFound.
	Memory(ctx context.Context, id string) (Memory, error)
	// KnownNames returns up to limit names other threads' observations are
	// about, most frequent first.
	KnownNames(ctx context.Context, excludeThread string, limit int) ([]string, error)
	// RecordFailure notes that a window's answer was unusable in one more
	// run: each of its records' tries grow by one (start again at one for
	// a record whose hash changed) and keep the reason. It returns the
	// window's tries: the most any of its records has. A commit of a
	// window clears its records' failures.
	RecordFailure(ctx context.Context, f FailureCommit) (tries int, err error)
	// FailedRecords returns the failures of a thread's records in a pass,
	// by record uid.
	FailedRecords(ctx context.Context, corpus, thread, pass string) (map[string]FailedRecord, error)
}

// FailureCommit is what RecordFailure writes for one window.
type FailureCommit struct {
	Corpus  string
	Thread  string // projection path of the session
	Pass    string
	Records []string
	Hashes  []string // in the order of Records
	Reason  string   // redacted
}

// FailedRecord is one record's failure state in one pass.
type FailedRecord struct {
	Hash   string // the record's content hash when its window last failed
	Tries  int    // runs whose answer for it was unusable, in a row
	Reason string // the last run's
}

// WindowFailure reports a window whose answer was unusable. JSON names
// are fixed.
type WindowFailure struct {
	Thread  string `json:"thread"`
	Pass    string `json:"pass"`
	Records int    `json:"records"`
	Tries   int    `json:"tries"`  // runs that failed on it, this one included
	Reason  string `json:"reason"` // why the last answer could not be used
	// GivenUp: the window failed in MaxFailures runs and later runs skip
	// it until they are asked to retry (cairn consolidate --retry-failed).
	GivenUp bool `json:"given_up"`
	// Skipped: this run did not ask about it (given up before).
	Skipped bool `json:"skipped"`
}

// Consolidation statuses.
const (
	ConsolidateCompleted         = "completed"
	ConsolidatePausedUnavailable = "paused_unavailable"
	ConsolidatePausedBusy        = "paused_busy"
	// ConsolidateCompletedWithFailures: the run went through its windows
	// (or groups), but the model's answer for some was unusable after a
	// second try; they are listed in Failures and their records stay
	// pending.
	ConsolidateCompletedWithFailures = "completed_with_failures"
	// ConsolidateFailed: every window (or group) the run asked about had
	// an unusable answer; nothing was stored.
	ConsolidateFailed = "failed"
)

// ConsolidateOptions tune one consolidation run. A nil pointer means
// defaults: every thread, no window limit.
type ConsolidateOptions struct {
	Thread string // a session id or projection path; empty: every thread
	Limit  int    // at most this many windows (0: no limit)
	DryRun bool   // plan the windows, call no model
	// RetryFailed asks again about windows given up after failing in
	// several runs (see WindowFailure.GivenUp).
	RetryFailed bool
	// Progress, when set, is told about each window as it is read.
	Progress func(WindowPlan)
}

// ConsolidateResult reports a run. JSON names are fixed.
type ConsolidateResult struct {
	Threads      int            `json:"threads"`  // threads with pending records at the start
	Windows      int            `json:"windows"`  // windows committed (dry run: planned)
	Episodes     int            `json:"episodes"` // memories stored
	Items        int            `json:"items"`
	Observations int            `json:"observations"`
	Dropped      map[string]int `json:"dropped"` // gate reason → count
	Pending      int            `json:"pending"` // records still waiting after the run, held ones included
	Status       string         `json:"status"`
	// Held counts the pending records held back because their thread is
	// still going (its last record, until the thread has been idle for a
	// while).
	Held int `json:"held"`
	// Replaced counts memories removed because the window that wrote them
	// was read again (one of its records changed) and did not write them
	// again.
	Replaced int `json:"replaced"`
	// Plan lists the windows of a dry run.
	Plan []WindowPlan `json:"plan,omitempty"`
	// InvalidAnswers counts the model's answers that could not be used
	// (cut at the output limit, not JSON, off the schema), retried ones
	// included.
	InvalidAnswers int `json:"invalid_answers"`
	// Failed counts the windows of Failures.
	Failed int `json:"failed"`
	// Failures lists the windows whose answer was unusable in this run,
	// and those skipped because they were given up before.
	Failures []WindowFailure `json:"failures,omitempty"`
	// TokensIn and TokensOut count what the model was sent and answered,
	// invalid and retried answers included (the CLI prints them on
	// stderr: the JSON keys are fixed).
	TokensIn  int `json:"-"`
	TokensOut int `json:"-"`
	// Error says why the run paused or what a window's answer lacked.
	Error string `json:"-"`
}

// WindowPlan describes one window: a run of whole records, or one long
// record read in parts.
type WindowPlan struct {
	Thread  string `json:"thread"`
	Pass    string `json:"pass"` // "main" or "observations"
	Records int    `json:"records"`
	Parts   int    `json:"parts"` // model calls: 1, or the parts of a long record
	Chars   int    `json:"chars"` // characters sent, prompts included
	Tokens  int    `json:"tokens_est"`
}

// MemoryFingerprint identifies a memory's stored content: it changes
// whenever any field does.
func MemoryFingerprint(m Memory) string {
	b, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
