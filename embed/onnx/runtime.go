package onnx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/cairnmemory/cairn"
)

// DefaultLibrary is the shared library loaded when Options.Library is empty;
// the dynamic loader looks it up on its usual search path.
const DefaultLibrary = "libonnxruntime.so"

const libraryHint = "set [embedder] library or CAIRN_ONNXRUNTIME_LIB to the path of libonnxruntime.so"

// The ONNX Runtime environment is process-wide: it is created once, by the
// first New that succeeds in loading the library, and never destroyed. A
// failed load is not remembered, so a later New may try another path.
var env struct {
	sync.Mutex
	lib string // absolute path (or bare name) of the loaded library; "" before
}

// initRuntime loads the ONNX Runtime library and creates the environment,
// once per process. Asking for a different library afterwards is an error:
// one process can hold only one runtime. An empty lib takes the loaded one.
func initRuntime(lib string) error {
	env.Lock()
	defer env.Unlock()
	if lib == "" && env.lib != "" {
		return nil // any runtime will do: use the loaded one
	}
	if lib == "" {
		lib = DefaultLibrary
	}
	if strings.ContainsRune(lib, os.PathSeparator) {
		abs, err := filepath.Abs(lib)
		if err != nil {
			return libraryError(lib, err)
		}
		lib = abs
		if _, err := os.Stat(lib); err != nil {
			return libraryError(lib, err)
		}
	}
	if env.lib != "" {
		if env.lib != lib {
			return cairn.Invalidf("load onnx runtime %s: the runtime from %s is already loaded in this process", lib, env.lib)
		}
		return nil
	}
	if ort.IsInitialized() { // set up by other code in this process
		env.lib = lib
		return nil
	}
	ort.SetSharedLibraryPath(lib)
	noTelemetry()
	if err := ort.InitializeEnvironment(); err != nil {
		return libraryError(lib, err)
	}
	env.lib = lib
	return nil
}

func libraryError(lib string, err error) error {
	return &cairn.Error{Op: "load onnx runtime", Path: lib,
		Err: fmt.Errorf("%w: %v", cairn.ErrUnavailable, err), Hint: libraryHint}
}

// TelemetryEnv is the variable ONNX Runtime (1.2x and later on Linux)
// reads when its environment is created: unless it is "1", the runtime
// starts Microsoft's telemetry client, which writes a device id and an
// offline event store under ~/.cache/Microsoft/DeveloperTools/.onnxruntime,
// a /tmp/mat-debug-<pid>.log a process, and queues events for upload. A
// memory tool should send nothing anywhere, and the client's start was
// also about 10 ms of a one-shot search's 50 to 65 ms runtime start here
// (bench/RESULTS.md, "The cold one-shot hybrid search").
const TelemetryEnv = "ORT_DISABLE_TELEMETRY"

// noTelemetry sets TelemetryEnv to "1" for this process before the
// runtime is loaded (the runtime reads it through getenv, which sees
// os.Setenv in a cgo program). A value the user set is overwritten: the
// runtime's telemetry is never wanted.
func noTelemetry() { _ = os.Setenv(TelemetryEnv, "1") }
