package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/judge"
)

// The quality audit (C25): indexed chunks of approved corpora, in order
// after a cursor, classed in code and judged by the judge's
// quality-v3-isolated rubric; what looks like ingestion debris becomes a
// quality_review task. Judgments are cached in the durable store by
// policy, source kind and fingerprint. Cairn never edits a source.

// Judge asks judgments (*judge.Judge).
type Judge interface {
	Ask(ctx context.Context, req *judge.Request) (*judge.Judgment, error)
	Policy(r *judge.Rubric) string
}

var _ Judge = (*judge.Judge)(nil)

// Limits of the judged curation.
const (
	DefaultAuditLimit  = 10
	MaxAuditLimit      = 20
	MaxAuditChunkChars = 6000
	CurationDeadline   = 30 * time.Second // an audit's or review's whole deadline
	DefaultMinNoise    = 0.8
	auditExcerptChars  = 400
)

// Classes and triage of audited chunks.
const (
	ClassEmpty      = "empty"
	ClassEncoded    = "encoded_message"
	ClassSerialized = "serialized_message"
	ClassPlain      = "plain_or_structured"

	TriageContext  = "context_review"
	TriagePreserve = "preserve_evidence_repair"
	TriageInspect  = "inspect_scaffolding"
)

// AuditCursor is where an audit stopped: the last occurrence completed.
type AuditCursor struct {
	DocumentID int64 `json:"documentId"`
	Seq        int   `json:"seq"`
}

// AuditOptions are one audit call.
type AuditOptions struct {
	Judge    Judge
	Corpora  []string // qualityAudit.corpora
	MinNoise float64  // qualityAudit.minNoise
	Limit    int      // occurrences to scan, 1 to 20; 0: 10
	After    *AuditCursor
}

// AuditScope says what an audit or review was allowed to read.
type AuditScope struct {
	Corpora  []string `json:"corpora"`
	MinNoise *float64 `json:"minNoise,omitempty"`
}

// AuditGroup gathers the pending quality reviews of one corpus, source
// kind, reason and triage.
type AuditGroup struct {
	Corpus   string `json:"corpus"`
	Source   string `json:"source" jsonschema:"files or sessions"`
	Reason   string `json:"reason"`
	Triage   string `json:"triage"`
	Pending  int    `json:"pending"`
	Examples []Task `json:"examples" jsonschema:"at most 3 of the group's tasks"`
}

// AuditResult is one audit call's answer.
type AuditResult struct {
	Status           string       `json:"status" jsonschema:"ok, or partial when a judgment failed or the deadline passed (next resumes)"`
	Done             bool         `json:"done" jsonschema:"the scan reached the end of the approved corpora"`
	Next             *AuditCursor `json:"next,omitempty" jsonschema:"pass as after to continue"`
	Scanned          int          `json:"scanned"`
	Judged           int          `json:"judged"`
	Cached           int          `json:"cached"`
	SkippedOversized int          `json:"skippedOversized"`
	SkippedStale     int          `json:"skippedStale"`
	Flagged          int          `json:"flagged"`
	Groups           []AuditGroup `json:"groups"`
	Policy           string       `json:"policy"`
	Scope            AuditScope   `json:"scope"`
	Error            string       `json:"error,omitempty"`
	Reason           string       `json:"reason,omitempty" jsonschema:"disabled, unavailable or busy: why"`
}

// audited is one occurrence's way through an audit.
type audited struct {
	occ       cairn.ChunkOccurrence
	kind      string // files or sessions
	class     string
	fp        string
	noise     float64
	evidence  float64
	indicator string
	err       error
	skip      string // "oversized", "stale"
	cached    bool
	asked     bool
}

