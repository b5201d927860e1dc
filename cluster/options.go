package cluster

import (
	"math"

	"github.com/cairnmemory/cairn"
)

// Option ranges and defaults (C17). A zero field in Options means "not
// set": every range below excludes zero except MinDist, Epsilon and Seed,
// which are pointers or default to zero.
const (
	MethodUMAP = "umap" // seeded UMAP to NComponents dimensions, then HDBSCAN
	MethodNone = "none" // HDBSCAN on the normalized vectors themselves

	SelectEOM  = "eom"  // excess of mass
	SelectLeaf = "leaf" // the leaves of the condensed tree

	DefaultMethod      = MethodUMAP
	DefaultNComponents = 25
	DefaultNNeighbors  = 15
	DefaultMinDist     = 0.1
	DefaultSelection   = SelectEOM
	DefaultSeed        = 42

	MinComponents, MaxComponents         = 2, 100
	MinNeighbors, MaxNeighbors           = 2, 200
	MinClusterSizeMin, MinClusterSizeMax = 2, 100_000
	MinSamplesMin, MinSamplesMax         = 1, 100_000
	MaxSeed                              = math.MaxUint32

	// LayoutNeighbors and LayoutMinDist fix the 2-D layout's UMAP (not
	// options).
	LayoutNeighbors = 30
	LayoutMinDist   = 0.1
	// LayoutEpochs: the layout is a picture, not the clustering space, so
	// it gets umap-learn's large-data epoch count at every size (its
	// graph has twice the edges of the default space's); with method none
	// it starts from the vectors' two principal axes.
	LayoutEpochs = 200
	// LayoutEpochsFromSpace: with method umap the layout starts from the
	// space's two principal axes, where the topics already lie apart, and
	// gets half the epochs (at 10,000 chunks it saves about a fifth of
	// the clustering's CPU time).
	LayoutEpochsFromSpace = 100

	// MinUnique is the fewest unique (non-duplicate) chunks Run clusters.
	MinUnique = 5
)

// Options are the C17 options. The zero value asks for every default.
type Options struct {
	Space   Space
	HDBSCAN HDBSCAN
	Seed    *int64 // 0 to 4,294,967,295; nil: DefaultSeed

	// Workers is how many goroutines the searches use (not a C17 option);
	// 0: GOMAXPROCS. Results do not depend on it.
	Workers int
	// Progress, when set, is told of each step of the neighbours, space
	// and layout phases (Step; not a C17 option). Calls never overlap;
	// it should return quickly. Results do not depend on it.
	Progress func(Step) `json:"-"`
}

// Space chooses the space HDBSCAN runs in.
type Space struct {
	Method      string   // "umap" (default) or "none"
	NComponents int      // 2 to 100; 0: 25
	NNeighbors  int      // 2 to 200; 0: 15
	MinDist     *float64 // 0 to 1; nil: 0.1
}

// HDBSCAN holds the clustering options.
type HDBSCAN struct {
	MinClusterSize          int     // 2 to 100,000; 0: min(150, max(15, round(0.005·N)))
	MinSamples              int     // 1 to 100,000; 0: min(10, MinClusterSize)
	ClusterSelectionMethod  string  // "eom" (default) or "leaf"
	ClusterSelectionEpsilon float64 // >= 0; default 0
	AllowSingleCluster      bool
}

// Settings are options with every value filled in: the resolved settings
// (defaults and automatic values for a population) or the effective ones
// (after the population caps).
type Settings struct {
	Method                  string  `json:"method"`
	NComponents             int     `json:"nComponents"`
	NNeighbors              int     `json:"nNeighbors"`
	MinDist                 float64 `json:"minDist"`
	MinClusterSize          int     `json:"minClusterSize"`
	MinSamples              int     `json:"minSamples"`
	ClusterSelectionMethod  string  `json:"clusterSelectionMethod"`
	ClusterSelectionEpsilon float64 `json:"clusterSelectionEpsilon"`
	AllowSingleCluster      bool    `json:"allowSingleCluster"`
	Seed                    int64   `json:"seed"`
}

