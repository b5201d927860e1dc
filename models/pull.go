// Package models downloads embedding models from a Hugging Face-style hub
// into a local cache, on request only: resumable, verified by SHA-256,
// with progress. Offline it fails at once and says how to install a model
// by hand.
//
// Hub protocol (the subset Hugging Face serves):
//
//	GET {hub}/api/models/{name}?blobs=true   → {"siblings":[{"rfilename","size","lfs":{"sha256","size"}}]}
//	GET {hub}/{name}/resolve/main/{file}     → the file (Range requests resume)
package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
)

// DefaultHub is Hugging Face.
const DefaultHub = "https://huggingface.co"

// Wanted are the files a model directory needs (others are skipped).
var Wanted = []string{"model.onnx", "tokenizer.json", "cairn-model.json", "config.json"}

// Puller downloads models into Dir/<name>.
type Puller struct {
	Hub      string // default DefaultHub
	Dir      string // the cache directory
	HTTP     *http.Client
	Progress func(file string, done, total int64)
}

type sibling struct {
	Name string `json:"rfilename"`
	Size int64  `json:"size"`
	LFS  *struct {
		SHA256 string `json:"sha256"`
		Size   int64  `json:"size"`
	} `json:"lfs"`
}

// Pull fetches the wanted files of model name (e.g. "sentence-transformers/all-MiniLM-L6-v2";
// ONNX exports may keep model.onnx under onnx/) and returns the model directory.
func (p *Puller) Pull(ctx context.Context, name string) (string, error) {
	if !validName(name) {
		return "", cairn.Invalidf("model name %q: use owner/model with letters, digits, '.', '_' or '-'", name)
	}
	files, err := p.list(ctx, name)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(p.Dir, filepath.FromSlash(name))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create model folder: %w", err)
	}
	got := 0
	for _, f := range files {
		base := filepath.Base(f.Name)
		if !slices.Contains(Wanted, base) || (base == "model.onnx" && f.Name != "model.onnx" && f.Name != "onnx/model.onnx") {
			continue
		}
		if err := p.fetch(ctx, name, f, filepath.Join(dir, base)); err != nil {
			return "", err
		}
		got++
	}
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		return "", &cairn.Error{Op: "pull model", Path: name, Err: fmt.Errorf("%w: the hub lists no model.onnx", cairn.ErrInvalid),
			Hint: "pick a model with an ONNX export (model.onnx at the top or under onnx/)"}
	}
	return dir, nil
}

func validName(n string) bool {
	parts := strings.Split(n, "/")
	if len(parts) != 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
			return false
		}
	}
	return true
}

func (p *Puller) hub() string {
	if p.Hub == "" {
		return DefaultHub
	}
	return strings.TrimRight(p.Hub, "/")
}

func (p *Puller) client() *http.Client {
	if p.HTTP != nil {
		return p.HTTP
	}
	return http.DefaultClient
}

// offline turns a network failure into a message saying what to do.
func (p *Puller) offline(name string, err error) error {
	var ne net.Error
	var ue *url.Error
	if errors.As(err, &ne) || errors.As(err, &ue) {
		return &cairn.Error{Op: "pull model", Path: name, Err: fmt.Errorf("%w: cannot reach %s: %v", cairn.ErrUnavailable, p.hub(), err),
			Hint: fmt.Sprintf("offline: copy model.onnx and tokenizer.json into %s by hand, or set [embedder] model to a folder holding them",
				filepath.Join(p.Dir, filepath.FromSlash(name)))}
	}
	return err
}

func (p *Puller) list(ctx context.Context, name string) ([]sibling, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.hub()+"/api/models/"+name+"?blobs=true", nil)
	if err != nil {
		return nil, err
	}
	res, err := p.client().Do(req)
	if err != nil {
		return nil, p.offline(name, err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNotFound {
		return nil, cairn.Invalidf("model %s: the hub %s does not know it", name, p.hub())
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: list model %s: hub answered %d", cairn.ErrUnavailable, name, res.StatusCode)
	}
	var info struct {
		Siblings []sibling `json:"siblings"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 16<<20)).Decode(&info); err != nil {
		return nil, fmt.Errorf("%w: list model %s: %v", cairn.ErrInvalid, name, err)
	}
	return info.Siblings, nil
}

// fetch downloads one file to dst through dst.part, resuming a partial
// download, and checks its SHA-256 when the hub gives one.
func (p *Puller) fetch(ctx context.Context, name string, f sibling, dst string) error {
	want, size := "", f.Size
	if f.LFS != nil {
		want, size = f.LFS.SHA256, f.LFS.Size
	}
	if want != "" && fileSHA256(dst) == want {
		return nil // already here and intact
	}
	part := dst + ".part"
	var have int64
	if fi, err := os.Stat(part); err == nil {
		have = fi.Size()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.hub()+"/"+name+"/resolve/main/"+f.Name, nil)
	if err != nil {
		return err
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	res, err := p.client().Do(req)
	if err != nil {
		return p.offline(name, err)
	}
	defer res.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY
	switch res.StatusCode {
	case http.StatusPartialContent:
		flags |= os.O_APPEND
	case http.StatusOK:
		flags |= os.O_TRUNC
		have = 0
	default:
		return fmt.Errorf("%w: download %s: hub answered %d", cairn.ErrUnavailable, f.Name, res.StatusCode)
	}
	out, err := os.OpenFile(part, flags, 0o600)
	if err != nil {
		return fmt.Errorf("download %s: %w", f.Name, err)
	}
	w := &progressWriter{w: out, done: have, total: size, file: f.Name, fn: p.Progress}
	_, copyErr := io.Copy(w, res.Body)
	if err := errors.Join(copyErr, out.Sync(), out.Close()); err != nil {
		return fmt.Errorf("download %s (run pull again to resume): %w", f.Name, err)
	}
	if want != "" {
		if got := fileSHA256(part); got != want {
			os.Remove(part)
			return fmt.Errorf("%w: download %s: sha256 %s, the hub says %s; removed, pull again", cairn.ErrInvalid, f.Name, got, want)
		}
	}
	return os.Rename(part, dst)
}

func fileSHA256(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

type progressWriter struct {
	w           io.Writer
	done, total int64
	file        string
	fn          func(string, int64, int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	if p.fn != nil {
		p.fn(p.file, p.done, p.total)
	}
	return n, err
}

// List returns the model directories in the cache (owner/model names).
func List(dir string) ([]string, error) {
	var out []string
	owners, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	for _, o := range owners {
		if !o.IsDir() {
			continue
		}
		ms, _ := os.ReadDir(filepath.Join(dir, o.Name()))
		for _, m := range ms {
			if _, err := os.Stat(filepath.Join(dir, o.Name(), m.Name(), "model.onnx")); err == nil {
				out = append(out, o.Name()+"/"+m.Name())
			}
		}
	}
	return out, nil
}