// AuditQuality runs one audit call (C25) within CurationDeadline.
func (e *Engine) AuditQuality(ctx context.Context, o AuditOptions) (*AuditResult, error) {
	ctx, cancel := context.WithTimeout(ctx, CurationDeadline)
	defer cancel()
	if o.Limit == 0 {
		o.Limit = DefaultAuditLimit
	}
	if o.Limit < 1 || o.Limit > MaxAuditLimit {
		return nil, cairn.Invalidf("limit %d out of range: allowed 1 to %d", o.Limit, MaxAuditLimit)
	}
	if err := canReadAll(ctx, o.Corpora); err != nil { // scope.go
		return nil, err
	}
	q := cairn.OccurrenceQuery{Corpora: o.Corpora, AfterSeq: -1, Limit: o.Limit + 1}
	if o.After != nil {
		q.AfterDoc, q.AfterSeq = o.After.DocumentID, o.After.Seq
	}
	occ, err := e.store.ChunkOccurrences(ctx, q)
	if err != nil {
		return nil, err
	}
	more := len(occ) > o.Limit
	occ = occ[:min(len(occ), o.Limit)]
	policy := o.Judge.Policy(judge.QualityIsolated)
	mn := o.MinNoise
	res := &AuditResult{Status: "ok", Policy: policy, Scope: AuditScope{Corpora: o.Corpora, MinNoise: &mn}, Groups: []AuditGroup{}}
	items := e.classify(occ)
	if err := e.judgeAudit(ctx, o.Judge, policy, items); err != nil {
		return nil, err
	}
	if err := e.markStale(ctx, items); err != nil {
		return nil, err
	}
	last := o.After
	for i := range items {
		it := &items[i]
		if it.err != nil {
			res.Status, res.Error = "partial", it.err.Error()
			break
		}
		res.Scanned++
		switch {
		case it.skip == "oversized":
			res.SkippedOversized++
		case it.skip == "stale":
			res.SkippedStale++
		default:
			res.Judged += boolRank(it.asked)
			res.Cached += boolRank(it.cached)
			flagged, err := e.flag(ctx, it, o.MinNoise, policy)
			if err != nil {
				return nil, err
			}
			res.Flagged += boolRank(flagged)
		}
		last = &AuditCursor{DocumentID: it.occ.DocumentID, Seq: it.occ.Seq}
	}
	res.Done = res.Status == "ok" && !more
	if !res.Done && last != nil {
		res.Next = last
	}
	if res.Groups, err = e.auditGroups(ctx, o.Corpora); err != nil {
		return nil, err
	}
	return res, nil
}

// classify gives each occurrence its source kind and class (C25) and
// sets aside the oversized.
func (e *Engine) classify(occ []cairn.ChunkOccurrence) []audited {
	out := make([]audited, len(occ))
	for i, o := range occ {
		it := audited{occ: o, kind: "files", class: classOf(o.Text), fp: fingerprint(o.Text)}
		if c, ok := e.corpus(o.Corpus); ok && c.Kind == cairn.KindSessions {
			it.kind = "sessions"
		}
		if utf8.RuneCountInString(o.Text) > MaxAuditChunkChars {
			it.skip = "oversized"
		}
		out[i] = it
	}
	return out
}

// classOf is C25's class: empty; a JSON string that decodes to a message
// object (a message encoded twice); a message object; anything else.
func classOf(text string) string {
	t := strings.TrimSpace(text)
	if t == "" {
		return ClassEmpty
	}
	var s string
	if json.Unmarshal([]byte(t), &s) == nil && isMessage(s) {
		return ClassEncoded
	}
	if isMessage(t) {
		return ClassSerialized
	}
	return ClassPlain
}

// isMessage reports whether s is a JSON object with string role and
// content.
func isMessage(s string) bool {
	var m map[string]any
	if json.Unmarshal([]byte(strings.TrimSpace(s)), &m) != nil {
		return false
	}
	_, role := m["role"].(string)
	_, content := m["content"].(string)
	return role && content
}

