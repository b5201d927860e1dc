package onnx

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/cpu"
)

// How many bits the int8 weights use. ONNX Runtime's DynamicQuantizeMatMul
// multiplies uint8 activations by int8 weights. With VNNI (AVX-512 VNNI or
// AVX-VNNI) each product is added straight into 32 bits; x86 CPUs without
// it use VPMADDUBSW, which adds two neighbouring u8 x s8 products into a
// saturating int16: 255 x 127 twice is 64,770, past 32,767, so full-range
// weights clip there. On an AMD EPYC with AVX2 only, 8-bit weights left
// USE-lite's vectors at cosine 0.965 to FP32 on average (0.89 at the
// worst) against 0.9994 on a VNNI Xeon; weights in [-63, 63] (7 bits,
// what ONNX Runtime's own quantizer calls reduce_range) keep every pair
// sum under 32,767 (bench/RESULTS.md, "INT8 weights, continued").
// arm64's kernels accumulate in 32 bits and keep 8.

// int8Top is the largest weight magnitude for Options.Int8Bits: 127 for 8
// bits, 63 for 7; 0 picks by the CPU (saturatingInt8).
func int8Top(bits int) (int, error) {
	switch bits {
	case 0:
		if saturatingInt8() {
			return 63, nil
		}
		return 127, nil
	case 8:
		return 127, nil
	case 7:
		return 63, nil
	}
	return 0, fmt.Errorf("int8 bits %d; allowed: 0 (by the CPU), 7, 8", bits)
}

// saturatingInt8 reports whether this CPU's u8 x s8 kernel adds pairs of
// products in 16 bits: amd64 without VNNI.
func saturatingInt8() bool {
	return runtime.GOARCH == "amd64" && !cpu.X86.HasAVX512VNNI && !cpu.X86.HasAVXVNNI
}

// Int8Fast reports whether this CPU's int8 kernel adds each u8 x s8
// product straight into 32 bits (amd64 with AVX-512 VNNI or AVX-VNNI),
// where QuantizeInt8 takes about half FP32's CPU a chunk with vectors
// within cosine 0.998 of FP32's; on amd64 without VNNI it saved 0 to 20%
// with 7-bit weights (bench/RESULTS.md, "INT8 weights" and its
// continuations). Other architectures report false: unmeasured. It is the
// CPU's half of choosing a quantization for an index with no vectors yet;
// an index's existing vectors keep theirs (the identity differs).
func Int8Fast() bool {
	return runtime.GOARCH == "amd64" && !saturatingInt8()
}

// quantizeKey names the quantization for the optimized-graph cache (its
// file name and header): "" (FP32), "int8" (8-bit weights) or "int8-7bit".
func quantizeKey(q string, top int) string {
	if q == QuantizeInt8 && top == 63 {
		return QuantizeInt8 + "-7bit"
	}
	return q
}
