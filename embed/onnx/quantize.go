package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Weight quantization (Options.Quantize). QuantizeInt8 rewrites the model
// in memory before the sessions are made: every MatMul whose second input
// is a float32 initializer of rank 2 (a weight matrix K x N) becomes ONNX
// Runtime's com.microsoft DynamicQuantizeMatMul with those weights as
// int8, one symmetric scale a column (max |w| / 127, no zero point). At run
// time the runtime quantizes each activation matrix to uint8 with its own
// range and multiplies u8 x s8 in integer kernels, then scales back to
// float (on x86 without VNNI the weights use 7 bits, [-63, 63], so that
// the kernel's 16-bit pair sums cannot saturate: quantbits.go): on AVX2
// about twice the multiply-adds a cycle of FP32 FMA, and a quarter of the
// weight bytes. Attention's MatMuls (both operands activations) and every
// other op stay float32, as does the embedding table (a Gather). The model file is never written: the rewrite is
// redone by each New that does not find it in the optimized-graph cache,
// whose key includes the quantization (cachePath).
const (
	QuantizeNone = "" // FP32 weights, the model as it is
	QuantizeInt8 = "int8"
)

// Quantizations lists the values Options.Quantize allows.
var Quantizations = []string{"none", QuantizeInt8}

// quantizeSuffix is what the quantization adds to the model identity, so
// that vectors from the quantized model are never mixed with FP32 ones.
func quantizeSuffix(q string) string {
	if q == QuantizeNone {
		return ""
	}
	return "+" + q
}

// normalizeQuantize maps Options.Quantize to QuantizeNone or QuantizeInt8.
func normalizeQuantize(q string) (string, error) {
	switch q {
	case "", "none":
		return QuantizeNone, nil
	case QuantizeInt8:
		return q, nil
	}
	return "", fmt.Errorf("quantize %q; allowed: none, int8", q)
}

// Protocol buffer field numbers of onnx.proto (onnx/onnx.proto3, IR
// version 7 and later) that the rewrite reads or writes.
const (
	modelOpsetImport = 8 // ModelProto.opset_import: OperatorSetIdProto
	modelGraph       = 7 // ModelProto.graph: GraphProto

	opsetDomain  = 1 // OperatorSetIdProto.domain
	opsetVersion = 2 // OperatorSetIdProto.version

	graphNode        = 1  // GraphProto.node: NodeProto
	graphInitializer = 5  // GraphProto.initializer: TensorProto
	graphInput       = 11 // GraphProto.input: ValueInfoProto (name = 1)

	nodeInput  = 1 // NodeProto.input
	nodeOutput = 2 // NodeProto.output
	nodeName   = 3 // NodeProto.name
	nodeOpType = 4 // NodeProto.op_type
	nodeDomain = 7 // NodeProto.domain

	tensorDims      = 1  // TensorProto.dims (int64, packed or not)
	tensorDataType  = 2  // TensorProto.data_type
	tensorFloatData = 4  // TensorProto.float_data (packed or not)
	tensorName      = 8  // TensorProto.name
	tensorRawData   = 9  // TensorProto.raw_data (little-endian)
	tensorLocation  = 14 // TensorProto.data_location: 1 = EXTERNAL

	dataFloat = 1 // TensorProto.FLOAT
	dataInt8  = 3 // TensorProto.INT8
)

// msDomain is ONNX Runtime's contrib operator domain.
const msDomain = "com.microsoft"

// quantInfo reports what quantizeInt8 did.
type quantInfo struct {
	MatMuls int // MatMul nodes rewritten
	Weights int // float32 weights replaced by int8 ones
}

// quantizeInt8 returns the model with its weight MatMuls quantized (see
// QuantizeInt8). A model with no such MatMul is an error: quantizing it
// would change nothing but the identity.
//
// top is the largest weight magnitude: 127 (8 bits), or 63 (7 bits) for a
// CPU whose u8 x s8 kernel saturates (int8Top).
func quantizeInt8(model []byte, top int) ([]byte, quantInfo, error) {
	var info quantInfo
	out := make([]byte, 0, len(model))
	hasMS := false
	var graphErr error
	err := walkRaw(model, func(field int, v []byte, raw []byte) {
		switch field {
		case modelGraph:
			g, gi, err := quantizeGraph(v, top)
			if err != nil {
				graphErr = err
				return
			}
			info = gi
			out = appendBytes(out, modelGraph, g)
			return
		case modelOpsetImport:
			if d, _ := stringField(v, opsetDomain); d == msDomain {
				hasMS = true
			}
		}
		out = append(out, raw...)
	})
	if err == nil {
		err = graphErr
	}
	if err != nil {
		return nil, info, fmt.Errorf("quantize model: %w", err)
	}
	if info.MatMuls == 0 {
		return nil, info, errors.New("quantize model: no MatMul with a float32 weight matrix")
	}
	if !hasMS {
		var op []byte
		op = appendBytes(op, opsetDomain, []byte(msDomain))
		op = appendVarint(op, opsetVersion, 1)
		out = appendBytes(out, modelOpsetImport, op)
	}
	return out, info, nil
}

