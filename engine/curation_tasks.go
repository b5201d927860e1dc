package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
)

// The maintenance inbox (C21 to C23). Tasks point at sources; resolving
// one records the agent's decision (and, for an event date, an
// annotation Cairn reads from then on). Cairn never edits a source.

// Limits of the inbox tools.
const (
	DefaultTaskList = 5
	MaxTaskList     = 10
	MaxTaskNote     = 500 // characters of a note or an annotation's evidence
)

// Reasons of quality_review tasks (C25).
const (
	ReasonEmptyContent   = "empty_content"
	ReasonDoubleEncoded  = "possible_double_encoded_message"
	ReasonSerialized     = "possible_serialized_message"
	ReasonIngestionNoise = "possible_ingestion_noise"
)

// Task actions and the statuses they set.
var taskActions = map[string]string{"resolve": cairn.TaskResolved, "defer": cairn.TaskDeferred, "irrelevant": cairn.TaskIrrelevant}

// TaskStatuses are the statuses a list can ask for.
var TaskStatuses = []string{cairn.TaskPending, cairn.TaskResolved, cairn.TaskDeferred, cairn.TaskIrrelevant}

// TaskActions are the allowed update actions.
var TaskActions = []string{"resolve", "defer", "irrelevant"}

// AnnotationBases are the allowed annotation bases.
var AnnotationBases = []string{cairn.BasisPath, cairn.BasisFrontmatter, cairn.BasisSession, cairn.BasisAgentVerified}

// Task is a maintenance task as the tools show it.
type Task struct {
	ID                 string         `json:"id"`
	Type               string         `json:"type" jsonschema:"ambiguous_event_time, exact_duplicate or quality_review"`
	Corpus             string         `json:"corpus"`
	Collection         string         `json:"collection" jsonschema:"the corpus (Cairn keeps one collection per corpus)"`
	Path               string         `json:"path" jsonschema:"the document, relative to its corpus"`
	Reason             string         `json:"reason"`
	ContentFingerprint string         `json:"contentFingerprint"`
	Detail             map[string]any `json:"detail" jsonschema:"what the task is about and what to do (an instruction)"`
	ResolutionNote     *string        `json:"resolutionNote"`
	Status             string         `json:"status"`
	CreatedAt          string         `json:"createdAt"`
	UpdatedAt          string         `json:"updatedAt"`
	IndexPresence      string         `json:"indexPresence,omitempty" jsonschema:"quality_review: present_in_index or not_present_in_index (whether the chunk is still indexed; absence does not resolve the task)"`
}

func taskOf(t cairn.MaintenanceTask) Task {
	out := Task{ID: t.ID, Type: t.Type, Corpus: t.Corpus, Collection: t.Corpus, Path: t.Path, Reason: t.Reason,
		ContentFingerprint: t.Fingerprint, Detail: map[string]any{}, Status: t.Status,
		CreatedAt: isoTime(t.CreatedAt), UpdatedAt: isoTime(t.UpdatedAt)}
	if t.Detail != "" {
		_ = json.Unmarshal([]byte(t.Detail), &out.Detail) // written by this package: an object
	}
	if t.Note != "" {
		n := t.Note
		out.ResolutionNote = &n
	}
	return out
}

