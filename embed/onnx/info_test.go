package onnx

import (
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

func TestInfoTmp(t *testing.T) {
	if err := initRuntime("/work/shared/lib/onnxruntime/libonnxruntime.so.1"); err != nil {
		t.Fatal(err)
	}
	ins, outs, err := ort.GetInputOutputInfo("/work/shared/models/use-lite/model.onnx")
	t.Log(ins, outs, err)
}
