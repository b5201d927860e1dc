package telemetry

import "testing"

func TestSeries(t *testing.T) {
	tests := []struct {
		name    string
		samples []float64
		want    Summary
	}{
		{"empty", nil, Summary{}},
		{"one", []float64{4}, Summary{Total: 4, Samples: 1, RecentSamples: 1, P50: 4, P95: 4}},
		{"nearest rank", []float64{5, 1, 3, 2, 4}, Summary{Total: 15, Samples: 5, RecentSamples: 5, P50: 3, P95: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Series
			for _, v := range tt.samples {
				s.Add(v)
			}
			if got := s.Summary(); got != tt.want {
				t.Errorf("summary %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestSeriesWindow: the percentiles cover the last Window samples only,
// while the total and count cover all of them.
func TestSeriesWindow(t *testing.T) {
	var s Series
	for range Window {
		s.Add(100)
	}
	for range Window {
		s.Add(1)
	}
	got := s.Summary()
	if got.Samples != 2*Window || got.RecentSamples != Window || got.P50 != 1 || got.P95 != 1 || got.Total != 101*Window {
		t.Errorf("summary %+v: want the old samples out of the window", got)
	}
	if Inc(MaxCount) != MaxCount {
		t.Errorf("Inc does not saturate")
	}
}

func TestNearestRank(t *testing.T) {
	tests := []struct {
		vals    []float64
		p, want float64
	}{
		{nil, 0.5, 0},
		{[]float64{7}, 0.95, 7},
		{[]float64{1, 2, 3, 4}, 0.5, 2},
		{[]float64{1, 2, 3, 4}, 0.95, 4},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.5, 5},
	}
	for _, tt := range tests {
		if got := nearestRank(tt.vals, tt.p); got != tt.want {
			t.Errorf("nearestRank(%v, %v) = %v, want %v", tt.vals, tt.p, got, tt.want)
		}
	}
	var s Series
	for i := range 300 {
		s.Add(float64(i))
	}
	// The window holds 44..299: ranks 128 and 244 of 256.
	if m := s.Summary(); m.Samples != 300 || m.RecentSamples != Window || m.P50 != 171 || m.P95 != 287 || m.Total != 299*300/2 {
		t.Errorf("summary %+v, want 300 samples, 256 recent, p50 171, p95 287", m)
	}
}
