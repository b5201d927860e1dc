package skills

import (
	"context"
	"hash/fnv"
	"strings"
	"sync"

	"github.com/cairnmemory/cairn"
)

// wordEmbedder is a deterministic embedder for tests: each lower-cased
// word adds one to a hashed dimension, so texts sharing words are close.
type wordEmbedder struct {
	mu    sync.Mutex
	calls []embedCall
}

type embedCall struct {
	kind  string
	texts []string
}

func (e *wordEmbedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "test", Model: "words", Dimension: 1024}
}

func (e *wordEmbedder) Embed(_ context.Context, kind string, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.calls = append(e.calls, embedCall{kind, append([]string(nil), texts...)})
	e.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 1024)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%1024]++
		}
		out[i] = v
	}
	return out, nil
}

func (e *wordEmbedder) documentCalls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, c := range e.calls {
		if c.kind == cairn.EmbedDocument {
			n++
		}
	}
	return n
}
