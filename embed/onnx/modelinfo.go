package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"

	ort "github.com/yalue/onnxruntime_go"
)

// modelInfo reads the inputs and outputs of an ONNX model from its bytes:
// the graph's inputs that are not initializers (what a session reports as
// its inputs) and its outputs, with element type and shape (-1 for a named
// or unknown dimension, as ONNX Runtime reports them).
//
// onnxruntime_go's GetInputOutputInfoWithONNXData builds a whole temporary
// session to answer this: 580 to 1,010 ms of a one-shot hybrid search's
// model load at load 17, about 40% of New, for names the model file states
// in a few hundred bytes (bench/RESULTS.md, "Model load without the
// temporary session"). The walk below reads only the protocol buffer fields
// on the way to them and steps over the weights by their length.
func modelInfo(model []byte) (ins, outs []ort.InputOutputInfo, err error) {
	var graph []byte
	err = walk(model, func(field int, v []byte, _ uint64) error {
		if field == 7 { // ModelProto.graph
			graph = v
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if graph == nil {
		return nil, nil, errors.New("no graph in the model")
	}
	inits := map[string]bool{}
	var inputs [][]byte
	err = walk(graph, func(field int, v []byte, _ uint64) error {
		switch field {
		case 5: // GraphProto.initializer: TensorProto, name = 8
			name, err := stringField(v, 8)
			inits[name] = true
			return err
		case 15: // GraphProto.sparse_initializer: SparseTensorProto, values = 1
			values, err := bytesField(v, 1)
			if err != nil {
				return err
			}
			name, err := stringField(values, 8)
			inits[name] = true
			return err
		case 11: // GraphProto.input
			inputs = append(inputs, v)
		case 12: // GraphProto.output
			o, err := readValueInfo(v)
			outs = append(outs, o)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// Before IR version 4 every initializer was listed among the inputs
	// too; a session reports only the others.
	for _, v := range inputs {
		in, err := readValueInfo(v)
		if err != nil {
			return nil, nil, err
		}
		if !inits[in.Name] {
			ins = append(ins, in)
		}
	}
	return ins, outs, nil
}

// readValueInfo decodes a ValueInfoProto: name = 1, type = 2.
func readValueInfo(b []byte) (ort.InputOutputInfo, error) {
	var info ort.InputOutputInfo
	err := walk(b, func(field int, v []byte, _ uint64) error {
		switch field {
		case 1:
			info.Name = string(v)
		case 2:
			return typeInfo(v, &info)
		}
		return nil
	})
	if err == nil && info.Name == "" {
		err = errors.New("an input or output without a name")
	}
	return info, err
}

// typeInfo decodes a TypeProto into info: tensor_type = 1 (a
// TypeProto.Tensor), sequence_type = 4, map_type = 5, sparse_tensor_type
// = 8 (shaped like a tensor), optional_type = 9.
func typeInfo(b []byte, info *ort.InputOutputInfo) error {
	return walk(b, func(field int, v []byte, _ uint64) error {
		switch field {
		case 1, 8:
			info.OrtValueType = ort.ONNXTypeTensor
			if field == 8 {
				info.OrtValueType = ort.ONNXTypeSparseTensor
			}
			return tensorType(v, info)
		case 4:
			info.OrtValueType = ort.ONNXTypeSequence
		case 5:
			info.OrtValueType = ort.ONNXTypeMap
		case 9:
			info.OrtValueType = ort.ONNXTypeOptional
		}
		return nil
	})
}

// tensorType decodes a TypeProto.Tensor: elem_type = 1 (ONNX's
// TensorProto.DataType, the numbering ONNX Runtime's element types use),
// shape = 2 (a TensorShapeProto of dim = 1, each dim_value = 1 or
// dim_param = 2).
func tensorType(b []byte, info *ort.InputOutputInfo) error {
	return walk(b, func(field int, v []byte, n uint64) error {
		switch field {
		case 1:
			info.DataType = ort.TensorElementDataType(n)
		case 2:
			info.Dimensions = ort.Shape{}
			return walk(v, func(field int, dim []byte, _ uint64) error {
				if field != 1 {
					return nil
				}
				size := int64(-1)
				err := walk(dim, func(field int, _ []byte, n uint64) error {
					if field == 1 {
						size = int64(n)
					}
					return nil
				})
				info.Dimensions = append(info.Dimensions, size)
				return err
			})
		}
		return nil
	})
}

// stringField returns the last length-delimited field number want of a
// message, "" when it has none.
func stringField(b []byte, want int) (string, error) {
	v, err := bytesField(b, want)
	return string(v), err
}

func bytesField(b []byte, want int) ([]byte, error) {
	var out []byte
	err := walk(b, func(field int, v []byte, _ uint64) error {
		if field == want {
			out = v
		}
		return nil
	})
	return out, err
}

// walk calls f with each field of a protocol buffer message in order: a
// length-delimited field's bytes (v), or a varint or fixed field's value
// (n). Groups, a wire type ONNX does not use, are an error, as is a field
// that runs past the end.
func walk(b []byte, f func(field int, v []byte, n uint64) error) error {
	for len(b) > 0 {
		key, k := binary.Uvarint(b)
		if k <= 0 {
			return errors.New("bad field key")
		}
		b = b[k:]
		field, wire := int(key>>3), key&7
		var v []byte
		var n uint64
		switch wire {
		case 0:
			n, k = binary.Uvarint(b)
			if k <= 0 {
				return fmt.Errorf("field %d: bad varint", field)
			}
			b = b[k:]
		case 1, 5:
			size := 8
			if wire == 5 {
				size = 4
			}
			if len(b) < size {
				return fmt.Errorf("field %d: cut short", field)
			}
			if size == 8 {
				n = binary.LittleEndian.Uint64(b)
			} else {
				n = uint64(binary.LittleEndian.Uint32(b))
			}
			b = b[size:]
		case 2:
			size, k := binary.Uvarint(b)
			if k <= 0 || size > uint64(len(b)-k) {
				return fmt.Errorf("field %d: cut short", field)
			}
			v, b = b[k:k+int(size)], b[k+int(size):]
		default:
			return fmt.Errorf("field %d: unsupported wire type %d", field, wire)
		}
		if err := f(field, v, n); err != nil {
			return err
		}
	}
	return nil
}