// auditKey is C25's cache key: sha256 of the JSON [policy, source kind,
// fingerprint].
func auditKey(policy, kind, fp string) string {
	b, _ := json.Marshal([]string{policy, kind, fp})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

type qualityVerdict struct {
	Noise    float64 `json:"noise"`
	Evidence float64 `json:"evidence"`
}

// judgeAudit fills noise and evidence: empty chunks without a request
// (noise 1, evidence 0), cached ones from the store, the rest with one
// request each, all at once. A failed request is the item's err.
func (e *Engine) judgeAudit(ctx context.Context, j Judge, policy string, items []audited) error {
	var wg sync.WaitGroup
	for i := range items {
		it := &items[i]
		if it.skip != "" {
			continue
		}
		if it.class == ClassEmpty {
			it.noise, it.evidence, it.indicator = 1, 0, "deterministic_empty"
			continue
		}
		key := auditKey(policy, it.kind, it.fp)
		if v, ok, err := e.store.CachedJudgment(ctx, policy, key); err != nil {
			return err
		} else if ok {
			var qv qualityVerdict
			if json.Unmarshal([]byte(v), &qv) == nil {
				it.noise, it.evidence, it.cached, it.indicator = qv.Noise, qv.Evidence, true, "judge"
				continue
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := j.Ask(ctx, &judge.Request{Rubric: judge.QualityIsolated,
				State: map[string]any{"chunks": []map[string]string{{"text": it.occ.Text, "sourceKind": it.kind}}}})
			if err != nil {
				it.err = err
				return
			}
			it.noise, it.evidence, it.asked, it.indicator = got.Answers["noise_0"].P, got.Answers["evidence_0"].P, true, "judge"
		}()
	}
	wg.Wait()
	for i := range items {
		it := &items[i]
		if !it.asked {
			continue
		}
		b, _ := json.Marshal(qualityVerdict{it.noise, it.evidence})
		if err := e.store.PutCachedJudgment(context.WithoutCancel(ctx), policy, auditKey(policy, it.kind, it.fp), string(b)); err != nil {
			return err
		}
	}
	return nil
}

// markStale skips the occurrences whose document changed while they were
// judged (its content hash is no longer the one read).
func (e *Engine) markStale(ctx context.Context, items []audited) error {
	now := map[[2]string]string{}
	for i := range items {
		it := &items[i]
		k := [2]string{it.occ.Corpus, it.occ.Path}
		h, ok := now[k]
		if !ok {
			occ, err := e.store.ChunkOccurrences(context.WithoutCancel(ctx), cairn.OccurrenceQuery{Corpora: []string{k[0]}, Path: k[1], AfterSeq: -1, Limit: 1})
			if err != nil {
				return err
			}
			if len(occ) > 0 {
				h = occ[0].Hash
			}
			now[k] = h
		}
		if it.skip == "" && h != it.occ.Hash {
			it.skip = "stale"
		}
	}
	return nil
}

// flag files the quality_review task of a flagged occurrence (C25).
func (e *Engine) flag(ctx context.Context, it *audited, minNoise float64, policy string) (bool, error) {
	reason := ""
	switch {
	case it.class == ClassEmpty:
		reason = ReasonEmptyContent
	case it.class == ClassEncoded:
		reason, it.indicator = ReasonDoubleEncoded, "deterministic_encoding"
	case it.noise >= minNoise && it.class == ClassSerialized:
		reason = ReasonSerialized
	case it.noise >= minNoise:
		reason = ReasonIngestionNoise
	default:
		return false, nil
	}
	encoding := it.class == ClassEncoded || it.class == ClassSerialized
	triage := TriageContext
	switch {
	case it.noise < 0.8 && !encoding:
	case it.evidence >= 0.8:
		triage = TriagePreserve
	case it.evidence <= 0.2:
		triage = TriageInspect
	}
	excerpt, cut := []rune(it.occ.Text), false
	if len(excerpt) > auditExcerptChars {
		excerpt, cut = excerpt[:auditExcerptChars], true
	}
	detail := map[string]any{"path": cairnPath(it.occ.Corpus, it.occ.Path), "from": it.occ.StartLine, "to": it.occ.EndLine,
		"excerpt": string(excerpt), "excerptTruncated": cut, "indicator": it.indicator, "noise": round4(it.noise),
		"evidence": round4(it.evidence), "policy": policy, "triage": triage, "sourceKind": it.kind, "instruction": instruction(triage)}
	src := cairn.ChunkSource{Corpus: it.occ.Corpus, Path: it.occ.Path}
	return true, e.putTask(ctx, cairn.TaskQualityReview, src, reason, it.fp, detail, time.Now().UTC())
}

// instruction says what an agent does with a quality review.
func instruction(triage string) string {
	switch triage {
	case TriagePreserve:
		return "Useful facts sit in debris: repair the source so the facts stay and the scaffolding goes (or fix the ingestion), then resolve with a note."
	case TriageInspect:
		return "Looks like scaffolding with nothing worth keeping: inspect the source and remove or exclude it if so, then resolve with a note."
	}
	return "Read the passage in its context (memory_get on path, from) before deciding; resolve with a note, or mark it irrelevant."
}

// auditGroups groups the pending quality reviews of the approved corpora
// by corpus, source kind, reason and triage: evidence to preserve first,
// then the largest.
func (e *Engine) auditGroups(ctx context.Context, corpora []string) ([]AuditGroup, error) {
	ts, err := e.store.MaintenanceTasks(context.WithoutCancel(ctx), cairn.TaskFilter{Status: cairn.TaskPending, Type: cairn.TaskQualityReview})
	if err != nil {
		return nil, err
	}
	byKey := map[[4]string]*AuditGroup{}
	var order [][4]string
	for _, mt := range ts {
		if !slices.Contains(corpora, mt.Corpus) {
			continue
		}
		t := taskOf(mt)
		src, _ := t.Detail["sourceKind"].(string)
		triage, _ := t.Detail["triage"].(string)
		k := [4]string{t.Corpus, src, t.Reason, triage}
		g, ok := byKey[k]
		if !ok {
			g = &AuditGroup{Corpus: k[0], Source: k[1], Reason: k[2], Triage: k[3], Examples: []Task{}}
			byKey[k] = g
			order = append(order, k)
		}
		g.Pending++
		if len(g.Examples) < 3 {
			g.Examples = append(g.Examples, t)
		}
	}
	out := make([]AuditGroup, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	slices.SortStableFunc(out, func(a, b AuditGroup) int {
		return cmp.Or(boolRank(b.Triage == TriagePreserve)-boolRank(a.Triage == TriagePreserve), cmp.Compare(b.Pending, a.Pending))
	})
	return out, nil
}
