package cairn

import (
	"context"
	"errors"
)

// The storage seam. The engine holds a Storage and nothing else of a
// backend; a Backend opens one for a data directory. The interfaces are
// grouped by what the domain keeps, not by table:
//
//	Store        documents, their text, chunks and the lexical index (store.go)
//	VectorStore  the embeddings of chunks, by embedder identity
//	SessionStore session records, transcript states, projection settings (store.go)
//	SleepStore   memories, consolidation checkpoints, failures, sleep decisions
//	             and links (MemoryStore in memory.go, the rest in sleep.go)
//	Maintainer   housekeeping and the integrity checks of cairn doctor
//	CurationStore clustering runs (derived) and curation: maintenance tasks,
//	             event-date annotations, cached judgments (durable)
//	Porter       optional: every table of one agent read and written whole,
//	             for cairn export and cairn import (port.go)
//
// Package sqlite implements all of them (sqlite.Backend); the conformance
// suite in package storetest runs against any implementation.

// VectorStore keeps one vector per chunk and embedder identity (the model
// id, dimension and normalization, see Embedder), so a model change
// re-embeds instead of mixing spaces.
type VectorStore interface {
	// PendingChunks returns up to limit indexed, non-noise chunks that
	// have no vector made by identity, oldest first.
	PendingChunks(ctx context.Context, identity string, limit int) ([]PendingChunk, error)
	// PendingChunksOf returns the indexed, non-noise chunks of the
	// contents with these hashes that have no vector made by identity, in
	// chunk id order: what a caller that has just indexed a few documents
	// embeds at once (a remembered memory) without the rest of the backlog.
	PendingChunksOf(ctx context.Context, identity string, hashes []string) ([]PendingChunk, error)
	// CountPending counts the chunks PendingChunks would return.
	CountPending(ctx context.Context, identity string) (int, error)
	// CountEmbeddable counts the indexed, non-noise chunks.
	CountEmbeddable(ctx context.Context) (int, error)
	// PutVectors stores vecs[i] for chunk ids[i], made by identity.
	PutVectors(ctx context.Context, identity string, ids []int64, vecs [][]float32) error
	// EachVector calls fn with every vector made by identity, in chunk id
	// order; an error from fn stops the walk and is returned.
	EachVector(ctx context.Context, identity string, fn func(chunkID int64, v []float32) error) error
	// CountVectors counts the vectors made by identity.
	CountVectors(ctx context.Context, identity string) (int, error)
	// VectorsVersion changes whenever the stored vectors change; a file
	// that caches them records it to tell when it is stale.
	VectorsVersion(ctx context.Context) (int64, error)
	// ChunkDocs calls fn with every indexed chunk's id and document.
	ChunkDocs(ctx context.Context, fn func(chunkID int64, corpus, path string)) error
	// Chunks returns the indexed chunks with these ids (with their
	// documents and text; Score zero, no Lane), in no particular order; ids no
	// longer indexed are left out.
	Chunks(ctx context.Context, ids []int64) ([]Candidate, error)
	// ChunkTexts returns the text of the chunks with these ids.
	ChunkTexts(ctx context.Context, ids []int64) (map[int64]string, error)
}

// PendingChunk is a chunk that has no vector for the current embedder.
type PendingChunk struct {
	ID   int64
	Text string
}

// IndexStats counts what an index holds.
type IndexStats struct {
	Documents int
	Contents  int
	Chunks    int
	Bytes     int64 // size on disk (for SQLite: the file and its WAL)
}

// Strays counts rows a clean index never holds: content no document
// references (GC's work), full-text rows and vectors whose chunk is gone,
// and chunks missing from the full-text index.
type Strays struct {
	Content   int `json:"content"`
	FTSRows   int `json:"ftsRows"`
	Vectors   int `json:"vectors"`
	Unindexed int `json:"unindexedChunks"`
}

// Total is the number of stray rows.
func (s Strays) Total() int { return s.Content + s.FTSRows + s.Vectors + s.Unindexed }

// ErrDamaged matches the error of an index that failed its integrity
// check.
var ErrDamaged = errors.New("index is damaged")

// Maintainer is the housekeeping of an open index and the checks of cairn
// doctor that run on it.
type Maintainer interface {
	// FeatureChanged reports whether opening found an index built with
	// another StorageOptions.FeatureVersion and emptied it for a rebuild.
	FeatureChanged() bool
	// GCPending reports whether a commit left garbage collection due
	// (a sync killed before its GC).
	GCPending(ctx context.Context) (bool, error)
	// Optimize compacts the lexical index after large changes.
	Optimize(ctx context.Context) error
	// ChunkCount counts the stored chunks.
	ChunkCount(ctx context.Context) (int, error)
	// Stats counts documents, contents and chunks and the size on disk.
	Stats(ctx context.Context) (IndexStats, error)
	// RedactState returns the redaction state recorded for a corpus by
	// SetRedactState ("" when none was).
	RedactState(ctx context.Context, corpus string) (string, error)
	// SetRedactState records which redaction a corpus's documents went
	// through.
	SetRedactState(ctx context.Context, corpus, state string) error
	// QuickCheck runs a fast integrity check; damage fails with an error
	// matching ErrDamaged that names the file and the remedy.
	QuickCheck(ctx context.Context) error
	// CheckFTS runs the lexical index's own consistency check.
	CheckFTS(ctx context.Context) error
	// FindStrays counts stray rows (a scan; a maintenance check).
	FindStrays(ctx context.Context) (Strays, error)
	// DeleteStrayVectors deletes vectors whose chunk is gone.
	DeleteStrayVectors(ctx context.Context) (int, error)
	// RebuildFTS rebuilds the lexical index from the stored chunks.
	RebuildFTS(ctx context.Context) error
	// CheckDurable checks the durable state (memories) without changing
	// it: a finding with Problem set when it is damaged.
	CheckDurable(ctx context.Context) Finding
	// Diagnose names the file and the remedy when err is damage met by
	// operation op; other errors come back as they are.
	Diagnose(op string, err error) error
}

