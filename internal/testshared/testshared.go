// Package testshared finds the shared folder the heavier tests need (the
// sentence encoder in models/use-lite, ONNX Runtime in lib/onnxruntime, the
// LoCoMo development split in data/locomo) and reads the CAIRN_REQUIRE_*
// switches that turn a missing dependency from a skip into a failure.
//
// The folder is $CAIRN_SHARED, else a directory named "shared" beside the
// working directory or one of its parents (the layout of this project's
// checkouts: the repository and shared/ side by side). Without it a test
// skips; with CAIRN_REQUIRE_SHARED=1, as .ci/run sets when the folder is
// there, it fails instead, so CI never counts a skipped model test as a pass.
package testshared

import (
	"os"
	"path/filepath"
	"testing"
)

// Paths inside the shared folder.
const (
	ModelDir  = "models/use-lite"
	Tokenizer = "models/use-lite/tokenizer.json"
	Model     = "models/use-lite/model.onnx"
	Library   = "lib/onnxruntime/libonnxruntime.so.1"
	LocomoDev = "data/locomo/locomo-dev.json"
)

// Required reports whether CAIRN_REQUIRE_<name>=1 is set ("SHARED",
// "E2E"): a dependency the test would skip without must be there.
func Required(name string) bool { return os.Getenv("CAIRN_REQUIRE_"+name) == "1" }

// SkipOrFail skips t with why, or fails it when CAIRN_REQUIRE_<name>=1.
func SkipOrFail(t testing.TB, name, why string) {
	t.Helper()
	if Required(name) {
		t.Fatalf("%s; CAIRN_REQUIRE_%s=1 requires it", why, name)
	}
	t.Skip(why)
}

// Dir returns the shared folder holding every probe (paths relative to it;
// none: the tokenizer), skipping t when there is none (see the package
// doc). A $CAIRN_SHARED that lacks a probe fails t: it was set on purpose.
func Dir(t testing.TB, probes ...string) string {
	t.Helper()
	if len(probes) == 0 {
		probes = []string{Tokenizer}
	}
	if d := os.Getenv("CAIRN_SHARED"); d != "" {
		if p, ok := missing(d, probes); !ok {
			t.Fatalf("CAIRN_SHARED=%s has no %s", d, p)
		}
		return d
	}
	if d, ok := Find(probes...); ok {
		return d
	}
	SkipOrFail(t, "SHARED", "shared folder with "+probes[0]+" not found (set CAIRN_SHARED)")
	return ""
}

// Find looks for the shared folder without a test: $CAIRN_SHARED, else a
// "shared" beside the working directory or one of its parents, holding every
// probe. Benchmarks and tools use it.
func Find(probes ...string) (string, bool) {
	if d := os.Getenv("CAIRN_SHARED"); d != "" {
		_, ok := missing(d, probes)
		return d, ok
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "shared")
		if _, ok := missing(cand, probes); ok && isDir(cand) {
			return cand, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

func missing(dir string, probes []string) (string, bool) {
	for _, p := range probes {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			return p, false
		}
	}
	return "", true
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
