package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// Reading one cluster a page at a time (C20), with each member's event
// time and the maintenance tasks a page brings up.

// Limits and sorts of memory_fetch_cluster.
const (
	DefaultFetchTopK  = 20
	MaxFetchTopK      = 50
	MemberTextBytes   = 2_000  // one member's excerpt
	PageTextBytes     = 12_000 // all excerpts of a page
	MemberSourcePaths = 5
	PageSourcePaths   = 50
	MaxDuplicateTasks = 10 // exact_duplicate tasks one fetch creates

	SortRepresentative = "representative"
	SortScoreDesc      = "score_desc"
	SortScoreAsc       = "score_asc"
	SortDateDesc       = "date_desc"
	SortDateAsc        = "date_asc"
)

// FetchSorts are the allowed sorts.
var FetchSorts = []string{SortRepresentative, SortScoreDesc, SortScoreAsc, SortDateDesc, SortDateAsc}

// Reasons of the tasks a fetch creates.
const (
	ReasonMissingEventTime = "missing_event_time"
	ReasonExactDuplicate   = "exact_duplicate"
)

// FetchClusterOptions select a page of one cluster.
type FetchClusterOptions struct {
	ClusterID string // a ref from ListClusters
	TopK      int    // 1 to 50; 0: 20
	Offset    int    // ≥ 0
	Sort      string // one of FetchSorts; "": representative
}

// ClusterMember is one member of a fetched page.
type ClusterMember struct {
	Hash               string   `json:"hash"`
	Seq                int      `json:"seq"`
	Probability        float64  `json:"probability"`
	OutlierScore       float64  `json:"outlierScore"`
	X                  float64  `json:"x"`
	Y                  float64  `json:"y"`
	RepresentativeRank *int     `json:"representativeRank"`
	SourceModifiedAt   *string  `json:"sourceModifiedAt"`
	EventTime          *string  `json:"eventTime"`
	EventTimeBasis     *string  `json:"eventTimeBasis" jsonschema:"session, path, or an annotation's basis (frontmatter, agent_verified, ...)"`
	EventTimeSource    *string  `json:"eventTimeSource" jsonschema:"the cairn:// document the event time comes from"`
	ContentFingerprint string   `json:"contentFingerprint"`
	Text               string   `json:"text"`
	SourcePaths        []string `json:"sourcePaths"`
}

// PageInfo says where a page is in the cluster.
type PageInfo struct {
	Offset     int  `json:"offset"`
	Returned   int  `json:"returned"`
	Total      int  `json:"total"`
	HasMore    bool `json:"hasMore"`
	NextOffset *int `json:"nextOffset,omitempty"`
}

// ClusterPage is what FetchCluster returns.
type ClusterPage struct {
	Status     string          `json:"status" jsonschema:"ok, not_found (an unknown or outdated clusterId) or not_analyzed"`
	RunID      string          `json:"runId,omitempty"`
	Stale      bool            `json:"stale"`
	StaleSince *string         `json:"staleSince"`
	Hint       string          `json:"hint,omitempty"`
	Cluster    *ClusterStats   `json:"cluster,omitempty"`
	Members    []ClusterMember `json:"members"`
	Page       *PageInfo       `json:"page,omitempty"`
}

// fetchMember is a member with what sorting and output need.
type fetchMember struct {
	cairn.AnalysisMember
	fp    string
	text  string
	hasFP bool
	event eventTime
}

