// Package telemetry keeps the running measurements that diagnostics
// report (spec C16): a total, a saturating sample count and the last
// Window samples, summarized as p50 and p95 by nearest rank. It holds
// numbers only, never text. The MCP server's operation telemetry and
// the whisperers' statistics both use it.
package telemetry

import (
	"math"
	"slices"
)

const (
	Window   = 256       // recent samples that p50 and p95 cover
	MaxCount = 1<<53 - 1 // counters saturate here (exact in a JSON number)
)

// Inc is n+1, saturating at MaxCount.
func Inc(n int64) int64 { return min(n+1, MaxCount) }

// Series is one measured quantity. The zero value is ready; it is not
// safe for concurrent use (its owner holds a lock).
type Series struct {
	total   float64
	samples int64
	recent  []float64 // ring of the last Window samples
	next    int
}

// Add records one sample.
func (s *Series) Add(v float64) {
	s.total += v
	s.samples = Inc(s.samples)
	if len(s.recent) < Window {
		s.recent = append(s.recent, v)
		return
	}
	s.recent[s.next] = v
	s.next = (s.next + 1) % Window
}

// Summary summarizes one measured quantity over an operation's calls.
type Summary struct {
	Total         float64 `json:"total"`
	Samples       int64   `json:"samples"`
	RecentSamples int     `json:"recentSamples"`
	P50           float64 `json:"p50"`
	P95           float64 `json:"p95"`
}

// Summary is the series' total, count and recent percentiles.
func (s *Series) Summary() Summary {
	sorted := slices.Clone(s.recent)
	slices.Sort(sorted)
	return Summary{Total: s.total, Samples: s.samples, RecentSamples: len(sorted),
		P50: nearestRank(sorted, 0.50), P95: nearestRank(sorted, 0.95)}
}

// nearestRank is the p-quantile of sorted values by nearest rank (ceil).
func nearestRank(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}
