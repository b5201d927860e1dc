package onnx

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

// TestRuntimeTelemetryOff loads the runtime in child processes with HOME
// and XDG_CACHE_HOME in a temporary folder: loaded as initRuntime loads
// it, the runtime writes nothing there; loaded directly (no
// ORT_DISABLE_TELEMETRY), it writes its telemetry client's device id and
// event store under .cache/Microsoft, which shows the check can see it.
func TestRuntimeTelemetryOff(t *testing.T) {
	if mode := os.Getenv("CAIRN_ONNX_TELEMETRY_CHILD"); mode != "" {
		telemetryChild(t, mode)
		return
	}
	lib := libraryPath(sharedDir(t))
	run := func(mode string) []string {
		home := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run", "^TestRuntimeTelemetryOff$")
		env := []string{"CAIRN_ONNX_TELEMETRY_CHILD=" + mode, "CAIRN_ONNX_TELEMETRY_LIB=" + lib,
			"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache")}
		for _, kv := range os.Environ() {
			if len(kv) > 22 && kv[:22] == "ORT_DISABLE_TELEMETRY=" {
				continue
			}
			env = append(env, kv)
		}
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child %s: %v\n%s", mode, err, out)
		}
		var files []string
		filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
			if err == nil && p != home {
				files = append(files, p)
			}
			return nil
		})
		return files
	}
	if raw := run("raw"); len(raw) == 0 {
		t.Skip("this runtime writes no telemetry files even when not told otherwise: nothing to check")
	}
	if files := run("cairn"); len(files) != 0 {
		t.Fatalf("the runtime wrote %q with telemetry off", files)
	}
}

func telemetryChild(t *testing.T, mode string) {
	lib := os.Getenv("CAIRN_ONNX_TELEMETRY_LIB")
	if mode == "raw" {
		ort.SetSharedLibraryPath(lib)
		if err := ort.InitializeEnvironment(); err != nil {
			t.Fatal(err)
		}
	} else if err := initRuntime(lib); err != nil {
		t.Fatal(err)
	}
	if err := ort.DestroyEnvironment(); err != nil {
		t.Fatal(err)
	}
}