// FetchCluster returns one page of a cluster in the order asked for.
// Side effects (C20): a date sort adds or refreshes an
// ambiguous_event_time task for each member on the page that has no event
// time; any fetch turns the exact duplicates of the page's members (not
// in sessions corpora) into up to MaxDuplicateTasks exact_duplicate
// tasks. Tasks are never created for members no document holds.
func (e *Engine) FetchCluster(ctx context.Context, o FetchClusterOptions) (*ClusterPage, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	run, err := e.validRun(ctx)
	if err != nil {
		return nil, err
	}
	if run == nil {
		return &ClusterPage{Status: "not_analyzed", Stale: true, Hint: hintNotAnalyzed, Members: []ClusterMember{}}, nil
	}
	page := &ClusterPage{Status: "ok", RunID: run.ID, Stale: !run.StaleAt.IsZero(), StaleSince: isoPtr(run.StaleAt), Members: []ClusterMember{}}
	if page.Stale {
		page.Hint = hintStale
	}
	c, err := e.clusterByRef(ctx, run.ID, o.ClusterID)
	if err != nil {
		return nil, err
	}
	if c == nil {
		page.Status, page.Hint = "not_found", "no cluster "+o.ClusterID+" in run "+run.ID+": cluster ids change with every recluster; list them again with memory_list_clusters"
		return page, nil
	}
	st := statsOf(run.ID, *c)
	page.Cluster = &st
	ms, err := e.store.AnalysisMembers(ctx, cairn.MemberQuery{RunID: run.ID, Cluster: c.ID, Corpora: readList(ctx)})
	if err != nil {
		return nil, err
	}
	members := make([]*fetchMember, len(ms))
	for i := range ms {
		members[i] = &fetchMember{AnalysisMember: ms[i]}
	}
	ev, err := e.eventResolver(ctx)
	if err != nil {
		return nil, err
	}
	if err := e.resolveEvents(ctx, ev, members); err != nil {
		return nil, err
	}
	sortMembers(members, o.Sort, c.ID < 0)
	end := min(len(members), o.Offset+o.TopK)
	var onPage []*fetchMember
	if o.Offset < len(members) {
		onPage = members[o.Offset:end]
	}
	if err := e.withTexts(ctx, onPage); err != nil {
		return nil, err
	}
	page.Members = pageMembers(onPage)
	page.Page = &PageInfo{Offset: o.Offset, Returned: len(onPage), Total: len(members), HasMore: end < len(members)}
	if page.Page.HasMore {
		page.Page.NextOffset = &end
	}
	if err := e.pageTasks(ctx, ev, run.ID, st.ClusterID, onPage, strings.HasPrefix(o.Sort, "date_")); err != nil {
		return nil, err
	}
	return page, nil
}

// ValidClusterID reports whether id has the form of a cluster ID (10
// lowercase hex digits), so a caller can name its own flag or field.
func ValidClusterID(id string) bool { return clusterIDPattern.MatchString(id) }

// Check validates o and fills its defaults; FetchCluster calls it. Its
// errors and hints name the MCP tools (memory_list_clusters), as MCP
// clients read them; the CLI checks its flags first and names its commands.
func (o *FetchClusterOptions) Check() error {
	if !clusterIDPattern.MatchString(o.ClusterID) {
		return cairn.Invalidf("clusterId %q: want 10 lowercase hex digits (from memory_list_clusters)", o.ClusterID)
	}
	if o.TopK == 0 {
		o.TopK = DefaultFetchTopK
	}
	if o.TopK < 1 || o.TopK > MaxFetchTopK {
		return cairn.Invalidf("topK %d out of range: allowed 1 to %d", o.TopK, MaxFetchTopK)
	}
	if o.Offset < 0 {
		return cairn.Invalidf("offset %d out of range: allowed 0 or more", o.Offset)
	}
	if o.Sort == "" {
		o.Sort = SortRepresentative
	}
	if !slices.Contains(FetchSorts, o.Sort) {
		return cairn.Invalidf("sort %q: allowed %s", o.Sort, strings.Join(FetchSorts, ", "))
	}
	return nil
}

// clusterByRef finds the cluster (or noise) of a run whose ref is ref.
func (e *Engine) clusterByRef(ctx context.Context, runID, ref string) (*cairn.AnalysisCluster, error) {
	cs, err := e.store.AnalysisClusters(ctx, runID)
	if err != nil {
		return nil, err
	}
	for i := range cs {
		if clusterRef(runID, cs[i].ID) == ref {
			return &cs[i], nil
		}
	}
	return nil, nil
}