// Validate checks every set option against its range. The error matches
// cairn.ErrInvalid and names the option and its allowed values. NaN and
// infinities are rejected.
func (o *Options) Validate() error {
	s, h := o.Space, o.HDBSCAN
	switch s.Method {
	case "", MethodUMAP, MethodNone:
	default:
		return cairn.Invalidf("space.method %q: want umap or none", s.Method)
	}
	if err := intRange("space.nComponents", s.NComponents, MinComponents, MaxComponents); err != nil {
		return err
	}
	if err := intRange("space.nNeighbors", s.NNeighbors, MinNeighbors, MaxNeighbors); err != nil {
		return err
	}
	if s.MinDist != nil && !(*s.MinDist >= 0 && *s.MinDist <= 1) { // NaN fails both
		return cairn.Invalidf("space.minDist %v: want 0 to 1", *s.MinDist)
	}
	if err := intRange("hdbscan.minClusterSize", h.MinClusterSize, MinClusterSizeMin, MinClusterSizeMax); err != nil {
		return err
	}
	if err := intRange("hdbscan.minSamples", h.MinSamples, MinSamplesMin, MinSamplesMax); err != nil {
		return err
	}
	switch h.ClusterSelectionMethod {
	case "", SelectEOM, SelectLeaf:
	default:
		return cairn.Invalidf("hdbscan.clusterSelectionMethod %q: want eom or leaf", h.ClusterSelectionMethod)
	}
	if e := h.ClusterSelectionEpsilon; !(e >= 0) || math.IsInf(e, 1) {
		return cairn.Invalidf("hdbscan.clusterSelectionEpsilon %v: want a finite number >= 0", e)
	}
	if o.Seed != nil && (*o.Seed < 0 || *o.Seed > MaxSeed) {
		return cairn.Invalidf("seed %d: want 0 to 4294967295", *o.Seed)
	}
	return nil
}

// intRange checks a set (non-zero) integer option.
func intRange(name string, v, lo, hi int) error {
	if v != 0 && (v < lo || v > hi) {
		return cairn.Invalidf("%s %d: want %d to %d", name, v, lo, hi)
	}
	return nil
}

// Resolve fills defaults and the automatic HDBSCAN values for a population
// of n unique chunks, and returns the resolved and the effective settings.
// Effective rules (C17): nComponents = min(set, n−2); nNeighbors =
// min(set, n−1), at least 2; automatic minClusterSize and minSamples are
// capped at n; a configured minClusterSize or minSamples above n is an
// error, as is n below MinUnique.
func (o *Options) Resolve(n int) (resolved, effective Settings, err error) {
	if err := o.Validate(); err != nil {
		return Settings{}, Settings{}, err
	}
	if n < MinUnique {
		return Settings{}, Settings{}, cairn.Invalidf("cluster: %d unique chunks: need at least %d", n, MinUnique)
	}
	r := Settings{Method: or(o.Space.Method, DefaultMethod), NComponents: orInt(o.Space.NComponents, DefaultNComponents),
		NNeighbors: orInt(o.Space.NNeighbors, DefaultNNeighbors), MinDist: DefaultMinDist,
		MinClusterSize: o.HDBSCAN.MinClusterSize, MinSamples: o.HDBSCAN.MinSamples,
		ClusterSelectionMethod:  or(o.HDBSCAN.ClusterSelectionMethod, DefaultSelection),
		ClusterSelectionEpsilon: o.HDBSCAN.ClusterSelectionEpsilon, AllowSingleCluster: o.HDBSCAN.AllowSingleCluster,
		Seed: DefaultSeed}
	if o.Space.MinDist != nil {
		r.MinDist = *o.Space.MinDist
	}
	if o.Seed != nil {
		r.Seed = *o.Seed
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"hdbscan.minClusterSize", r.MinClusterSize}, {"hdbscan.minSamples", r.MinSamples}} {
		if c.v > n {
			return Settings{}, Settings{}, cairn.Invalidf("%s %d: above the population of %d unique chunks", c.name, c.v, n)
		}
	}
	if r.MinClusterSize == 0 {
		r.MinClusterSize = min(150, max(15, int(math.Round(0.005*float64(n)))))
	}
	if r.MinSamples == 0 {
		r.MinSamples = min(10, r.MinClusterSize)
	}
	e := r
	e.NComponents = min(r.NComponents, n-2)
	e.NNeighbors = max(2, min(r.NNeighbors, n-1))
	e.MinClusterSize = min(r.MinClusterSize, n)
	e.MinSamples = min(r.MinSamples, n)
	return r, e, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
