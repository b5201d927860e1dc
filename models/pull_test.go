package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairnmemory/cairn"
)

// hub is a local Hugging Face-style hub serving one model; it honours
// Range requests and can cut a download short once.
type hub struct {
	files   map[string][]byte
	cutOnce atomic.Bool
	ranges  atomic.Int32
	badHash bool
}

func (h *hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/api/models/acme/mini" && r.URL.Query().Get("blobs") == "true":
		var sib []string
		for name, data := range h.files {
			sum := sha256.Sum256(data)
			if h.badHash {
				sum[0] ^= 1
			}
			sib = append(sib, fmt.Sprintf(`{"rfilename":%q,"size":%d,"lfs":{"sha256":%q,"size":%d}}`, name, len(data), hex.EncodeToString(sum[:]), len(data)))
		}
		sib = append(sib, `{"rfilename":"README.md","size":5}`)
		fmt.Fprintf(w, `{"id":"acme/mini","siblings":[%s]}`, strings.Join(sib, ","))
	case strings.HasPrefix(r.URL.Path, "/acme/mini/resolve/main/"):
		data, ok := h.files[strings.TrimPrefix(r.URL.Path, "/acme/mini/resolve/main/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		start := 0
		if rg := r.Header.Get("Range"); rg != "" {
			h.ranges.Add(1)
			start, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(data)-1, len(data)))
			w.WriteHeader(http.StatusPartialContent)
		}
		body := data[start:]
		if len(body) > 100 && h.cutOnce.CompareAndSwap(true, false) {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Write(body[:100]) // the connection drops mid-file
			return
		}
		w.Write(body)
	default:
		http.NotFound(w, r)
	}
}

func newHub() *hub {
	model := make([]byte, 5000)
	for i := range model {
		model[i] = byte(i * 7)
	}
	return &hub{files: map[string][]byte{"onnx/model.onnx": model, "tokenizer.json": []byte(`{"model":{"type":"WordLevel"}}`)}}
}

func TestPullResumesAndVerifies(t *testing.T) {
	h := newHub()
	h.cutOnce.Store(true)
	srv := httptest.NewServer(h)
	defer srv.Close()
	p := &Puller{Hub: srv.URL, Dir: t.TempDir()}
	var last int64
	p.Progress = func(file string, done, total int64) { last = done }
	if _, err := p.Pull(context.Background(), "acme/mini"); err == nil {
		t.Fatal("a cut download reported success")
	}
	dir, err := p.Pull(context.Background(), "acme/mini")
	if err != nil {
		t.Fatalf("resumed pull: %v", err)
	}
	if h.ranges.Load() == 0 {
		t.Error("the second pull did not resume with a Range request")
	}
	got, _ := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if string(got) != string(h.files["onnx/model.onnx"]) || last == 0 {
		t.Errorf("model.onnx: %d bytes, want %d; progress %d", len(got), len(h.files["onnx/model.onnx"]), last)
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
		t.Error("an unwanted file was downloaded")
	}
	names, err := List(p.Dir)
	if err != nil || len(names) != 1 || names[0] != "acme/mini" {
		t.Errorf("List = %v, %v", names, err)
	}
}

func TestPullErrors(t *testing.T) {
	h := newHub()
	h.badHash = true
	srv := httptest.NewServer(h)
	p := &Puller{Hub: srv.URL, Dir: t.TempDir()}
	if _, err := p.Pull(context.Background(), "acme/mini"); !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("bad checksum: %v", err)
	}
	if _, err := p.Pull(context.Background(), "acme/unknown"); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("unknown model: %v", err)
	}
	for _, bad := range []string{"mini", "../x", "a/b/c", "a/.."} {
		if _, err := p.Pull(context.Background(), bad); !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("name %q: %v", bad, err)
		}
	}
	url := srv.URL
	srv.Close()
	p.Hub = url
	_, err := p.Pull(context.Background(), "acme/mini")
	if !errors.Is(err, cairn.ErrUnavailable) || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("offline: %v", err)
	}
}