// sortMembers orders a cluster's members (C20): representative = rank
// (none last), probability descending, outlier score ascending (noise:
// outlier score descending); score_* = probability (noise: outlier
// score); date_* = the event time, else the source's mtime (members with
// neither last); ties by hash, seq.
func sortMembers(ms []*fetchMember, sort string, noise bool) {
	key := func(a, b *fetchMember) int { return cmp.Or(cmp.Compare(a.Hash, b.Hash), cmp.Compare(a.Seq, b.Seq)) }
	score := func(m *fetchMember) float64 {
		if noise {
			return m.OutlierScore
		}
		return m.Probability
	}
	var by func(a, b *fetchMember) int
	switch sort {
	case SortRepresentative:
		by = func(a, b *fetchMember) int {
			ra, rb := a.RepresentativeRank, b.RepresentativeRank
			if (ra == 0) != (rb == 0) {
				return cmp.Compare(ra, rb) * -1
			}
			outlier := cmp.Compare(a.OutlierScore, b.OutlierScore)
			if noise {
				outlier = -outlier
			}
			return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(b.Probability, a.Probability), outlier)
		}
	case SortScoreDesc:
		by = func(a, b *fetchMember) int { return cmp.Compare(score(b), score(a)) }
	case SortScoreAsc:
		by = func(a, b *fetchMember) int { return cmp.Compare(score(a), score(b)) }
	case SortDateAsc, SortDateDesc:
		desc := sort == SortDateDesc
		by = func(a, b *fetchMember) int {
			ta, tb := a.sortTime(), b.sortTime()
			if ta.IsZero() != tb.IsZero() {
				if ta.IsZero() {
					return 1
				}
				return -1
			}
			if desc {
				return tb.Compare(ta)
			}
			return ta.Compare(tb)
		}
	}
	slices.SortStableFunc(ms, func(a, b *fetchMember) int { return cmp.Or(by(a, b), key(a, b)) })
}

// sortTime is COALESCE(eventTime, sourceModifiedAt).
func (m *fetchMember) sortTime() time.Time {
	if !m.event.at.IsZero() {
		return m.event.at
	}
	if len(m.Sources) > 0 {
		return m.Sources[0].ModTime
	}
	return time.Time{}
}

// withTexts reads the page's texts and fingerprints those not read yet.
func (e *Engine) withTexts(ctx context.Context, ms []*fetchMember) error {
	var keys []cairn.ChunkKey
	for _, m := range ms {
		if !m.hasFP {
			keys = append(keys, cairn.ChunkKey{Hash: m.Hash, Seq: m.Seq})
		}
	}
	if len(keys) == 0 {
		return nil
	}
	texts, err := e.store.ChunkKeyTexts(ctx, keys)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if !m.hasFP {
			m.text, m.hasFP = texts[cairn.ChunkKey{Hash: m.Hash, Seq: m.Seq}], true
			if m.text != "" {
				m.fp = fingerprint(m.text)
			}
		}
	}
	return nil
}

// pageMembers renders a page within its budgets: excerpts share
// PageTextBytes (each at most MemberTextBytes) so every member gets text,
// source paths share PageSourcePaths (each at most MemberSourcePaths).
func pageMembers(ms []*fetchMember) []ClusterMember {
	wantText, wantPaths := make([]int, len(ms)), make([]int, len(ms))
	for i, m := range ms {
		wantText[i], wantPaths[i] = len(m.text), len(m.Sources)
	}
	textShare := fairShare(wantText, MemberTextBytes, PageTextBytes)
	pathShare := fairShare(wantPaths, MemberSourcePaths, PageSourcePaths)
	out := make([]ClusterMember, len(ms))
	for i, m := range ms {
		cm := ClusterMember{Hash: m.Hash, Seq: m.Seq, Probability: round4(m.Probability), OutlierScore: round4(m.OutlierScore),
			X: round4(m.X), Y: round4(m.Y), ContentFingerprint: m.fp, Text: cutText(m.text, textShare[i]),
			SourcePaths: sourcePaths(m.Sources, pathShare[i])}
		if m.RepresentativeRank > 0 {
			r := m.RepresentativeRank
			cm.RepresentativeRank = &r
		}
		if len(m.Sources) > 0 {
			cm.SourceModifiedAt = isoPtr(m.Sources[0].ModTime)
		}
		if !m.event.at.IsZero() {
			cm.EventTime, cm.EventTimeBasis, cm.EventTimeSource = isoPtr(m.event.at), &m.event.basis, &m.event.source
		}
		out[i] = cm
	}
	return out
}

