package cairn

import (
	"context"
	"fmt"
	"strings"
)

// The portable form of an agent's storage: what cairn export writes and
// cairn import reads (the file format itself is package port's). Every
// backend keeps the same tables with the same columns, keyed by its own
// ids; the portable form leaves those ids out where they are the
// backend's to give (documents, chunks: rows come in id order and keep
// it) and names a vector's chunk by its content hash and sequence, so an
// import gives new ids in the same order and every reference stays
// right. Consolidation window ids are kept as they are, and the target's
// own ids are moved past them where they come from a shared
// sequence (PostgreSQL: the sequence is moved past the largest imported).
//
// Derived state that any backend makes again from what is carried is left
// out: the full-text index (rebuilt from the chunks in the import's
// transaction), counters and stamps (moved on by the import).

// PortType is the type of a portable column's values.
type PortType byte

const (
	PortText    PortType = 'T' // string
	PortInt     PortType = 'I' // int64
	PortNullInt PortType = 'N' // int64, or nil for SQL NULL
	PortFloat   PortType = 'F' // float64
	PortBytes   PortType = 'B' // []byte
	PortVector  PortType = 'V' // []float32
)

// PortColumn is one column of a portable table.
type PortColumn struct {
	Name string
	Type PortType
}

// PortTable is one table of the portable form, its columns in the order a
// PortRow's Values follow.
type PortTable struct {
	Name    string
	Columns []PortColumn
	// Order is the SQL ORDER BY of an export's rows: the key, or the
	// backend's id for tables whose ids the import gives anew.
	Order string
}

func cols(spec string) []PortColumn {
	var out []PortColumn
	for _, f := range strings.Fields(spec) {
		name, typ, _ := strings.Cut(f, ":")
		out = append(out, PortColumn{Name: name, Type: PortType(typ[0])})
	}
	return out
}

// Portable table names that importers treat specially.
const (
	PortContent = "content" // a document text: every chunk row of it follows it
	PortChunks  = "chunks"
	PortVectors = "vectors"
	PortWindows = "consolidation_windows"
)

// PortTables are the portable tables in the order an export writes them
// and an import needs them: a content row before its chunks, chunks
// before their vectors, windows before the memories and records naming
// them. Meta holds only the per-corpus keys "redact:<corpus>" and
// "projection:<corpus>".
var PortTables = []PortTable{
	{"meta", cols("key:T value:T"), "key"},
	{PortContent, cols("hash:T title:T doc:B created_at:I"), "hash"},
	{PortChunks, cols("hash:T seq:I pos:I len:I start_line:I end_line:I tokens:I noise:I"), "id"},
	{"documents", cols("corpus:T path:T hash:T size:I mtime:I created_at:I modified_at:I"), "id"},
	{PortVectors, cols("identity:T hash:T seq:I vec:V"), "chunk_id"},
	{"sessions", cols("corpus:T path:T source:T session_id:T provider:T chat_type:T account_id:T conversation_id:T cwd:T title:T parent_id:T started_at:I started_raw:T transcript:T projection_hash:T projector_version:I spans:T"), "corpus, path"},
	{"transcript_files", cols("corpus:T source:T path:T size:I mtime:I hash:T projector_version:I checked_at:I stats:T error:T"), "corpus, path"},
	{PortWindows, cols("id:I corpus:T thread:T pass:T records:I memories:I summary:T tokens_in:I tokens_out:I created_at:I"), "id"},
	{"memories", cols("id:T kind:T title:T summary:T body:T about:T corpus:T thread:T told_at:I event_date:T start_date:T end_date:T status:T superseded_by:T data:T created_at:I updated_at:I window_id:I"), "id"},
	{"consolidated_records", cols("corpus:T thread:T pass:T uid:T window_id:I hash:T"), "corpus, thread, pass, uid"},
	{"consolidation_failures", cols("corpus:T thread:T pass:T uid:T hash:T tries:I reason:T updated_at:I"), "corpus, thread, pass, uid"},
	{"memory_links", cols("from_id:T to_id:T kind:T reason:T added:T created_at:I"), "from_id, to_id, kind"},
	{"sleep_pairs", cols("a:T b:T"), "a, b"},
	{"memory_neighbours", cols("memory_id:T identity:T hash:T near:T"), "memory_id, identity"},
	{"maintenance_tasks", cols("id:T type:T corpus:T path:T reason:T content_fingerprint:T detail:T resolution_note:T status:T created_at:I updated_at:I"), "id"},
	{"temporal_annotations", cols("corpus:T path:T content_fingerprint:T event_time:I basis:T evidence:T chunk_hash:T chunk_seq:I created_at:I updated_at:I"), "corpus, path, content_fingerprint"},
	{"judgments", cols("policy:T key:T value:T created_at:I"), "policy, key"},
	{"analysis_runs", cols("id:T created_at:I completed_at:I input_digest:T model:T embedding_fingerprint:T dimensions:I params_json:T corpora:T clusters:I members:I noise:I stale_at:N"), "id"},
	{"analysis_clusters", cols("run_id:T cluster_id:I size:I mean_probability:F"), "run_id, cluster_id"},
	{"analysis_memberships", cols("run_id:T hash:T seq:I cluster_id:I probability:F outlier_score:F x:F y:F representative_rank:N"), "run_id, hash, seq"},
	{"analysis_duplicate_occurrences", cols("run_id:T content_fingerprint:T canonical_hash:T canonical_seq:I duplicate_hash:T duplicate_seq:I"), "run_id, duplicate_hash, duplicate_seq"},
}

