package onnx

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// The optimized-graph cache (Options.CacheDir). Creating a session makes
// ONNX Runtime optimize the graph (fusing layer norms, attention and
// GELU-like patterns, folding constants, prepacking), which was most of a
// one-shot hybrid search's model load: USE-lite took about 200 CPU-ms a
// session at level "all". With a cache, the first New saves the optimized
// graph in ONNX Runtime's own format (SessionOptions
// SetOptimizedModelFilePath, session.save_model_format ORT), and later
// ones map that file and create the session from it with optimizations
// off, the runtime reading the weights in place from the mapping instead
// of copying them (session.use_ort_model_bytes_directly and
// use_ort_model_bytes_for_initializers). They then need not read or hash
// model.onnx either: the cache records the model's SHA-256 (the
// embedder's identity) beside the file's device, inode, size and
// modification time, and a model file that differs in any of those is read
// and the cache rebuilt.
//
// An optimized graph at level "all" may hold kernels and layouts chosen
// for the CPU and the runtime version, so the file's name is a hash of the
// model's path, the runtime's version, GOARCH and the CPU's vendor, model
// and feature flags: any of them changing selects another file. The file
// starts with cacheMagic and a JSON header (the model's identity and
// stat, its inputs and outputs, the body's length and CRC-32C) padded to
// cacheAlign bytes; a torn or damaged file, or one the runtime refuses, is
// removed and rebuilt from model.onnx, never used. Writing it is best
// effort: a read-only or full folder costs the next process time, not
// correctness. Files are replaced by rename, never written in place, so a
// mapping in use keeps its bytes.
const cacheMagic = "cairn onnx optimized graph 2\n"

// cacheAlign is where the body starts: the runtime reads the weights in
// place, so they keep the alignment they have in the file.
const cacheAlign = 4096

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// cacheHeader is the JSON line after cacheMagic.
type cacheHeader struct {
	ModelSHA256 string                `json:"model_sha256"`
	Stat        fileStat              `json:"model_stat"`
	Inputs      []ort.InputOutputInfo `json:"inputs"`
	Outputs     []ort.InputOutputInfo `json:"outputs"`
	Quantize    string                `json:"quantize,omitempty"` // quantizeKey: Options.Quantize normalized, "-7bit" added for 7-bit weights
	BodyLen     int64                 `json:"body_len"`
	BodyCRC     uint32                `json:"body_crc32c"`
}

// fileStat is what makes a model file "the same file" for the cache.
type fileStat struct {
	Dev, Ino, Size, MtimeNS int64
}

// cpuKey names this machine's CPU for the cache key: vendor, model name
// and flags of the first processor in /proc/cpuinfo ("" elsewhere; GOARCH
// is in the key anyway).
var cpuKey = sync.OnceValue(func() string {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(string(raw), "\n\n")
	var keep []string
	for _, l := range strings.Split(first, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "vendor_id", "model name", "flags", "Features", "CPU implementer", "CPU part":
			keep = append(keep, strings.TrimSpace(k)+"="+strings.TrimSpace(v))
		}
	}
	return strings.Join(keep, "\n")
})

