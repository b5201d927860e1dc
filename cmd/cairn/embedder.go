package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	embedopenai "github.com/cairnmemory/cairn/embed/openai"
)

// embedder builds the configured embedder, or nil without one. The ONNX
// provider is built by onnxEmbedder (embedder_onnx.go).
func (e *env) embedder(cfg *config.Config) (cairn.Embedder, error) {
	ec := cfg.Embedder
	if ec == nil {
		return nil, nil
	}
	switch ec.Provider {
	case "openai":
		key := ""
		if ec.APIKeyEnv != "" {
			key = strings.TrimSpace(os.Getenv(ec.APIKeyEnv))
		}
		emb := embedopenai.New(ec.BaseURL, ec.Model, key)
		emb.QueryPrefix, emb.DocumentPrefix = ec.QueryPrefix, ec.DocumentPrefix
		return emb, nil
	case "onnx":
		_, dataDir := e.paths()
		cache := filepath.Join(dataDir, "cache")
		tightenDir(cache)
		cacheDir := filepath.Join(cache, "onnx")
		if ec.Quantize == quantizeAuto { // embedder_auto.go
			c, err := e.chooseQuantize(context.Background(), cfg, ec, cacheDir)
			if err != nil {
				return nil, err
			}
			// Sync says which when the CPU chose (a new index, or an even
			// split): later syncs follow the vectors and say nothing.
			if e.bulkEmbed && c.ByCPU {
				e.logf("cairn: embedder: %s", c)
			}
			resolved := *ec
			resolved.Quantize = c.Quantize
			ec = &resolved
		}
		return onnxEmbedder(ec, e.embedWorkers, cacheDir)
	}
	return nil, cairn.Invalidf("[embedder] provider %q: allowed onnx, openai, none", ec.Provider)
}

// tightenDir takes the group and other bits off a folder an earlier build
// created 0755 ($CAIRN_HOME/cache, beside the 0700 agents folders); the
// ONNX embedder makes cache/onnx inside it 0700 and tightens that one
// itself. A missing folder is left to be made, and a failure to change it
// (not the user's) is ignored: the cache works either way.
func tightenDir(dir string) {
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(dir, fi.Mode().Perm()&0o700)
	}
}

// lazyEmbedder builds an embedder on first use, so a one-shot command that
// never embeds (a lexical search, get, memories) does not load the model:
// an ONNX session of USE-lite takes about 0.4 s to create here. A model
// that cannot be loaded then fails the first search that needs it, with
// the same error.
type lazyEmbedder struct {
	once  sync.Once
	build func() (cairn.Embedder, error)
	logf  func(format string, args ...any) // hears a failed build
	emb   cairn.Embedder
	err   error
}

func (l *lazyEmbedder) get() (cairn.Embedder, error) {
	l.once.Do(func() {
		if l.emb, l.err = l.build(); l.err != nil {
			l.emb = nil // a typed nil from a failed constructor is no embedder
			if l.logf != nil {
				l.logf("cairn: embedder: %v", l.err)
			}
		}
	})
	return l.emb, l.err
}

// Identity is the built embedder's; empty when it could not be built (the
// vector lane then finds no vectors for it, and stderr has said why).
func (l *lazyEmbedder) Identity() cairn.EmbedderIdentity {
	if emb, err := l.get(); err == nil {
		return emb.Identity()
	}
	return cairn.EmbedderIdentity{}
}

func (l *lazyEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	emb, err := l.get()
	if err != nil {
		return nil, err
	}
	return emb.Embed(ctx, kind, texts)
}

// Close closes the embedder if it was built.
func (l *lazyEmbedder) Close() error {
	l.once.Do(func() { l.err = errors.New("embedder closed") }) // never build after Close
	if c, ok := l.emb.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}
