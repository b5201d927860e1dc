package onnx

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
)

// pb appends protocol buffer fields: just the varint and length-delimited
// wire types that an ONNX ModelProto needs.
type pb []byte

func (b pb) varint(field int, v uint64) pb {
	return binary.AppendUvarint(binary.AppendUvarint(b, uint64(field)<<3), v)
}

func (b pb) bytes(field int, v []byte) pb {
	b = binary.AppendUvarint(binary.AppendUvarint(b, uint64(field)<<3|2), uint64(len(v)))
	return append(b, v...)
}

func (b pb) str(field int, s string) pb { return b.bytes(field, []byte(s)) }

// ONNX element types (TensorProto.DataType).
const (
	onnxFloat = 1
	onnxInt64 = 7
)

// valueInfo is a ValueInfoProto: a tensor of elemType with dims, each a
// dim_param name or a dim_value number.
func valueInfo(name string, elemType int, dims ...any) pb {
	var shape pb
	for _, d := range dims {
		switch d := d.(type) {
		case string:
			shape = shape.bytes(1, pb{}.str(2, d)) // Dimension.dim_param
		case int:
			shape = shape.bytes(1, pb{}.varint(1, uint64(d))) // Dimension.dim_value
		}
	}
	tensor := pb{}.varint(1, uint64(elemType)).bytes(2, shape) // TypeProto.Tensor{elem_type, shape}
	return pb{}.str(1, name).bytes(2, pb{}.bytes(1, tensor))   // ValueInfoProto{name, type{tensor_type}}
}

// tinyModel is an ONNX model (IR 7, opset 13) whose last_hidden_state is
// Gather(embedding, input_ids): each token's "state" is its embedding row.
// attention_mask is an input the graph does not use. dim is "dim" (dynamic)
// in the output shape when dynamicDim is set.
func tinyModel(embedding [][]float32, dynamicDim bool) []byte {
	var raw []byte
	for _, row := range embedding {
		for _, x := range row {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
		}
	}
	vocab, dim := len(embedding), len(embedding[0])
	init := pb{}.varint(1, uint64(vocab)).varint(1, uint64(dim)).varint(2, onnxFloat).
		str(8, "embedding").bytes(9, raw) // TensorProto{dims, data_type, name, raw_data}
	node := pb{}.str(1, "embedding").str(1, "input_ids").str(2, "last_hidden_state").
		str(3, "gather").str(4, "Gather") // NodeProto{input, input, output, name, op_type}
	var outDim any = dim
	if dynamicDim {
		outDim = "dim"
	}
	graph := pb{}.bytes(1, node).str(2, "tiny").bytes(5, init).
		bytes(11, valueInfo("input_ids", onnxInt64, "batch", "seq")).
		bytes(11, valueInfo("attention_mask", onnxInt64, "batch", "seq")).
		bytes(12, valueInfo("last_hidden_state", onnxFloat, "batch", "seq", outDim))
	opset := pb{}.str(1, "").varint(2, 13)
	return pb{}.varint(1, 7).str(2, "cairn-test").bytes(7, graph).bytes(8, opset) // ModelProto
}

// The dense path on a model the test writes: mean pooling under the mask,
// CLS pooling, normalization, truncation and prefixes against values worked
// out by hand. Row 0 (the padding id) is not zero, so padding that leaks
// into the mean changes the result.
func TestDenseTinyModel(t *testing.T) {
	shared := sharedDir(t)
	embedding := [][]float32{{5, 5, 5}, {1, 0, 0}, {0, 2, 0}, {3, 0, 4}, {1, 1, 1}}
	ids := map[string][]int{"c": {3}, "a b": {1, 2}, "a b d": {1, 2, 4}, "q: c": {3, 3, 1}}
	texts := []string{"c", "a b", "", "a b d"}
	s14 := float32(math.Sqrt(14))
	tests := []struct {
		name       string
		manifest   string
		maxTokens  int
		dynamicDim bool
		kind       string
		want       [][]float32
		normalized bool
	}{
		{name: "detected: mean, normalized", kind: cairn.EmbedDocument, normalized: true,
			want: [][]float32{{0.6, 0, 0.8}, {1 / float32(math.Sqrt(5)), 2 / float32(math.Sqrt(5)), 0}, {0, 0, 0}, {2 / s14, 3 / s14, 1 / s14}}},
		{name: "dimension from a probe run", dynamicDim: true, kind: cairn.EmbedDocument, normalized: true,
			want: [][]float32{{0.6, 0, 0.8}, {1 / float32(math.Sqrt(5)), 2 / float32(math.Sqrt(5)), 0}, {0, 0, 0}, {2 / s14, 3 / s14, 1 / s14}}},
		{name: "mean, raw", manifest: `{"normalize": false}`, kind: cairn.EmbedDocument,
			want: [][]float32{{3, 0, 4}, {0.5, 1, 0}, {0, 0, 0}, {2.0 / 3, 1, 1.0 / 3}}},
		{name: "cls, raw", manifest: `{"pooling": "cls", "normalize": false}`, kind: cairn.EmbedDocument,
			want: [][]float32{{3, 0, 4}, {1, 0, 0}, {0, 0, 0}, {1, 0, 0}}},
		{name: "max tokens 2", manifest: `{"normalize": false}`, maxTokens: 2, kind: cairn.EmbedDocument,
			want: [][]float32{{3, 0, 4}, {0.5, 1, 0}, {0, 0, 0}, {0.5, 1, 0}}},
		{name: "manifest max_tokens 1", manifest: `{"normalize": false, "max_tokens": 1}`, kind: cairn.EmbedDocument,
			want: [][]float32{{3, 0, 4}, {1, 0, 0}, {0, 0, 0}, {1, 0, 0}}},
		{name: "query prefix", manifest: `{"normalize": false, "query_prefix": "q: "}`, kind: cairn.EmbedQuery,
			want: [][]float32{{7.0 / 3, 0, 8.0 / 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tiny")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ModelFile), tinyModel(embedding, tt.dynamicDim), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.manifest != "" {
				if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(tt.manifest), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			e, err := New(Options{ModelDir: dir, Library: libraryPath(shared), Tokenizer: mapTokenizer(t, ids),
				MaxTokens: tt.maxTokens, Batch: 2})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			defer e.Close()
			if id := e.Identity(); id.Dimension != 3 || id.Normalized != tt.normalized || id.Model[:5] != "tiny@" {
				t.Errorf("Identity() = %+v", id)
			}
			in := texts
			if tt.kind == cairn.EmbedQuery {
				in = []string{"c"}
			}
			got, err := e.Embed(context.Background(), tt.kind, in)
			if err != nil {
				t.Fatalf("Embed: %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d vectors, want %d", len(got), len(tt.want))
			}
			for i := range tt.want {
				if len(got[i]) != 3 || maxDiff(got[i], tt.want[i]) > 1e-6 {
					t.Errorf("text %q: got %v, want %v", in[i], got[i], tt.want[i])
				}
			}
		})
	}
}