// ListTasks returns up to limit tasks of a status (""; pending; limit 0:
// DefaultTaskList). Urgent quality reviews come first (evidence ≥ 0.8,
// and noise ≥ 0.8 or a double-encoded message: useful facts trapped in
// debris), then the oldest.
func (e *Engine) ListTasks(ctx context.Context, status string, limit int) ([]Task, error) {
	if status == "" {
		status = cairn.TaskPending
	}
	if !slices.Contains(TaskStatuses, status) {
		return nil, cairn.Invalidf("status %q: allowed %s", status, strings.Join(TaskStatuses, ", "))
	}
	if limit == 0 {
		limit = DefaultTaskList
	}
	if limit < 1 || limit > MaxTaskList {
		return nil, cairn.Invalidf("limit %d out of range: allowed 1 to %d", limit, MaxTaskList)
	}
	ts, err := e.store.MaintenanceTasks(ctx, cairn.TaskFilter{Status: status, Corpora: readList(ctx)}) // scope.go
	if err != nil {
		return nil, err
	}
	out := make([]Task, 0, limit)
	for _, t := range ts {
		out = append(out, taskOf(t))
	}
	slices.SortStableFunc(out, func(a, b Task) int { return boolRank(urgent(b)) - boolRank(urgent(a)) })
	out = out[:min(len(out), limit)]
	for i := range out {
		if out[i].Type == cairn.TaskQualityReview {
			if out[i].IndexPresence, err = e.indexPresence(ctx, out[i]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// urgent: a quality review whose chunk holds evidence worth keeping in
// debris that should go.
func urgent(t Task) bool {
	if t.Type != cairn.TaskQualityReview {
		return false
	}
	num := func(k string) float64 { f, _ := t.Detail[k].(float64); return f }
	return num("evidence") >= 0.8 && (num("noise") >= 0.8 || t.Reason == ReasonDoubleEncoded)
}

// indexPresence says whether the task's fingerprint still matches a chunk
// of the indexed document.
func (e *Engine) indexPresence(ctx context.Context, t Task) (string, error) {
	occ, err := e.store.ChunkOccurrences(ctx, cairn.OccurrenceQuery{Corpora: []string{t.Corpus}, Path: t.Path, AfterSeq: -1})
	if err != nil {
		return "", err
	}
	for _, o := range occ {
		if fingerprint(o.Text) == t.ContentFingerprint {
			return "present_in_index", nil
		}
	}
	return "not_present_in_index", nil
}

// TaskUpdateRequest closes or defers a task.
type TaskUpdateRequest struct {
	TaskID     string
	Action     string // resolve, defer or irrelevant
	Note       string
	Annotation *AnnotationRequest
}

// AnnotationRequest is the event date an agent found for a task.
type AnnotationRequest struct {
	Scope     string // chunk (default) or document
	EventTime string // ISO 8601 with an offset
	Basis     string // one of AnnotationBases
	Evidence  string
}

// UpdateTask applies an action to a task, with its annotation, in one
// transaction; a task that does not exist is cairn.ErrNotFound. Requests
// that break C23's rules match cairn.ErrInvalid.
func (e *Engine) UpdateTask(ctx context.Context, req TaskUpdateRequest) (*Task, error) {
	status, ok := taskActions[req.Action]
	switch {
	case strings.TrimSpace(req.TaskID) == "":
		return nil, cairn.Invalidf("taskId is required: an id from memory_list_maintenance_tasks")
	case !ok:
		return nil, cairn.Invalidf("action %q: allowed %s", req.Action, strings.Join(TaskActions, ", "))
	case req.Note != "" && (strings.TrimSpace(req.Note) == "" || utf8.RuneCountInString(req.Note) > MaxTaskNote):
		return nil, cairn.Invalidf("note: want 1 to %d characters, not blank", MaxTaskNote)
	}
	t, err := e.scopedTask(ctx, req.TaskID)
	if err != nil {
		return nil, err
	}
	if err := CanWrite(ctx, t.Corpus); err != nil { // scope.go
		return nil, err
	}
	u := cairn.TaskUpdate{ID: t.ID, Status: status, Note: strings.TrimSpace(req.Note), At: time.Now().UTC()}
	switch {
	case t.Type == cairn.TaskAmbiguousEventTime && req.Action == "resolve" && req.Annotation == nil:
		return nil, cairn.Invalidf("annotation is required to resolve an ambiguous_event_time task: give eventTime, basis and evidence (or defer it, or mark it irrelevant)")
	case req.Annotation != nil && (t.Type != cairn.TaskAmbiguousEventTime || req.Action != "resolve"):
		return nil, cairn.Invalidf("annotation: only resolving an ambiguous_event_time task takes one (this is %s with action %s)", t.Type, req.Action)
	case t.Type == cairn.TaskQualityReview && req.Action == "resolve" && u.Note == "":
		return nil, cairn.Invalidf("note is required to resolve a quality_review task: say what was done about the source")
	}
	if req.Annotation != nil {
		if u.Annotation, err = e.annotation(ctx, t, *req.Annotation, u.At); err != nil {
			return nil, err
		}
	}
	got, err := e.store.UpdateMaintenanceTask(ctx, u)
	if err != nil {
		return nil, err
	}
	out := taskOf(got)
	return &out, nil
}

// annotation checks an annotation request and places it: the document,
// or the chunk by the task's fingerprint (with where it is now).
func (e *Engine) annotation(ctx context.Context, t cairn.MaintenanceTask, a AnnotationRequest, at time.Time) (*cairn.TemporalAnnotation, error) {
	scope := a.Scope
	if scope == "" {
		scope = "chunk"
	}
	if scope != "chunk" && scope != "document" {
		return nil, cairn.Invalidf("annotation.scope %q: allowed chunk, document", a.Scope)
	}
	when, err := time.Parse(time.RFC3339Nano, a.EventTime)
	if err != nil {
		return nil, cairn.Invalidf("annotation.eventTime %q: want ISO 8601 with an offset, as 2024-05-06T07:00:00Z or 2024-05-06T09:00:00+02:00", a.EventTime)
	}
	if !slices.Contains(AnnotationBases, a.Basis) {
		return nil, cairn.Invalidf("annotation.basis %q: allowed %s", a.Basis, strings.Join(AnnotationBases, ", "))
	}
	if ev := strings.TrimSpace(a.Evidence); ev == "" || utf8.RuneCountInString(a.Evidence) > MaxTaskNote {
		return nil, cairn.Invalidf("annotation.evidence: want 1 to %d characters, not blank", MaxTaskNote)
	}
	out := &cairn.TemporalAnnotation{Corpus: t.Corpus, Path: t.Path, EventTime: when.UTC(), Basis: a.Basis,
		Evidence: strings.TrimSpace(a.Evidence), CreatedAt: at, UpdatedAt: at}
	if scope == "document" {
		return out, nil
	}
	if t.Fingerprint == "" {
		return nil, cairn.Invalidf("annotation.scope chunk: task %s names no chunk (no fingerprint): use scope document", t.ID)
	}
	out.Fingerprint = t.Fingerprint
	occ, err := e.store.ChunkOccurrences(ctx, cairn.OccurrenceQuery{Corpora: []string{t.Corpus}, Path: t.Path, AfterSeq: -1})
	if err != nil {
		return nil, err
	}
	for _, o := range occ {
		if fingerprint(o.Text) == t.Fingerprint {
			out.Chunk = cairn.ChunkKey{Hash: o.Hash, Seq: o.Seq}
			break
		}
	}
	return out, nil
}

// scopedTask reads one task. Under a scope that limits the corpora read
// (scope.go) the task is looked up among the tasks of those corpora, the
// corpus condition in the store's query, so a task of another corpus is
// not found, as an unknown id is.
func (e *Engine) scopedTask(ctx context.Context, id string) (cairn.MaintenanceTask, error) {
	corpora := readList(ctx)
	if corpora == nil {
		return e.store.MaintenanceTask(ctx, id)
	}
	ts, err := e.store.MaintenanceTasks(ctx, cairn.TaskFilter{Corpora: corpora})
	if err != nil {
		return cairn.MaintenanceTask{}, err
	}
	for _, t := range ts {
		if t.ID == id {
			return t, nil
		}
	}
	return cairn.MaintenanceTask{}, fmt.Errorf("read maintenance task %s: %w", id, cairn.ErrNotFound)
}
