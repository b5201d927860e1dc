package cairn

import "time"

// SyncOptions tune one sync. A nil *SyncOptions means all corpora, no progress.
type SyncOptions struct {
	Corpora  []string
	Force    bool // re-read every file and transcript and re-project every session
	Progress func(ProgressEvent)
}

// ProgressEvent reports sync progress for one corpus.
type ProgressEvent struct {
	Corpus string
	Done   int // files examined so far
	Total  int // files found by the scan
}

// FileFailure is a file sync could not index, with the reason.
type FileFailure struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// CorpusSyncResult counts what one corpus sync did. JSON names are fixed.
type CorpusSyncResult struct {
	Name      string        `json:"name"`
	Scanned   int           `json:"scanned"`
	Added     int           `json:"added"`
	Updated   int           `json:"updated"`
	Unchanged int           `json:"unchanged"`
	Removed   int           `json:"removed"`
	Failed    int           `json:"failed"`
	Chunks    int           `json:"chunks"` // chunks written by this sync
	Failures  []FileFailure `json:"failures,omitempty"`
	// Redactions counts, by kind, the secrets replaced in the documents
	// this sync wrote (files corpora; a sessions corpus counts them per
	// source in Sessions).
	Redactions map[string]int `json:"redactions,omitempty"`
	// Sessions reports the transcript side of a sessions corpus.
	Sessions *SessionSyncResult `json:"sessions,omitempty"`
}

// SyncResult is the outcome of Sync. JSON names are fixed.
type SyncResult struct {
	Corpora []CorpusSyncResult `json:"corpora"`
	Seconds float64            `json:"seconds"`
	// Embedded counts the chunks this sync embedded; PendingEmbeddings the
	// chunks still without a vector (an unavailable embedder pauses).
	Embedded          int `json:"embedded,omitempty"`
	PendingEmbeddings int `json:"pendingEmbeddings,omitempty"`
	// Pruned counts the documents removed because their corpus is no
	// longer configured (a sync of every corpus only).
	Pruned int `json:"pruned,omitempty"`
}

// Since returns seconds elapsed, rounded to milliseconds.
func Since(t time.Time) float64 {
	return float64(time.Since(t).Milliseconds()) / 1000
}
