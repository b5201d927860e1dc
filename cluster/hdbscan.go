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
	mst, err := spanningTree(ctx, p, hp)
	if err != nil {
		return flat{}, err
	}
	c := condense(singleLinkage(n, mst), hp.minClusterSize)
	sel := c.selectClusters(hp.method, hp.epsilon, hp.allowSingle)
	lab, prob, out := c.labels(sel, hp.epsilon)
	return flat{labels: lab, prob: prob, outlier: out}, nil
}

// kdMaxSamples: above it the kd-tree's neighbour lists (n·(minSamples−1)
// entries) would cost more memory than they save, and the dense search
// runs instead.
const kdMaxSamples = 256

// spanningTree is the minimum spanning tree of mutual reachability: by
// kd-tree and Borůvka in up to kdMaxDim dimensions with minSamples up to
// kdMaxSamples (the UMAP space: O(n log n) in practice at 25 dimensions),
// else by the dense exact search and Prim's algorithm (O(n²)). Both are
// exact (boruvka.go says how they may differ on ties).
func spanningTree(ctx context.Context, p points, hp hdbscanParams) ([]edge, error) {
	if p.dim <= kdMaxDim && hp.minSamples <= kdMaxSamples {
		t := newKDTree(p)
		core, nbrs, err := kdCoreDistances(ctx, t, hp.minSamples, hp.workers)
		if err != nil {
			return nil, fmt.Errorf("hdbscan core distances: %w", err)
		}
		mst, err := boruvkaMST(ctx, t, core, nbrs, hp.workers)
		if err != nil {
			return nil, fmt.Errorf("hdbscan spanning tree: %w", err)
		}
		return mst, nil
	}
	core, err := coreDistances(ctx, p, hp.minSamples, hp.workers)
	if err != nil {
		return nil, fmt.Errorf("hdbscan core distances: %w", err)
	}
	mst, err := primMST(ctx, p, core, hp.workers)
	if err != nil {
		return nil, fmt.Errorf("hdbscan spanning tree: %w", err)
	}
	return mst, nil
}
