package onnx

import (
	"fmt"
	"math"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/cairnmemory/cairn"
)

// run embeds one batch of non-empty token lists with one session.
func (sp *spec) run(s *ort.DynamicAdvancedSession, toks [][]int64) ([][]float32, error) {
	var inputs []ort.Value
	defer func() {
		for _, v := range inputs {
			v.Destroy()
		}
	}()
	var feeds [][]int64
	var shapes []ort.Shape
	if sp.style == StyleRagged {
		indices, values := raggedInputs(toks)
		feeds = [][]int64{indices, values}
		shapes = []ort.Shape{ort.NewShape(int64(len(values)), 2), ort.NewShape(int64(len(values)))}
	} else {
		seq := maxLen(toks)
		for _, name := range sp.inputs {
			feeds = append(feeds, denseInput(name, toks, seq))
			shapes = append(shapes, ort.NewShape(int64(len(toks)), int64(seq)))
		}
	}
	for i, f := range feeds {
		t, err := ort.NewTensor(shapes[i], f)
		if err != nil {
			return nil, fmt.Errorf("make input %s: %w", sp.inputs[i], err)
		}
		inputs = append(inputs, t)
	}
	outputs := []ort.Value{nil}
	if err := s.Run(inputs, outputs); err != nil {
		return nil, fmt.Errorf("%w: run onnx model: %v", cairn.ErrInvalid, err)
	}
	defer outputs[0].Destroy()
	t, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, cairn.Invalidf("model output %q is not a float32 tensor", sp.output)
	}
	return sp.pool(t.GetShape(), t.GetData(), toks)
}

// raggedInputs lays a batch out as the ragged model wants it: rows sorted by
// (text b, position p), positions 0..n-1 without gaps, values the token ids.
func raggedInputs(toks [][]int64) (indices, values []int64) {
	for b, t := range toks {
		for p, id := range t {
			indices = append(indices, int64(b), int64(p))
			values = append(values, id)
		}
	}
	return indices, values
}

// denseInput is one [B, seq] input: ids padded with 0, the attention mask,
// or zero token types.
func denseInput(name string, toks [][]int64, seq int) []int64 {
	data := make([]int64, len(toks)*seq)
	for b, t := range toks {
		row := data[b*seq : b*seq+len(t)]
		switch name {
		case "input_ids":
			copy(row, t)
		case "attention_mask":
			for p := range row {
				row[p] = 1
			}
		}
	}
	return data
}

// pool turns the output into one vector per text: rows of a [B, D] output,
// or the mean (over each text's tokens) or first row of a [B, S, D] one.
func (sp *spec) pool(shape ort.Shape, data []float32, toks [][]int64) ([][]float32, error) {
	want := 2
	if sp.pooling != PoolNone {
		want = 3
	}
	if len(shape) != want || int(shape[0]) != len(toks) || (want == 3 && int(shape[1]) != maxLen(toks)) {
		return nil, fmt.Errorf("%w: model output %q has shape %v for %d texts of up to %d tokens", cairn.ErrInvalid, sp.output, shape, len(toks), maxLen(toks))
	}
	dim := int(shape[len(shape)-1])
	if sp.dim != 0 && dim != sp.dim {
		return nil, fmt.Errorf("%w: model output %q has %d dimensions, want %d", cairn.ErrInvalid, sp.output, dim, sp.dim)
	}
	seq := 1
	if want == 3 {
		seq = int(shape[1])
	}
	out := make([][]float32, len(toks))
	for b, t := range toks {
		rows := data[b*seq*dim : (b+1)*seq*dim]
		switch sp.pooling {
		case PoolMean:
			out[b] = mean(rows, dim, len(t))
		default: // none, cls: the first (or only) row
			out[b] = append([]float32(nil), rows[:dim]...)
		}
		if sp.normalize {
			normalize(out[b])
		}
	}
	return out, nil
}

// mean averages the first n rows of dim values, summing in float64.
func mean(rows []float32, dim, n int) []float32 {
	sum := make([]float64, dim)
	for p := range n {
		for i, x := range rows[p*dim : (p+1)*dim] {
			sum[i] += float64(x)
		}
	}
	v := make([]float32, dim)
	for i, s := range sum {
		v[i] = float32(s / float64(n))
	}
	return v
}

// normalize scales v to unit length in place; a zero vector stays zero.
func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := 1 / math.Sqrt(sum)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
}

func maxLen(toks [][]int64) int {
	n := 0
	for _, t := range toks {
		n = max(n, len(t))
	}
	return n
}
