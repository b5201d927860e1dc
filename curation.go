package cairn

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Curation vocabulary (C17 to C23 of the tools spec): clustering runs over
// the indexed chunks, and the maintenance tasks and event-date annotations
// an agent works through. Runs are derived state, rebuilt by reclustering;
// tasks, annotations and cached judgments are durable: nothing else holds
// what an agent decided.

// ChunkKey names a chunk by the content it belongs to and its sequence
// number there: the same text in two documents is one chunk.
type ChunkKey struct {
	Hash string
	Seq  int
}

// ClusterChunk is one chunk of the clustering population: its place in
// the content, its exact text and its vector (nil when the chunk has none
// for the identity asked for).
type ClusterChunk struct {
	Hash   string
	Seq    int
	Pos    int
	Len    int
	Text   string
	Vector []float32
}

// AnalysisRun is one completed clustering run.
type AnalysisRun struct {
	ID          string // a random UUID
	CreatedAt   time.Time
	CompletedAt time.Time
	InputDigest string // sha256 hex over the clustered chunks and vectors
	Model       string // the embedding model
	// EmbeddingFingerprint is sha256 hex of the embedder identity's key.
	EmbeddingFingerprint string
	Dimensions           int
	// Params is the JSON of the options: requested, resolved, effective
	// and the corpora, keys sorted, compact.
	Params  string
	Corpora []string // sorted
	// Clusters, Members and Noise count what the run stored: clusters,
	// memberships (noise included) and noise memberships.
	Clusters int
	Members  int
	Noise    int
	// StaleAt is when a change to the index first made the run stale
	// (zero: fresh).
	StaleAt time.Time
}

// AnalysisCluster is one cluster of a run as stored (ID -1: noise, which
// has no cluster row and comes from the memberships alone).
type AnalysisCluster struct {
	ID              int
	Size            int     // the size stored with the cluster
	MeanProbability float64 // stored; for noise the mean of its members' (0)
	// Members counts the memberships to the cluster; a valid run has
	// Members == Size for every cluster.
	Members int
	// Available counts the members whose content an indexed document
	// still holds.
	Available int
}

// AnalysisMember is one unique chunk's place in a run.
type AnalysisMember struct {
	Hash               string
	Seq                int
	Cluster            int // −1: noise
	Probability        float64
	OutlierScore       float64
	X, Y               float64
	RepresentativeRank int // 1 to 50; 0: none
	// Sources are the indexed documents that hold the chunk's content, by
	// corpus and path (read back, never stored in the run).
	Sources []ChunkSource
}

// ChunkSource is an indexed document holding a chunk.
type ChunkSource struct {
	Corpus  string
	Path    string
	ModTime time.Time // the file's modification time
	// SessionStart is the start of the session projected at Path (zero
	// when the document is no session or its start is unknown).
	SessionStart time.Time
}

// DuplicateOccurrence is a later occurrence of an exact duplicate: a
// chunk whose text equals that of the canonical chunk (the first by hash
// and sequence), left out of the clustering.
type DuplicateOccurrence struct {
	Fingerprint string // sha256 hex of the chunk text
	Canonical   ChunkKey
	Duplicate   ChunkKey
	// Sources are the indexed documents holding the duplicate's content
	// (read back, never stored; SessionStart unset).
	Sources []ChunkSource
}

// ChunkOccurrence is an indexed, non-noise chunk in one document: what
// the quality audit pages through and the maintenance inbox checks a
// fingerprint against.
type ChunkOccurrence struct {
	DocumentID int64 // the backend's document id, increasing as documents are added
	Corpus     string
	Path       string
	Hash       string // the document's content hash
	Seq        int
	StartLine  int
	EndLine    int
	Text       string
}

