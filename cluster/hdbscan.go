package cluster

import (
	"context"
	"fmt"
)

// hdbscanParams are the effective HDBSCAN settings.
type hdbscanParams struct {
	minClusterSize, minSamples int
	method                     string
	epsilon                    float64
	allowSingle                bool
	workers                    int
}

// flat is HDBSCAN's answer: per point a label (−1 noise, else 0…k−1 in
// the condensed tree's order), a membership probability and an outlier
// score.
type flat struct {
	labels        []int
	prob, outlier []float64
}

// hdbscan clusters p (euclidean): core distances, the minimum spanning
// tree of mutual reachability, the single linkage dendrogram, the
// condensed tree, then the flat selection.
func hdbscan(ctx context.Context, p points, hp hdbscanParams) (flat, error) {
	n := p.n()
	if n < 2 {
		return flat{}, fmt.Errorf("hdbscan: %d points: need at least 2", n)
	}
	core, err := coreDistances(ctx, p, hp.minSamples, hp.workers)
	if err != nil {
		return flat{}, fmt.Errorf("hdbscan core distances: %w", err)
	}
	mst, err := primMST(ctx, p, core, hp.workers)
	if err != nil {
		return flat{}, fmt.Errorf("hdbscan spanning tree: %w", err)
	}
	c := condense(singleLinkage(n, mst), hp.minClusterSize)
	sel := c.selectClusters(hp.method, hp.epsilon, hp.allowSingle)
	lab, prob, out := c.labels(sel, hp.epsilon)
	return flat{labels: lab, prob: prob, outlier: out}, nil
}