// eventTime is where a member's event time came from.
type eventTime struct {
	at     time.Time
	basis  string
	source string // cairn:// path
}

// eventResolver holds what event-time resolution reads once per fetch:
// the sessions corpora and the annotations (reloaded on every fetch).
type eventResolver struct {
	sessions map[string]bool
	docs     map[[2]string]cairn.TemporalAnnotation // (corpus, path) → whole-document annotation
	chunks   map[[3]string]cairn.TemporalAnnotation // (corpus, path, fingerprint) → chunk annotation
	chunkDoc map[[2]string]bool                     // documents with chunk annotations
}

func (e *Engine) eventResolver(ctx context.Context) (*eventResolver, error) {
	anns, err := e.store.TemporalAnnotations(ctx)
	if err != nil {
		return nil, err
	}
	r := &eventResolver{sessions: map[string]bool{}, docs: map[[2]string]cairn.TemporalAnnotation{},
		chunks: map[[3]string]cairn.TemporalAnnotation{}, chunkDoc: map[[2]string]bool{}}
	for _, c := range e.opts.Corpora {
		if c.Kind == cairn.KindSessions {
			r.sessions[c.Name] = true
		}
	}
	for _, a := range anns {
		if a.Fingerprint == "" {
			r.docs[[2]string{a.Corpus, a.Path}] = a
		} else {
			r.chunks[[3]string{a.Corpus, a.Path, a.Fingerprint}] = a
			r.chunkDoc[[2]string{a.Corpus, a.Path}] = true
		}
	}
	return r, nil
}

// resolveEvents gives each member its event time (a date sort orders the
// whole cluster by it). Members in documents with chunk annotations need
// their fingerprints, so their texts are read here; the session, path
// and document rules need no text, and the page's texts come later.
func (e *Engine) resolveEvents(ctx context.Context, r *eventResolver, ms []*fetchMember) error {
	var need []*fetchMember
	for _, m := range ms {
		if slices.ContainsFunc(m.Sources, func(s cairn.ChunkSource) bool { return r.chunkDoc[[2]string{s.Corpus, s.Path}] }) {
			need = append(need, m)
		}
	}
	if err := e.withTexts(ctx, need); err != nil {
		return err
	}
	for _, m := range ms {
		m.event = r.resolve(m)
	}
	return nil
}

// datedPath is a path ending in a YYYY-MM-DD.md file name.
var datedPath = regexp.MustCompile(`(?:^|[^0-9])([0-9]{4}-[0-9]{2}-[0-9]{2})\.md$`)

// resolve applies C20's rules in order, each over the member's sources
// in order: (1) a sessions corpus: the session's start (else the file's
// mtime); (2) a path ending YYYY-MM-DD.md: that day, 00:00 UTC; (3) an
// annotation of the document, or of this chunk by its fingerprint; (4)
// none.
func (r *eventResolver) resolve(m *fetchMember) eventTime {
	for _, s := range m.Sources {
		if r.sessions[s.Corpus] {
			at := s.SessionStart
			if at.IsZero() {
				at = s.ModTime
			}
			return eventTime{at, cairn.BasisSession, cairnPath(s.Corpus, s.Path)}
		}
	}
	for _, s := range m.Sources {
		if g := datedPath.FindStringSubmatch(s.Path); g != nil {
			if at, err := time.Parse("2006-01-02", g[1]); err == nil {
				return eventTime{at, cairn.BasisPath, cairnPath(s.Corpus, s.Path)}
			}
		}
	}
	for _, s := range m.Sources {
		if m.fp != "" {
			if a, ok := r.chunks[[3]string{s.Corpus, s.Path, m.fp}]; ok {
				return eventTime{a.EventTime, a.Basis, cairnPath(s.Corpus, s.Path)}
			}
		}
		if a, ok := r.docs[[2]string{s.Corpus, s.Path}]; ok {
			return eventTime{a.EventTime, a.Basis, cairnPath(s.Corpus, s.Path)}
		}
	}
	return eventTime{}
}