// PortTableNamed returns the portable table called name.
func PortTableNamed(name string) (PortTable, bool) {
	for _, t := range PortTables {
		if t.Name == name {
			return t, true
		}
	}
	return PortTable{}, false
}

// PortRow is one row of a portable table: Values in the table's column
// order, each of its column's Go type. Line is where an import read it
// (for reports); exports leave it 0.
type PortRow struct {
	Table  string
	Values []any
	Line   int
}

// Check reports what makes r unfit for its table: an unknown table, a
// wrong number of values or a value of the wrong type.
func (r PortRow) Check() error {
	t, ok := PortTableNamed(r.Table)
	if !ok {
		return fmt.Errorf("unknown table %q", r.Table)
	}
	if len(r.Values) != len(t.Columns) {
		return fmt.Errorf("%s: %d values for %d columns", r.Table, len(r.Values), len(t.Columns))
	}
	for i, c := range t.Columns {
		ok := false
		switch v := r.Values[i]; c.Type {
		case PortText:
			_, ok = v.(string)
		case PortInt:
			_, ok = v.(int64)
		case PortNullInt:
			_, ok = v.(int64)
			ok = ok || v == nil
		case PortFloat:
			_, ok = v.(float64)
		case PortBytes:
			_, ok = v.([]byte)
		case PortVector:
			_, ok = v.([]float32)
		}
		if !ok {
			return fmt.Errorf("%s.%s: %T is not a %c value", r.Table, c.Name, r.Values[i], c.Type)
		}
	}
	return nil
}

// PortInfo describes a storage for an export's header.
type PortInfo struct {
	Backend        string           // "sqlite", "postgres"
	Schema         string           // the backend's schema versions, in words
	FeatureVersion string           // the chunker and tokenizer the chunks were made with
	Counts         map[string]int64 // rows per portable table
	// Models counts the vectors of each embedder identity (its Key) and
	// their dimension.
	Models []PortModel
}

// PortModel is one embedder identity's vectors in a storage.
type PortModel struct {
	Identity  string `json:"identity"`
	Dimension int    `json:"dimension"`
	Vectors   int64  `json:"vectors"`
}

// PortSource feeds an import: rows in PortTables order, io.EOF after the
// last. Reject hears about a row the store could not take (a vector whose
// chunk is not there, a duplicate key, a chunk outside its text); the
// import goes on without it.
type PortSource interface {
	Next() (PortRow, error)
	Reject(r PortRow, reason string)
	// Done is called after the last row is written, before the commit:
	// an error rolls the whole import back. Drop names content hashes
	// whose text lost chunk rows on the way: the import deletes those
	// contents, their chunks and vectors and the documents naming them
	// in the same transaction, so that no document looks complete with
	// a hole in its chunks and the next sync indexes it again from its
	// file.
	Done() (drop []string, err error)
}

// Porter is implemented by a Storage that can be exported and imported
// whole (cairn export, cairn import): every table of one agent, read in
// one snapshot and written in one transaction.
type Porter interface {
	// PortInfo counts what an export would write.
	PortInfo(ctx context.Context) (PortInfo, error)
	// Export calls fn with every row, table by table in PortTables order,
	// all read in one snapshot; an error from fn stops it and is returned.
	Export(ctx context.Context, fn func(PortRow) error) error
	// Import writes every row src gives into the agent. A storage that
	// holds anything is refused with an error matching ErrInvalid unless
	// replace is set; then what it held is deleted first, in the same
	// transaction. An error leaves the storage as it was (see the
	// backend's notes on what a crash leaves).
	Import(ctx context.Context, replace bool, src PortSource) error
}
