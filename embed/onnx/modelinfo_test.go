package onnx

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

// irThreeModel is tinyModel as IR version 3 wrote it: the initializer is
// listed among the graph's inputs too, which a session does not report.
func irThreeModel() []byte {
	embedding := pb{}.varint(1, 2).varint(1, 3).varint(2, onnxFloat).str(8, "embedding").
		bytes(9, make([]byte, 24))
	node := pb{}.str(1, "embedding").str(1, "input_ids").str(2, "last_hidden_state").str(4, "Gather")
	graph := pb{}.bytes(1, node).str(2, "old").bytes(5, embedding).
		bytes(11, valueInfo("embedding", onnxFloat, 2, 3)).
		bytes(11, valueInfo("input_ids", onnxInt64, "batch", "seq")).
		bytes(12, valueInfo("last_hidden_state", onnxFloat, "batch", "seq", 3))
	return pb{}.varint(1, 3).bytes(7, graph).bytes(8, pb{}.str(1, "").varint(2, 9))
}

// modelInfo reads from the model's bytes what ONNX Runtime's own reader
// (a temporary session) reports: names, order, element types, shapes with
// -1 for named dimensions, initializers left out of the inputs. One
// difference is by design: the runtime's shape inference fixes an output
// dimension the file only names ("dim" of the tiny model: 3, from the
// embedding's shape), which modelInfo leaves at -1; New's probe run then
// learns it (TestDenseTinyModel, "dimension from a probe run").
func TestModelInfoMatchesRuntime(t *testing.T) {
	shared := sharedDir(t)
	if err := initRuntime(libraryPath(shared)); err != nil {
		t.Fatal(err)
	}
	useLite, err := os.ReadFile(filepath.Join(shared, "models", "use-lite", ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	embedding := [][]float32{{5, 5, 5}, {1, 0, 0}}
	for _, tt := range []struct {
		name     string
		model    []byte
		inferred bool // the runtime infers the output's last dimension
	}{
		{"use-lite", useLite, false},
		{"tiny, fixed dimension", tinyModel(embedding, false), false},
		{"tiny, named dimension", tinyModel(embedding, true), true},
		{"IR 3, initializer among the inputs", irThreeModel(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantIn, wantOut, err := ort.GetInputOutputInfoWithONNXData(tt.model)
			if err != nil {
				t.Fatal(err)
			}
			if tt.inferred {
				wantOut[0].Dimensions[len(wantOut[0].Dimensions)-1] = -1
			}
			gotIn, gotOut, err := modelInfo(tt.model)
			if err != nil {
				t.Fatalf("modelInfo: %v", err)
			}
			if !reflect.DeepEqual(gotIn, wantIn) || !reflect.DeepEqual(gotOut, wantOut) {
				t.Errorf("modelInfo =\n  %v\n  %v\nruntime:\n  %v\n  %v", gotIn, gotOut, wantIn, wantOut)
			}
		})
	}
}

// A model cut short or not a model at all is an error, not a guess.
func TestModelInfoDamaged(t *testing.T) {
	model := tinyModel([][]float32{{1, 2}, {3, 4}}, false)
	for _, tt := range []struct {
		name  string
		model []byte
	}{
		{"cut short", model[:len(model)-10]},
		{"text", []byte("not a model")},
		{"no graph", pb{}.varint(1, 7)},
		{"input without a name", pb{}.bytes(7, pb{}.bytes(11, pb{}.bytes(2, nil)))},
	} {
		if _, _, err := modelInfo(tt.model); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}