// weight is a float32 initializer of rank 2. Its values are decoded only
// for a MatMul that takes it (data, or values()).
type weight struct {
	k, n      int
	data      []float32
	raw, vals []byte    // raw_data, or packed float_data
	floatList []float32 // float_data not packed
	name      string
}

// values decodes the weight's values once.
func (w *weight) values() ([]float32, error) {
	if w.data == nil {
		switch {
		case w.raw != nil:
			w.data = decodeFloats(w.raw)
		case w.vals != nil:
			w.data = decodeFloats(w.vals)
		default:
			w.data = w.floatList
		}
	}
	if len(w.data) != w.k*w.n {
		return nil, fmt.Errorf("initializer %q: %d values for dims %dx%d", w.name, len(w.data), w.k, w.n)
	}
	return w.data, nil
}

// quantizeGraph rewrites one GraphProto: the weight MatMuls' nodes in
// place (the node order, which is topological, is kept), their int8
// weights and scales appended as initializers, and a float weight that no
// other node and no graph input uses dropped.
func quantizeGraph(g []byte, top int) ([]byte, quantInfo, error) {
	var info quantInfo
	weights := map[string]*weight{}
	uses := map[string]int{}    // node inputs by name
	matmuls := map[string]int{} // plain MatMuls by their second input
	inputs := map[string]bool{}
	var ferr error
	err := walkRaw(g, func(field int, v []byte, _ []byte) {
		switch field {
		case graphInitializer:
			name, w, err := readWeight(v)
			if err != nil && ferr == nil {
				ferr = err
			}
			if w != nil {
				weights[name] = w
			}
		case graphNode:
			n, err := readNode(v)
			if err != nil && ferr == nil {
				ferr = err
			}
			for _, in := range n.inputs {
				uses[in]++
			}
			if n.opType == "MatMul" && n.domain == "" {
				matmuls[n.second()]++
			}
		case graphInput:
			name, _ := stringField(v, 1)
			inputs[name] = true
		}
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return nil, info, err
	}
	// The weights the MatMuls take, quantized once each.
	quantized := map[string]bool{}
	var added []byte
	out := make([]byte, 0, len(g))
	err = walkRaw(g, func(field int, v []byte, _ []byte) {
		if field != graphNode {
			return
		}
		n, _ := readNode(v)
		w := weights[n.second()]
		if n.opType != "MatMul" || n.domain != "" || w == nil {
			return
		}
		name := n.inputs[1]
		if !quantized[name] {
			if _, err := w.values(); err != nil {
				ferr = err
				return
			}
			quantized[name] = true
			q, scale := quantizeColumns(w, top)
			added = appendBytes(added, graphInitializer, tensorBytes(name+"_int8", dataInt8, []int64{int64(w.k), int64(w.n)}, int8Bytes(q)))
			added = appendBytes(added, graphInitializer, tensorBytes(name+"_scale", dataFloat, []int64{int64(w.n)}, floatBytes(scale)))
			info.Weights++
		}
		info.MatMuls++
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return nil, info, err
	}
	drop := func(name string) bool {
		// A weight read by anything other than its MatMuls stays.
		return quantized[name] && !inputs[name] && uses[name] == matmuls[name]
	}
	err = walkRaw(g, func(field int, v []byte, raw []byte) {
		switch field {
		case graphNode:
			n, _ := readNode(v)
			if n.opType == "MatMul" && n.domain == "" && quantized[n.second()] {
				out = appendBytes(out, graphNode, n.dynamicQuantize())
				return
			}
		case graphInitializer:
			if name, _ := stringField(v, tensorName); drop(name) {
				return
			}
		}
		out = append(out, raw...)
	})
	return append(out, added...), info, err
}

// node is the part of a NodeProto the rewrite reads; rest holds every
// other field as it was (attributes, doc string).
type node struct {
	inputs, outputs []string
	name, opType    string
	domain          string
	rest            []byte
}

func readNode(b []byte) (node, error) {
	var n node
	err := walkRaw(b, func(field int, v []byte, raw []byte) {
		switch field {
		case nodeInput:
			n.inputs = append(n.inputs, string(v))
		case nodeOutput:
			n.outputs = append(n.outputs, string(v))
		case nodeName:
			n.name = string(v)
		case nodeOpType:
			n.opType = string(v)
		case nodeDomain:
			n.domain = string(v)
		default:
			n.rest = append(n.rest, raw...)
		}
	})
	return n, err
}

// second is the node's second input ("" when it has fewer).
func (n node) second() string {
	if len(n.inputs) < 2 {
		return ""
	}
	return n.inputs[1]
}

// dynamicQuantize is the node as DynamicQuantizeMatMul(A, B_int8,
// B_scale): same name and output. MatMul has no attributes, so rest (a
// doc string at most) is kept as it is.
func (n node) dynamicQuantize() []byte {
	var b []byte
	for _, in := range []string{n.inputs[0], n.inputs[1] + "_int8", n.inputs[1] + "_scale"} {
		b = appendBytes(b, nodeInput, []byte(in))
	}
	for _, o := range n.outputs {
		b = appendBytes(b, nodeOutput, []byte(o))
	}
	b = appendBytes(b, nodeName, []byte(n.name))
	b = appendBytes(b, nodeOpType, []byte("DynamicQuantizeMatMul"))
	b = appendBytes(b, nodeDomain, []byte(msDomain))
	return append(b, n.rest...)
}

// readWeight decodes a TensorProto; w is nil unless it is a float32
// matrix stored in the file (raw_data or float_data).
func readWeight(b []byte) (string, *weight, error) {
	var name string
	var dims []int64
	var dtype uint64
	var raw, floats []byte
	external := false
	var floatList []float32
	err := walkFields(b, func(field int, v []byte, n, wire uint64, _ []byte) error {
		switch field {
		case tensorName:
			name = string(v)
		case tensorDataType:
			dtype = n
		case tensorDims:
			if wire == 2 {
				return unpackVarints(v, func(x uint64) { dims = append(dims, int64(x)) })
			}
			dims = append(dims, int64(n))
		case tensorRawData:
			raw = v
		case tensorFloatData:
			if wire == 2 {
				floats = append(floats, v...)
			} else {
				floatList = append(floatList, math.Float32frombits(uint32(n)))
			}
		case tensorLocation:
			external = n == 1
		}
		return nil
	})
	if err != nil || dtype != dataFloat || len(dims) != 2 || external || dims[0] <= 0 || dims[1] <= 0 {
		return name, nil, err
	}
	return name, &weight{k: int(dims[0]), n: int(dims[1]), raw: raw, vals: floats, floatList: floatList, name: name}, nil
}

// quantizeColumns quantizes w (row-major K x N) with one symmetric scale a
// column: q = round(w / s), s = max |w[:, j]| / levels, q in
// [-levels, levels]. A column of zeros gets scale 1.
func quantizeColumns(w *weight, levels int) ([]int8, []float32) {
	top := make([]float32, w.n) // row by row: the matrix is row-major
	for i := range w.k {
		for j, v := range w.data[i*w.n : (i+1)*w.n] {
			top[j] = max(top[j], v, -v)
		}
	}
	scale := make([]float32, w.n)
	for j, m := range top {
		scale[j] = m / float32(levels)
		if m == 0 {
			scale[j] = 1
		}
	}
	q := make([]int8, len(w.data))
	for i := range w.k {
		row := w.data[i*w.n : (i+1)*w.n]
		for j, v := range row {
			r := math.Round(float64(v / scale[j]))
			q[i*w.n+j] = int8(min(float64(levels), max(-float64(levels), r)))
		}
	}
	return q, scale
}

// tensorBytes encodes a TensorProto with raw data.
func tensorBytes(name string, dtype uint64, dims []int64, raw []byte) []byte {
	var b []byte
	for _, d := range dims {
		b = appendVarint(b, tensorDims, uint64(d))
	}
	b = appendVarint(b, tensorDataType, dtype)
	b = appendBytes(b, tensorName, []byte(name))
	return appendBytes(b, tensorRawData, raw)
}

func decodeFloats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	if len(b)%4 != 0 {
		return nil
	}
	return out
}

func floatBytes(f []float32) []byte {
	b := make([]byte, 0, 4*len(f))
	for _, x := range f {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func int8Bytes(q []int8) []byte {
	b := make([]byte, len(q))
	for i, x := range q {
		b[i] = byte(x)
	}
	return b
}

func unpackVarints(v []byte, f func(uint64)) error {
	for len(v) > 0 {
		x, k := binary.Uvarint(v)
		if k <= 0 {
			return errors.New("bad packed varint")
		}
		f(x)
		v = v[k:]
	}
	return nil
}

func appendVarint(b []byte, field int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3)
	return binary.AppendUvarint(b, v)
}

func appendBytes(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// walkRaw calls f with each field of a message: its number, a
// length-delimited field's contents (nil for other wire types) and the
// field's bytes as encoded, key included.
func walkRaw(b []byte, f func(field int, v []byte, raw []byte)) error {
	return walkFields(b, func(field int, v []byte, _, _ uint64, raw []byte) error {
		f(field, v, raw)
		return nil
	})
}

// walkFields is walk (modelinfo.go) with the wire type and each field's
// encoded bytes (key included) beside its value.
func walkFields(b []byte, f func(field int, v []byte, n, wire uint64, raw []byte) error) error {
	for len(b) > 0 {
		start := b
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
		if err := f(field, v, n, wire, start[:len(start)-len(b)]); err != nil {
			return err
		}
	}
	return nil
}