// Finding is what one backend check found, in words for cairn doctor.
type Finding struct {
	Problem bool
	Detail  string
	Fix     string // with Problem: what the user can do (doctor repairs nothing durable)
}

// CurationStore keeps the clustering runs (derived, in the index: a
// rebuild of the index drops them and reclustering makes them again) and
// the curation state an agent builds (durable, beside the memories):
// maintenance tasks, event-date annotations and cached judgments. Types in
// curation.go; storetest.TestCuration is the contract.
type CurationStore interface {
	// EachClusterChunk calls fn with every non-noise chunk of the contents
	// that documents of corpora hold (each content once, however many
	// documents hold it), in (hash, seq) order, with its text and its
	// vector made by identity (nil when none). An error from fn stops the
	// walk and is returned.
	EachClusterChunk(ctx context.Context, identity string, corpora []string, fn func(ClusterChunk) error) error
	// PutAnalysis stores a completed run and deletes every other run, in
	// one transaction: a failure leaves the previous run as it was.
	PutAnalysis(ctx context.Context, w *AnalysisWrite) error
	// LatestAnalysis returns the newest completed run, or ErrNotFound.
	// Writes that change the indexed documents after the run (Apply
	// indexing, changing or removing a document; PutVectors storing a
	// vector; PruneCorpora removing a document) set its StaleAt, as
	// MarkAnalysisStale does.
	LatestAnalysis(ctx context.Context) (AnalysisRun, error)
	// MarkAnalysisStale sets StaleAt of the latest run to now unless it is
	// already set.
	MarkAnalysisStale(ctx context.Context) error
	// AnalysisClusters returns the clusters of a run by id, noise (-1)
	// first when the run has any.
	AnalysisClusters(ctx context.Context, runID string) ([]AnalysisCluster, error)
	// AnalysisMembers returns the memberships q selects, by (hash, seq),
	// each with the indexed documents holding its content.
	AnalysisMembers(ctx context.Context, q MemberQuery) ([]AnalysisMember, error)
	// AnalysisDuplicates returns the duplicate occurrences of a run whose
	// canonical chunk is one of canonical, by canonical then duplicate key,
	// each with the indexed documents holding the duplicate's content.
	AnalysisDuplicates(ctx context.Context, runID string, canonical []ChunkKey) ([]DuplicateOccurrence, error)
	// ChunkKeyTexts returns the exact text of the chunks stored under
	// these keys; keys not stored are left out.
	ChunkKeyTexts(ctx context.Context, keys []ChunkKey) (map[ChunkKey]string, error)
	// ChunkOccurrences returns the non-noise chunks of the documents q
	// selects, by document id then seq, with their text.
	ChunkOccurrences(ctx context.Context, q OccurrenceQuery) ([]ChunkOccurrence, error)

	// PutMaintenanceTask adds a task under its unique key (type, corpus,
	// path, reason, fingerprint) with t.ID, status pending. A pending task
	// already there gets t.Detail and a new UpdatedAt; a closed one is left
	// as it is and never reopened. It returns the task as stored.
	PutMaintenanceTask(ctx context.Context, t MaintenanceTask) (MaintenanceTask, error)
	// MaintenanceTask returns one task, or ErrNotFound.
	MaintenanceTask(ctx context.Context, id string) (MaintenanceTask, error)
	// MaintenanceTasks returns the tasks f selects by CreatedAt, then ID.
	MaintenanceTasks(ctx context.Context, f TaskFilter) ([]MaintenanceTask, error)
	// UpdateMaintenanceTask sets a task's status and note and upserts the
	// annotation, in one transaction; ErrNotFound when no task has the id.
	UpdateMaintenanceTask(ctx context.Context, u TaskUpdate) (MaintenanceTask, error)
	// TemporalAnnotations returns every event-date annotation by corpus,
	// path and fingerprint.
	TemporalAnnotations(ctx context.Context) ([]TemporalAnnotation, error)
	// CachedJudgment returns the judgment stored under (policy, key).
	CachedJudgment(ctx context.Context, policy, key string) (string, bool, error)
	// PutCachedJudgment stores a judgment under (policy, key), replacing
	// any there.
	PutCachedJudgment(ctx context.Context, policy, key, value string) error
}

