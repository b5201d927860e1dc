package cluster

import "sync"

// The phases Run reports through Options.Progress, in order.
const (
	// PhaseNeighbours: the kNN graph, one step per random projection tree
	// and per nearest-neighbour descent round (a descent that settles
	// early jumps to the total).
	PhaseNeighbours = "neighbours"
	// PhaseSpace: the UMAP space's SGD, one step per epoch (method umap
	// only).
	PhaseSpace = "space"
	// PhaseLayout: the 2-D layout's SGD epochs, which run beside HDBSCAN,
	// and one last step when HDBSCAN is done as well.
	PhaseLayout = "layout"
)

// Step is one progress report of Run: Done of Total steps of Phase.
type Step struct {
	Phase       string
	Done, Total int
}

// reporter passes Run's steps to Options.Progress one at a time (the
// layout reports from its own goroutine beside HDBSCAN). It only reads
// counters the computation already keeps, so a run gives the same result
// with or without it.
type reporter struct {
	mu  sync.Mutex
	f   func(Step)
	ep  int  // layout epochs done
	hdb bool // HDBSCAN done
}

func (r *reporter) report(phase string, done, total int) {
	if r == nil || r.f == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.f(Step{Phase: phase, Done: done, Total: total})
}

// layoutStep counts one layout epoch (epochs > 0) or the end of HDBSCAN
// (epochs 0) against the layout's total of layoutEpochs + 1.
func (r *reporter) layoutStep(layoutEpochs int, hdbscanDone bool) {
	if r == nil || r.f == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if hdbscanDone {
		r.hdb = true
	} else {
		r.ep++
	}
	done := r.ep
	if r.hdb {
		done++
	}
	r.f(Step{Phase: PhaseLayout, Done: done, Total: layoutEpochs + 1})
}