// OccurrenceQuery selects chunk occurrences by (DocumentID, Seq), after
// a cursor.
type OccurrenceQuery struct {
	Corpora []string // the documents of these corpora (empty: none)
	// Path, when set, keeps the one document of Corpora[0] at Path.
	Path     string
	AfterDoc int64 // occurrences after (AfterDoc, AfterSeq); 0, -1: from the start
	AfterSeq int
	Limit    int // at most this many; 0: all
}

// AnalysisWrite is everything one run stores, written in one transaction
// that deletes every other run.
type AnalysisWrite struct {
	Run        AnalysisRun
	Clusters   []AnalysisCluster // without noise; Members and Available unused
	Members    []AnalysisMember  // every unique chunk, noise too; Sources unused
	Duplicates []DuplicateOccurrence
}

// MemberQuery selects memberships of a run.
type MemberQuery struct {
	RunID string
	// Cluster selects one cluster (−1: noise) unless AllClusters is set.
	Cluster     int
	AllClusters bool
	// MaxRank, when positive, keeps the members with a representative rank
	// of 1 to MaxRank.
	MaxRank int
	// Corpora, when not nil, keeps the Sources of these corpora (names
	// ignoring case): a caller's grant on a team server (engine.Scope),
	// applied in the store's query, so a content that a document of
	// another corpus also holds does not name that document.
	Corpora []string
}

// Maintenance task types, statuses and annotation bases (C21).
const (
	TaskAmbiguousEventTime = "ambiguous_event_time"
	TaskExactDuplicate     = "exact_duplicate"
	TaskQualityReview      = "quality_review"

	TaskPending    = "pending"
	TaskResolved   = "resolved"
	TaskDeferred   = "deferred"
	TaskIrrelevant = "irrelevant"

	BasisPath          = "path"
	BasisFrontmatter   = "frontmatter"
	BasisSession       = "session"
	BasisAgentVerified = "agent_verified"
)

// MaintenanceTask is one item of the maintenance inbox: something about
// a source an agent should look at. Cairn never edits the source itself.
type MaintenanceTask struct {
	ID          string // MaintenanceTaskID of the unique key
	Type        string // TaskAmbiguousEventTime, TaskExactDuplicate, TaskQualityReview
	Corpus      string
	Path        string
	Reason      string
	Fingerprint string // the chunk text's sha256 hex; "" for a whole document
	Detail      string // JSON, refreshed while the task is pending
	Note        string // the resolution note of a closed task
	Status      string // TaskPending, TaskResolved, TaskDeferred, TaskIrrelevant
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// MaintenanceTaskID is the id of the task with this unique key (type,
// corpus, path, reason, fingerprint): the first 16 hex digits of its
// sha256, so adding the same task again finds the same row in any backend.
func MaintenanceTaskID(typ, corpus, path, reason, fingerprint string) string {
	h := sha256.New()
	for _, s := range []string{typ, corpus, path, reason, fingerprint} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// TaskFilter selects maintenance tasks; empty fields select all.
type TaskFilter struct {
	Status string
	Type   string
	// Corpora, when not nil, keeps the tasks of these corpora (an empty
	// list keeps none): a caller's grant on a team server (engine.Scope),
	// applied in the store's query.
	Corpora []string
}

// TemporalAnnotation records when what a source says happened: for a
// whole document (Fingerprint "") or for one chunk, found again by the
// fingerprint of its text wherever the text moves.
type TemporalAnnotation struct {
	Corpus      string
	Path        string
	Fingerprint string
	EventTime   time.Time // UTC
	Basis       string    // BasisPath, BasisFrontmatter, BasisSession, BasisAgentVerified
	Evidence    string
	// Chunk is where the chunk was when it was annotated (zero for a
	// document).
	Chunk     ChunkKey
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TaskUpdate closes or defers a task, optionally with an annotation,
// in one transaction.
type TaskUpdate struct {
	ID         string
	Status     string // TaskResolved, TaskDeferred, TaskIrrelevant
	Note       string
	Annotation *TemporalAnnotation // upserted by (corpus, path, fingerprint)
	At         time.Time
}
