package cluster

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/cairnmemory/cairn"
)

func fmtInvalid(format string, args ...any) error { return cairn.Invalidf(format, args...) }

// memberKey is the "<hash>\0<seq>" string clusters are numbered by.
func memberKey(it Item) string { return it.Hash + "\x00" + strconv.Itoa(it.Seq) }

// members renumbers HDBSCAN's clusters by their smallest member key,
// cleans probabilities and outlier scores (NaN → 0, clipped to 0…1),
// ranks representatives and attaches the layout.
func members(uniq []Item, vecs points, fl flat, layout points) ([]Member, []ClusterInfo, int) {
	nc := 0
	for _, l := range fl.labels {
		nc = max(nc, l+1)
	}
	smallest := make([]string, nc)
	for i, l := range fl.labels {
		if l >= 0 {
			if k := memberKey(uniq[i]); smallest[l] == "" || k < smallest[l] {
				smallest[l] = k
			}
		}
	}
	order := make([]int, nc)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(smallest[a], smallest[b]) })
	renum := make([]int, nc)
	for to, from := range order {
		renum[from] = to
	}
	ms := make([]Member, len(uniq))
	infos := make([]ClusterInfo, nc)
	noise := 0
	for i, it := range uniq {
		m := Member{Hash: it.Hash, Seq: it.Seq, Cluster: -1, Probability: unit(fl.prob[i]), OutlierScore: unit(fl.outlier[i]),
			X: float64(layout.row(i)[0]), Y: float64(layout.row(i)[1])}
		if l := fl.labels[i]; l >= 0 {
			m.Cluster = renum[l]
			infos[m.Cluster].Size++
			infos[m.Cluster].MeanProbability += m.Probability
		} else {
			m.Probability = 0
			noise++
		}
		ms[i] = m
	}
	for c := range infos {
		infos[c].ID = c
		infos[c].MeanProbability /= float64(max(1, infos[c].Size))
	}
	rankRepresentatives(ms, vecs, nc)
	return ms, infos, noise
}

func unit(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return max(0, min(1, x))
}

// rankRepresentatives gives each cluster's MaxRepresentatives members
// nearest (by dot product) its re-normalized centroid ranks 1, 2, …; ties
// go to the smaller member key.
func rankRepresentatives(ms []Member, vecs points, nc int) {
	byCluster := make([][]int, nc)
	for i, m := range ms {
		if m.Cluster >= 0 {
			byCluster[m.Cluster] = append(byCluster[m.Cluster], i)
		}
	}
	for _, idx := range byCluster {
		strong := make([]int, 0, len(idx))
		for _, i := range idx {
			if ms[i].Probability >= RepresentativeMinProb {
				strong = append(strong, i)
			}
		}
		if len(strong) == 0 {
			strong = idx
		}
		c := make([]float64, vecs.dim)
		for _, i := range strong {
			for d, x := range vecs.row(i) {
				c[d] += float64(x)
			}
		}
		var norm float64
		for _, x := range c {
			norm += x * x
		}
		norm = math.Sqrt(norm)
		score := make(map[int]float64, len(idx))
		for _, i := range idx {
			var s float64
			for d, x := range vecs.row(i) {
				s += float64(x) * c[d]
			}
			if norm > 0 {
				s /= norm
			}
			score[i] = s
		}
		ranked := slices.Clone(idx)
		slices.SortFunc(ranked, func(a, b int) int {
			return cmp.Or(cmp.Compare(score[b], score[a]), cmp.Compare(ms[a].Hash, ms[b].Hash), cmp.Compare(ms[a].Seq, ms[b].Seq))
		})
		for r, i := range ranked[:min(len(ranked), MaxRepresentatives)] {
			ms[i].RepresentativeRank = r + 1
		}
	}
}
