package cluster

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
)

// Item is one chunk to cluster: its document's content hash, its sequence
// number in the document, the fingerprint of its text (equal fingerprints
// are exact duplicates) and its embedding, a finite, non-zero, L2-normalized
// vector of the same dimension as every other item's.
type Item struct {
	Hash        string
	Seq         int
	Fingerprint string
	Vector      []float32
}

// Member is one unique chunk's place in a run.
type Member struct {
	Hash               string
	Seq                int
	Cluster            int     // 0…len(Clusters)−1; −1 noise
	Probability        float64 // 0 to 1; noise 0
	OutlierScore       float64 // GLOSH, 0 to 1
	X, Y               float64 // the 2-D layout
	RepresentativeRank int     // 1…MaxRepresentatives nearest the cluster's centroid; 0 none
}

// Duplicate is a later occurrence of an exact duplicate, which is not
// clustered.
type Duplicate struct {
	Fingerprint   string
	CanonicalHash string
	CanonicalSeq  int
	DuplicateHash string
	DuplicateSeq  int
}

// ClusterInfo sums up one cluster.
type ClusterInfo struct {
	ID              int
	Size            int
	MeanProbability float64
}

// Result is one clustering run.
type Result struct {
	Members    []Member // every unique chunk, by (Hash, Seq)
	Clusters   []ClusterInfo
	Noise      int
	Duplicates []Duplicate
	Resolved   Settings // defaults and automatic values filled in
	Effective  Settings // after the population caps
}

// Representatives: members with at least RepresentativeMinProb make the
// centroid (all members when none does); the MaxRepresentatives nearest it
// get a rank.
const (
	RepresentativeMinProb = 0.7
	MaxRepresentatives    = 50
)

// Run clusters items (C17): exact duplicates set aside, then the space
// (seeded UMAP, or the vectors as they are), HDBSCAN, clusters numbered
// from 0 by their smallest "<hash>\0<seq>", representatives and the 2-D
// layout. Bad options or input are errors matching cairn.ErrInvalid that
// name the option or the item; nothing is partly done.
func Run(ctx context.Context, items []Item, o *Options) (*Result, error) {
	if o == nil {
		o = &Options{}
	}
	if err := checkItems(items); err != nil {
		return nil, err
	}
	uniq, dups := dedupe(items)
	res, eff, err := o.Resolve(len(uniq))
	if err != nil {
		return nil, err
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	dim := len(items[0].Vector)
	vecs := points{data: make([]float32, 0, len(uniq)*dim), dim: dim}
	for _, it := range uniq {
		vecs.data = append(vecs.data, it.Vector...)
	}
	n := len(uniq)
	layoutK := max(2, min(LayoutNeighbors, n-1))
	seed := uint64(eff.Seed)
	// One kNN graph serves the space and the 2-D layout (method none needs
	// it for the layout too): each takes the first entries of the lists.
	rep := &reporter{f: o.Progress}
	g, err := buildKNN(ctx, vecs, max(eff.NNeighbors, layoutK)-1, seed, workers, func(done, total int) {
		rep.report(PhaseNeighbours, done, total)
	})
	if err != nil {
		return nil, fmt.Errorf("cluster nearest neighbours: %w", err)
	}
	pca := newPCA(vecs, max(2, eff.NComponents), seed)
	space := vecs
	if eff.Method == MethodUMAP {
		space, err = umapEmbed(ctx, vecs, g, pca, umapParams{eff.NComponents, eff.NNeighbors, eff.MinDist, seed, 0, workers,
			func(done, total int) { rep.report(PhaseSpace, done, total) }})
		if err != nil {
			return nil, fmt.Errorf("cluster umap: %w", err)
		}
	}
	// The layout starts from the space (its two principal axes) where
	// there is one, so it needs fewer epochs, and runs beside HDBSCAN on
	// its own goroutine, which Run always waits for.
	lp := umapParams{2, layoutK, LayoutMinDist, seed, LayoutEpochs, workers, nil}
	lbasis := pca
	if eff.Method == MethodUMAP {
		lp.epochs = LayoutEpochsFromSpace
		lbasis = newPCA(space, 2, seed)
	}
	le := lp.epochs
	lp.tick = func(int, int) { rep.layoutStep(le, false) }
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var layout points
	var layoutErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		layout, layoutErr = umapEmbed(lctx, space, g, lbasis, lp)
	}()
	fl, err := hdbscan(ctx, space, hdbscanParams{minClusterSize: eff.MinClusterSize, minSamples: eff.MinSamples,
		method: eff.ClusterSelectionMethod, epsilon: eff.ClusterSelectionEpsilon,
		allowSingle: eff.AllowSingleCluster, workers: workers})
	if err != nil {
		cancel()
	} else {
		rep.layoutStep(le, true)
	}
	<-done
	if err != nil {
		return nil, err
	}
	if layoutErr != nil {
		return nil, fmt.Errorf("cluster layout: %w", layoutErr)
	}
	out := &Result{Duplicates: dups, Resolved: res, Effective: eff}
	out.Members, out.Clusters, out.Noise = members(uniq, vecs, fl, layout)
	return out, nil
}

// checkItems: one dimension; vectors finite, non-zero and of unit length
// (within 1e-3).
func checkItems(items []Item) error {
	if len(items) == 0 {
		return fmtInvalid("cluster: no items: need at least %d unique chunks", MinUnique)
	}
	dim := len(items[0].Vector)
	for i, it := range items {
		if len(it.Vector) != dim || dim == 0 {
			return fmtInvalid("cluster: item %d (%s seq %d): vector dimension %d, want %d", i, it.Hash, it.Seq, len(it.Vector), dim)
		}
		var s float64
		for _, x := range it.Vector {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmtInvalid("cluster: item %d (%s seq %d): vector not finite", i, it.Hash, it.Seq)
			}
			s += float64(x) * float64(x)
		}
		if math.Abs(s-1) > 2e-3 {
			return fmtInvalid("cluster: item %d (%s seq %d): vector norm %.4f, want L2-normalized", i, it.Hash, it.Seq, math.Sqrt(s))
		}
	}
	return nil
}

// dedupe orders items by (hash, seq) and keeps the first of each
// fingerprint; later ones become Duplicates. The same (hash, seq) twice
// is one chunk given twice, kept once.
func dedupe(items []Item) (uniq []Item, dups []Duplicate) {
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b Item) int { return cmp.Or(cmp.Compare(a.Hash, b.Hash), cmp.Compare(a.Seq, b.Seq)) })
	first := make(map[string]Item, len(sorted))
	for i, it := range sorted {
		if i > 0 && it.Hash == sorted[i-1].Hash && it.Seq == sorted[i-1].Seq {
			continue
		}
		if c, ok := first[it.Fingerprint]; ok {
			dups = append(dups, Duplicate{Fingerprint: it.Fingerprint, CanonicalHash: c.Hash, CanonicalSeq: c.Seq,
				DuplicateHash: it.Hash, DuplicateSeq: it.Seq})
			continue
		}
		first[it.Fingerprint] = it
		uniq = append(uniq, it)
	}
	return uniq, dups
}
