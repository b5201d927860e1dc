package whisper

import (
	"math"
	"slices"
	"sync"
)

// Limits of the diagnostics counters (C16).
const (
	MaxAgents    = 100       // agents counted; the oldest inserted is evicted past it
	RecentWindow = 256       // calls p50 and p95 cover
	MaxCount     = 1<<53 - 1 // counters saturate (exact in a JSON number)
)

// Outcomes are C16's whisperer outcomes, each counted from zero.
var Outcomes = []string{"missing_key", "judge_disabled", "no_candidates", "rejected", "cooldown", "emitted", "failed",
	"timed_out", "cancelled", "unavailable", "payload_limit", "redundancy_unavailable", "recall_not_needed",
	"queries_generated", "judge_candidate_failed", "input_too_large"}

// OpOutcomes are the per-operation telemetry outcomes (C16).
var OpOutcomes = []string{"ok", "partial", "empty", "failed", "cancelled", "timed_out", "skipped"}

// Stats counts whisperer outcomes and operation telemetry per agent for
// the life of the process: never text, paths or keys. Safe for
// concurrent use.
type Stats struct {
	mu     sync.Mutex
	agents map[string]*agentStats
	order  []string // insertion order, for eviction
}

type agentStats struct {
	outcomes map[string]map[string]int64 // whisperer kind -> outcome -> count
	ops      map[string]*opStats
}

type opStats struct {
	calls    int64
	outcomes map[string]int64
	measures map[string]*series
}

// series keeps a running total and the last RecentWindow samples.
type series struct {
	total   float64
	samples int64
	recent  []float64 // ring
	next    int
}

func (s *series) add(v float64) {
	s.total += v
	s.samples = min(s.samples+1, MaxCount)
	if len(s.recent) < RecentWindow {
		s.recent = append(s.recent, v)
		return
	}
	s.recent[s.next] = v
	s.next = (s.next + 1) % RecentWindow
}

// Measurement summarizes one measured quantity over an operation's calls.
type Measurement struct {
	Total         float64 `json:"total"`
	Samples       int64   `json:"samples"`
	RecentSamples int     `json:"recentSamples"`
	P50           float64 `json:"p50"`
	P95           float64 `json:"p95"`
}

// OpTelemetry is one operation's calls, outcomes and measurements.
type OpTelemetry struct {
	Calls        int64                  `json:"calls"`
	Outcomes     map[string]int64       `json:"outcomes"`
	Measurements map[string]Measurement `json:"measurements"`
}

func (s *series) summary() Measurement {
	sorted := slices.Clone(s.recent)
	slices.Sort(sorted)
	return Measurement{Total: s.total, Samples: s.samples, RecentSamples: len(sorted),
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

// agent returns the stats of one agent, inserting it (and evicting the
// oldest inserted past MaxAgents). Called with mu held.
func (s *Stats) agent(id string) *agentStats {
	if s.agents == nil {
		s.agents = map[string]*agentStats{}
	}
	a := s.agents[id]
	if a != nil {
		return a
	}
	if len(s.order) >= MaxAgents {
		delete(s.agents, s.order[0])
		s.order = s.order[1:]
	}
	a = &agentStats{outcomes: map[string]map[string]int64{}, ops: map[string]*opStats{}}
	s.agents[id] = a
	s.order = append(s.order, id)
	return a
}

// Count adds one to each outcome of a whisperer kind for an agent.
func (s *Stats) Count(agent, kind string, outcomes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.agent(agent)
	m := a.outcomes[kind]
	if m == nil {
		m = map[string]int64{}
		a.outcomes[kind] = m
	}
	for _, o := range outcomes {
		m[o] = min(m[o]+1, MaxCount)
	}
}

// Record counts one call of an operation with its outcome and
// measurements.
func (s *Stats) Record(agent, op, outcome string, measures map[string]float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.agent(agent)
	o := a.ops[op]
	if o == nil {
		o = &opStats{outcomes: map[string]int64{}, measures: map[string]*series{}}
		a.ops[op] = o
	}
	o.calls = min(o.calls+1, MaxCount)
	o.outcomes[outcome] = min(o.outcomes[outcome]+1, MaxCount)
	for k, v := range measures {
		m := o.measures[k]
		if m == nil {
			m = &series{}
			o.measures[k] = m
		}
		m.add(v)
	}
}

// Outcomes returns an agent's counts for a whisperer kind, every outcome
// of Outcomes present.
func (s *Stats) OutcomesOf(agent, kind string) map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int64, len(Outcomes))
	for _, o := range Outcomes {
		out[o] = 0
	}
	if a := s.agents[agent]; a != nil {
		for k, v := range a.outcomes[kind] {
			out[k] = v
		}
	}
	return out
}

// Telemetry returns an agent's telemetry of op, zero when never called.
func (s *Stats) Telemetry(agent, op string) OpTelemetry {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := OpTelemetry{Outcomes: map[string]int64{}, Measurements: map[string]Measurement{}}
	for _, o := range OpOutcomes {
		t.Outcomes[o] = 0
	}
	a := s.agents[agent]
	if a == nil || a.ops[op] == nil {
		return t
	}
	o := a.ops[op]
	t.Calls = o.calls
	for k, v := range o.outcomes {
		t.Outcomes[k] = v
	}
	for k, m := range o.measures {
		t.Measurements[k] = m.summary()
	}
	return t
}

// Agents returns the agents counted, oldest first.
func (s *Stats) Agents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.order)
}
