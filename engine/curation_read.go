package engine

import (
	"cmp"
	"context"
	"regexp"
	"slices"

	"github.com/cairnmemory/cairn"
)

// Listing and previews of clusters (C19).

// Limits of memory_list_clusters.
const (
	DefaultClusterList = 20
	MaxClusterList     = 50
	PreviewBytes       = 600    // one preview's text
	PreviewTotalBytes  = 12_000 // all previews of a list
	PreviewTotalPaths  = 50     // all previews' source paths
)

// ClusterStats sums up one cluster of a run.
type ClusterStats struct {
	ClusterID       string  `json:"clusterId" jsonschema:"10 hex digits; changes with every recluster"`
	Size            int     `json:"size"`
	AvailableSize   int     `json:"availableSize" jsonschema:"members whose chunk an indexed document still holds"`
	MeanProbability float64 `json:"meanProbability"`
}

// ClusterSummary is one cluster of a list, with its top representative.
type ClusterSummary struct {
	ClusterID       string          `json:"clusterId" jsonschema:"10 hex digits; changes with every recluster"`
	Size            int             `json:"size"`
	AvailableSize   int             `json:"availableSize"`
	MeanProbability float64         `json:"meanProbability"`
	Preview         *ClusterPreview `json:"preview,omitempty" jsonschema:"the member nearest the cluster's centre"`
}

// ClusterPreview is a cluster's top representative, cut to the budget.
type ClusterPreview struct {
	Hash        string   `json:"hash"`
	Seq         int      `json:"seq"`
	Probability float64  `json:"probability"`
	Text        string   `json:"text"`
	SourcePaths []string `json:"sourcePaths"`
}

// ClusterList is what ListClusters returns.
type ClusterList struct {
	Status     string           `json:"status" jsonschema:"ok or not_analyzed"`
	RunID      string           `json:"runId,omitempty"`
	Stale      bool             `json:"stale"`
	StaleSince *string          `json:"staleSince"`
	AnalyzedAt *string          `json:"analyzedAt"`
	Hint       string           `json:"hint,omitempty"`
	Clusters   []ClusterSummary `json:"clusters"`
	Noise      *ClusterStats    `json:"noise"`
}

const (
	hintNotAnalyzed = "no clustering run yet: run memory_recluster (cairn clusters rebuild)"
	hintStale       = "the index changed since this run: run memory_recluster (cairn clusters rebuild) for current clusters"
)

// ListClusters lists the clusters of the latest valid run, largest first
// (then by cluster id), each with a preview; limit 0 is the default.
func (e *Engine) ListClusters(ctx context.Context, limit int) (*ClusterList, error) {
	if limit == 0 {
		limit = DefaultClusterList
	}
	if limit < 1 || limit > MaxClusterList {
		return nil, cairn.Invalidf("limit %d out of range: allowed 1 to %d", limit, MaxClusterList)
	}
	run, err := e.validRun(ctx)
	if err != nil {
		return nil, err
	}
	if run == nil {
		return &ClusterList{Status: "not_analyzed", Stale: true, Hint: hintNotAnalyzed, Clusters: []ClusterSummary{}}, nil
	}
	out := &ClusterList{Status: "ok", RunID: run.ID, Stale: !run.StaleAt.IsZero(), StaleSince: isoPtr(run.StaleAt),
		AnalyzedAt: isoPtr(run.CompletedAt), Clusters: []ClusterSummary{}}
	if out.Stale {
		out.Hint = hintStale
	}
	cs, err := e.store.AnalysisClusters(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	var real []cairn.AnalysisCluster
	for _, c := range cs {
		if c.ID < 0 {
			st := statsOf(run.ID, c)
			out.Noise = &st
			continue
		}
		real = append(real, c)
	}
	slices.SortFunc(real, func(a, b cairn.AnalysisCluster) int {
		return cmp.Or(cmp.Compare(b.Size, a.Size), cmp.Compare(a.ID, b.ID))
	})
	real = real[:min(len(real), limit)]
	previews, err := e.previews(ctx, run.ID, real)
	if err != nil {
		return nil, err
	}
	for i, c := range real {
		st := statsOf(run.ID, c)
		out.Clusters = append(out.Clusters, ClusterSummary{ClusterID: st.ClusterID, Size: st.Size, AvailableSize: st.AvailableSize,
			MeanProbability: st.MeanProbability, Preview: previews[i]})
	}
	return out, nil
}

func statsOf(runID string, c cairn.AnalysisCluster) ClusterStats {
	return ClusterStats{ClusterID: clusterRef(runID, c.ID), Size: c.Size, AvailableSize: c.Available, MeanProbability: round4(c.MeanProbability)}
}

func round4(x float64) float64 { return float64(int64(x*1e4+0.5)) / 1e4 }

// previews reads the top representative of each cluster and cuts the
// texts and source paths to the shared budgets.
func (e *Engine) previews(ctx context.Context, runID string, cs []cairn.AnalysisCluster) ([]*ClusterPreview, error) {
	out := make([]*ClusterPreview, len(cs))
	if len(cs) == 0 {
		return out, nil
	}
	reps, err := e.store.AnalysisMembers(ctx, cairn.MemberQuery{RunID: runID, AllClusters: true, MaxRank: 1, Corpora: readList(ctx)})
	if err != nil {
		return nil, err
	}
	byCluster := map[int]cairn.AnalysisMember{}
	var keys []cairn.ChunkKey
	for _, m := range reps {
		byCluster[m.Cluster] = m
		keys = append(keys, cairn.ChunkKey{Hash: m.Hash, Seq: m.Seq})
	}
	texts, err := e.store.ChunkKeyTexts(ctx, keys)
	if err != nil {
		return nil, err
	}
	var wantText, wantPaths []int
	var ms []*cairn.AnalysisMember
	for _, c := range cs {
		m, ok := byCluster[c.ID]
		if !ok {
			ms = append(ms, nil)
			wantText, wantPaths = append(wantText, 0), append(wantPaths, 0)
			continue
		}
		ms = append(ms, &m)
		wantText = append(wantText, len(texts[cairn.ChunkKey{Hash: m.Hash, Seq: m.Seq}]))
		wantPaths = append(wantPaths, len(m.Sources))
	}
	textShare := fairShare(wantText, PreviewBytes, PreviewTotalBytes)
	pathShare := fairShare(wantPaths, PreviewTotalPaths, PreviewTotalPaths)
	for i, m := range ms {
		if m == nil {
			continue
		}
		out[i] = &ClusterPreview{Hash: m.Hash, Seq: m.Seq, Probability: round4(m.Probability),
			Text: cutText(texts[cairn.ChunkKey{Hash: m.Hash, Seq: m.Seq}], textShare[i]), SourcePaths: sourcePaths(m.Sources, pathShare[i])}
	}
	return out, nil
}

// sourcePaths are the first n sources as cairn:// paths.
func sourcePaths(srcs []cairn.ChunkSource, n int) []string {
	out := []string{}
	for _, s := range srcs[:min(n, len(srcs))] {
		out = append(out, cairnPath(s.Corpus, s.Path))
	}
	return out
}

func cairnPath(corpus, path string) string { return "cairn://" + corpus + "/" + path }

// clusterIDPattern is the form of a cluster ref.
var clusterIDPattern = regexp.MustCompile(`^[0-9a-f]{10}$`)
