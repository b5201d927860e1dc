package port_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/port"
)

// ImportOptions.EmbedderAlso: vectors of a model the target accepts
// beside its embedder (quantize = "auto": the other quantization) are
// imported; a model neither names is refused, the message naming both.
func TestImportEmbedderAlso(t *testing.T) {
	data := export(t, filled(t), false) // vectors of "model-a"
	dst := openStore(t)
	if _, err := importInto(t, dst, data, &port.ImportOptions{Embedder: "onnx|model-b|3", EmbedderAlso: []string{"model-a"}}); err != nil {
		t.Fatalf("import with model-a accepted beside the embedder: %v", err)
	}
	if n, _ := dst.CountVectors(context.Background(), "model-a"); n != 2 {
		t.Fatalf("%d vectors of model-a imported, want 2", n)
	}
	dst = openStore(t)
	_, err := importInto(t, dst, data, &port.ImportOptions{Embedder: "onnx|model-b|3", EmbedderAlso: []string{"onnx|model-c|3"}})
	if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "onnx|model-b|3 or onnx|model-c|3") {
		t.Fatalf("import of model-a into model-b or model-c: %v, want a models: refusal naming both", err)
	}
	if n, _ := dst.ChunkCount(context.Background()); n != 0 {
		t.Fatalf("a refused import left %d chunks", n)
	}
}