// cachePath is the cache file for the model file at modelPath as
// quantized by quantize (Options.Quantize, normalized): an FP32 and an
// INT8 graph of one model are two files.
func cachePath(dir, modelPath, quantize string) string {
	abs, err := filepath.Abs(modelPath)
	if err != nil {
		abs = modelPath
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", abs, ort.GetVersion(), runtime.GOARCH, cpuKey())
	if quantize != QuantizeNone { // FP32 keeps the name earlier builds gave its file
		fmt.Fprintf(h, "\x00quantize=%s", quantize)
	}
	return filepath.Join(dir, "onnx-"+hex.EncodeToString(h.Sum(nil)[:10])+".ort")
}

// errCacheDamaged says a cache file is there but cannot be used.
var errCacheDamaged = errors.New("optimized graph cache damaged")

// cached is an opened cache file: the header and the mapped body.
type cached struct {
	hdr   cacheHeader
	body  []byte
	unmap func() error
}

// openCache maps the cache file at path and checks it against the model
// file's stat and the quantization; nil (and no error) when there is no
// usable file: none, a model that changed, a damaged one (removed).
func openCache(path string, model fileStat, quantize string) *cached {
	c, err := mapCache(path)
	if err != nil {
		if errors.Is(err, errCacheDamaged) {
			os.Remove(path)
		}
		return nil
	}
	if c.hdr.Stat != model || c.hdr.Quantize != quantize {
		c.unmap()
		return nil
	}
	return c
}

func mapCache(path string) (*cached, error) {
	raw, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	fail := func(why string) (*cached, error) {
		unmap()
		return nil, fmt.Errorf("%w: %s: %s", errCacheDamaged, path, why)
	}
	if len(raw) < cacheAlign || !bytes.HasPrefix(raw, []byte(cacheMagic)) {
		return fail("no header")
	}
	line, _, ok := bytes.Cut(raw[len(cacheMagic):cacheAlign], []byte("\n"))
	var c cached
	if !ok || json.Unmarshal(line, &c.hdr) != nil {
		return fail("header unreadable")
	}
	c.body = raw[cacheAlign:]
	if int64(len(c.body)) != c.hdr.BodyLen || crc32.Checksum(c.body, castagnoli) != c.hdr.BodyCRC ||
		len(c.hdr.Outputs) == 0 || len(c.hdr.ModelSHA256) != 64 {
		return fail("length or checksum wrong")
	}
	c.unmap = unmap
	return &c, nil
}

// writeCache stores the optimized graph body at path atomically (a
// temporary file renamed over it), with the header mapCache checks.
func writeCache(path string, hdr cacheHeader, body []byte) error {
	hdr.BodyLen, hdr.BodyCRC = int64(len(body)), crc32.Checksum(body, castagnoli)
	j, err := json.Marshal(hdr)
	if err != nil {
		return fmt.Errorf("write optimized graph cache: %w", err)
	}
	head := append([]byte(cacheMagic), j...)
	head = append(head, '\n')
	if len(head) > cacheAlign {
		return fmt.Errorf("write optimized graph cache: header of %d bytes", len(head))
	}
	head = append(head, make([]byte, cacheAlign-len(head))...)
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write optimized graph cache: %w", err)
	}
	_, err = tmp.Write(head)
	if err == nil {
		_, err = tmp.Write(body)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write optimized graph cache: %w", err)
	}
	return nil
}

// openFromCache creates the sessions from a mapped cache file with graph
// optimizations off, the weights read in place. On failure the sessions
// made are destroyed, the file removed and the mapping dropped.
func (e *Embedder) openFromCache(c *cached, path string) error {
	err := e.openSessions(c.body, ort.GraphOptimizationLevelDisableAll, func(o *ort.SessionOptions) error {
		for _, kv := range [][2]string{{"session.load_model_format", "ORT"},
			{"session.use_ort_model_bytes_directly", "1"}, {"session.use_ort_model_bytes_for_initializers", "1"}} {
			if err := o.AddSessionConfigEntry(kv[0], kv[1]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		e.closeSessions()
		c.unmap()
		os.Remove(path)
		return err
	}
	e.unmap = c.unmap // after the sessions are destroyed (Close)
	return nil
}

// openAndCache creates the sessions from the model, the first of them
// saving its optimized graph, which is then stored at path.
func (e *Embedder) openAndCache(model []byte, hdr cacheHeader, path string) error {
	tmp, err := "", privateDir(filepath.Dir(path))
	if err == nil {
		tmp, err = os.MkdirTemp(filepath.Dir(path), "optimizing-*")
	}
	if err != nil { // no cache folder: open without caching
		return e.openSessions(model, ort.GraphOptimizationLevelEnableAll, nil)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "model.ort")
	first := true
	err = e.openSessions(model, ort.GraphOptimizationLevelEnableAll, func(o *ort.SessionOptions) error {
		if !first {
			return nil
		}
		first = false
		if err := o.AddSessionConfigEntry("session.save_model_format", "ORT"); err != nil {
			return err
		}
		return o.SetOptimizedModelFilePath(out)
	})
	if err != nil {
		return err
	}
	if body, err := os.ReadFile(out); err == nil && len(body) > 0 {
		writeCache(path, hdr, body) // best effort, see cacheMagic
	}
	return nil
}

// privateDir makes the cache folder as every other folder Cairn writes:
// 0700, so other users cannot read or plant optimized graphs. A folder an
// earlier build made 0755 loses its group and other bits; one this user
// cannot change (a shared cache) is used as it is.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		_ = os.Chmod(dir, perm&0o700) // best effort, see above
	}
	return nil
}