// Storage is everything the engine needs of a backend for one data
// directory. Implementations serialize writes and allow concurrent reads.
type Storage interface {
	Store
	VectorStore
	SessionStore
	SleepStore
	Maintainer
	CurationStore
	RecallStore // recall.go
	// LinksOfKind lists every memory link of one kind (LinkRelated, ...),
	// in no particular order: what the concept graph of explore is built
	// from.
	LinksOfKind(ctx context.Context, kind string) ([]MemoryLink, error)
	// HasMemories reports whether any memory is stored.
	HasMemories(ctx context.Context) (bool, error)
	// ProjectionKey returns the projection settings recorded for a
	// sessions corpus by SetProjectionKey ("" when none was).
	ProjectionKey(ctx context.Context, corpus string) (string, error)
	// SetProjectionKey records what shaped a sessions corpus's projections.
	SetProjectionKey(ctx context.Context, corpus, key string) error
	// MarkStale makes the next sync read a document's file again whatever
	// its size and mtime. A path not indexed is left alone.
	MarkStale(ctx context.Context, corpus, path string) error
	// RenameTranscript moves a transcript's state and session records from
	// one path to another in one transaction.
	RenameTranscript(ctx context.Context, corpus, from, to string) error
}

// SyncLocker is implemented by a Storage that processes on several
// machines share (a database server, package postgres): LockSync takes
// the agent's sync lock there, waiting while another process holds it,
// beside the data directory's file lock, so one sync at a time indexes the
// agent's corpora whichever server runs it. unlock releases it.
type SyncLocker interface {
	LockSync(ctx context.Context) (unlock func() error, err error)
}

// StorageOptions tune how a Backend opens a data directory's storage.
type StorageOptions struct {
	// FeatureVersion names the chunker and tokenizer; a stored index with
	// another one is emptied at open (Maintainer.FeatureChanged).
	FeatureVersion string
	// OneShot tunes the storage for a process that runs one command and
	// exits (for SQLite: no memory map).
	OneShot bool
	// Ident derives a chunk's identifier text when the backend re-indexes
	// stored chunks itself (search.IdentText).
	Ident func(body string) string
	// Logf, when set, hears about long migrations and worked-around
	// problems.
	Logf func(format string, args ...any)
}

// MemoryReader reads the memories of a data directory on their own, read
// only: what stays readable while the index beside them is damaged.
type MemoryReader interface {
	Memories(ctx context.Context, f MemoryFilter) ([]Memory, error)
	Memory(ctx context.Context, id string) (Memory, error)
	MemoryLinks(ctx context.Context, id string) ([]MemoryLink, error)
	Close() error
}

// IndexHealth is what Backend.CheckIndex found of the index file.
type IndexHealth struct {
	// Damaged: the index cannot be read or failed its integrity check; a
	// repair moves it aside and rebuilds it from the corpora.
	Damaged bool
	Detail  string
	// Kept says what a rebuild keeps, for the fix line ("memories are kept
	// in memory.db").
	Kept string
}

// Backend opens the storage of a data directory. It is passed to the
// engine explicitly (engine.Options.Backend): no registry, so a program
// links only the backends it names.
type Backend interface {
	// Open opens the storage of dir, creating and migrating it as needed.
	Open(ctx context.Context, dir string, o StorageOptions) (Storage, error)
	// OpenMemories opens the durable memories of dir alone, read only; it
	// fails with an error matching os.ErrNotExist when none are stored.
	OpenMemories(ctx context.Context, dir string) (MemoryReader, error)
	// CheckIndex opens the index of dir and runs its full integrity check.
	// A sound index comes back open; a damaged one comes back nil, with
	// IndexHealth.Damaged set. Errors are failures to check.
	CheckIndex(ctx context.Context, dir string, o StorageOptions) (Storage, IndexHealth, error)
	// CheckMemoriesAlone checks the durable memories of dir without the
	// index, read only (the index being damaged).
	CheckMemoriesAlone(ctx context.Context, dir string) Finding
	// MoveAside moves a damaged index out of the way (the durable state
	// stays) and returns where it went.
	MoveAside(dir string) (string, error)
}

// IndexPather is a Backend whose index is a file of the data directory
// (SQLite's index.db). Doctor asks it where, so that a directory with
// nothing indexed yet is reported as such rather than given an empty
// index; a backend whose index lives elsewhere (PostgreSQL) has no such
// file and does not implement it.
type IndexPather interface {
	IndexPath(dir string) string
}

// WriteAccessChecker is a Backend whose files in the data directory this
// user may be unable to write (SQLite's index.db, memory.db and their -wal
// and -shm). Doctor asks it first: a read-only file made every later check
// that writes fail with SQLite's "attempt to write a readonly database",
// which doctor reported as a full-text problem to rebuild, and a read-only
// memory.db passed as ok while every memory write failed.
type WriteAccessChecker interface {
	// UnwritableFiles names the files of dir (and dir itself) this user
	// may not write; none when every one may be written.
	UnwritableFiles(dir string) []string
}
