package port_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/port"
)

// TestImportRefusesBadVectors: a vector holding NaN or an infinity, or one
// of a normalizing model far from unit length, is a broken row (ux U13:
// one NaN vector in an imported file made every vector and hybrid score
// NaN, and MCP memory_search failed to marshal it): the import fails
// naming vectors.vector, nothing written; with Partial the row alone is
// left out. Unit vectors still import, and so does any finite vector of a
// model that does not normalize (filled's model-a, TestFileRoundTrip).
func TestImportRefusesBadVectors(t *testing.T) {
	ctx := context.Background()
	const unit = `onnx|m|3|true|""|""|`
	src := filled(t)
	var ids []int64
	_ = src.ChunkDocs(ctx, func(id int64, _, _ string) { ids = append(ids, id) })
	good := []float32{0.6, 0, 0.8}
	for _, c := range []struct {
		name string
		vec  []float32
		want string // "" imports
	}{
		{"unit", good, ""},
		{"nan", []float32{float32(math.NaN()), 0, 0.8}, "value 0 is NaN"},
		{"inf", []float32{0.6, float32(math.Inf(1)), 0.8}, "value 1 is +Inf"},
		{"huge", []float32{1e30, 0, 0.8}, "length 1e+30"},
		{"zero", []float32{0, 0, 0}, "length 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := filled(t)
			if err := s.PutVectors(ctx, unit, ids, [][]float32{c.vec, good}); err != nil {
				t.Fatal(err)
			}
			data := export(t, s, false)
			dst := openStore(t)
			res, err := importInto(t, dst, data, nil)
			if c.want == "" {
				if err != nil {
					t.Fatalf("import: %v", err)
				}
				if res.Counts["vectors"] != 2 {
					t.Errorf("counts %v, want 2 vectors", res.Counts)
				}
				return
			}
			if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "vectors.vector") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import: %v, want an ErrInvalid naming vectors.vector and %q", err, c.want)
			}
			if n, _ := dst.CountPending(ctx, unit); n != 0 {
				t.Errorf("a refused import left %d chunks", n)
			}
			res, err = importInto(t, openStore(t), data, &port.ImportOptions{Partial: true})
			if err != nil || res.Counts["vectors"] != 1 { // the good one (a chunk keeps one vector: unit's replaced model-a's)
				t.Errorf("partial import: %v, counts %v; want the bad vector alone left out", err, res.Counts)
			}
		})
	}
}