// pageTasks creates the tasks a page brings up.
func (e *Engine) pageTasks(ctx context.Context, r *eventResolver, runID, ref string, ms []*fetchMember, dated bool) error {
	now := time.Now().UTC()
	if dated {
		for _, m := range ms {
			src, ok := r.fileSource(m.Sources)
			if !m.event.at.IsZero() || !ok || m.fp == "" {
				continue
			}
			detail := map[string]any{"clusterId": ref, "runId": runID, "hash": m.Hash, "seq": m.Seq,
				"sourceModifiedAt": isoTime(src.ModTime),
				"instruction": "Find when what this passage describes happened (a date in the text or around it, the file's history). " +
					"Resolve the task with an annotation (eventTime, basis, evidence); Cairn never edits the file."}
			if err := e.putTask(ctx, cairn.TaskAmbiguousEventTime, src, ReasonMissingEventTime, m.fp, detail, now); err != nil {
				return err
			}
		}
	}
	return e.duplicateTasks(ctx, r, runID, ms, now)
}

// duplicateTasks turns the exact duplicates of the page's members into
// at most MaxDuplicateTasks tasks, one per member repeated elsewhere, on
// the member's first document outside sessions corpora.
func (e *Engine) duplicateTasks(ctx context.Context, r *eventResolver, runID string, ms []*fetchMember, now time.Time) error {
	keys := make([]cairn.ChunkKey, len(ms))
	byKey := map[cairn.ChunkKey]*fetchMember{}
	for i, m := range ms {
		keys[i] = cairn.ChunkKey{Hash: m.Hash, Seq: m.Seq}
		byKey[keys[i]] = m
	}
	dups, err := e.store.AnalysisDuplicates(ctx, runID, keys)
	if err != nil {
		return err
	}
	groups := map[cairn.ChunkKey][]string{}
	var order []cairn.ChunkKey
	for _, d := range dups {
		for _, s := range d.Sources {
			if r.sessions[s.Corpus] {
				continue
			}
			if _, ok := groups[d.Canonical]; !ok {
				order = append(order, d.Canonical)
			}
			groups[d.Canonical] = append(groups[d.Canonical], cairnPath(s.Corpus, s.Path))
		}
	}
	made := 0
	for _, k := range order {
		m := byKey[k]
		src, ok := r.fileSource(m.Sources)
		if !ok || m.fp == "" || made == MaxDuplicateTasks {
			continue
		}
		paths := groups[k]
		detail := map[string]any{"occurrences": len(paths) + 1, "duplicates": paths[:min(len(paths), 10)],
			"instruction": fmt.Sprintf("The same passage appears %d times. Clean up only if the repetition is accidental; "+
				"Cairn never edits the files.", len(paths)+1)}
		if err := e.putTask(ctx, cairn.TaskExactDuplicate, src, ReasonExactDuplicate, m.fp, detail, now); err != nil {
			return err
		}
		made++
	}
	return nil
}

// fileSource is the first source outside sessions corpora.
func (r *eventResolver) fileSource(srcs []cairn.ChunkSource) (cairn.ChunkSource, bool) {
	for _, s := range srcs {
		if !r.sessions[s.Corpus] {
			return s, true
		}
	}
	return cairn.ChunkSource{}, false
}

// putTask adds or refreshes one task.
func (e *Engine) putTask(ctx context.Context, typ string, src cairn.ChunkSource, reason, fp string, detail map[string]any, now time.Time) error {
	b, err := json.Marshal(detail)
	if err != nil {
		return fmt.Errorf("add maintenance task: %w", err)
	}
	_, err = e.store.PutMaintenanceTask(ctx, cairn.MaintenanceTask{ID: cairn.MaintenanceTaskID(typ, src.Corpus, src.Path, reason, fp),
		Type: typ, Corpus: src.Corpus, Path: src.Path, Reason: reason, Fingerprint: fp, Detail: string(b), CreatedAt: now})
	return err
}
