package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// earlyFake embeds every text as vec, under id.
type earlyFake struct {
	id     cairn.EmbedderIdentity
	vec    []float32
	closed *bool
}

func (f earlyFake) Identity() cairn.EmbedderIdentity { return f.id }
func (f earlyFake) Embed(_ context.Context, _ string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = f.vec
	}
	return out, nil
}
func (f earlyFake) Close() error { *f.closed = true; return nil }

// The early embedder answers Identity before its build returns, embeds
// with what the build made, and refuses to embed when the build failed or
// made another identity than the one it announced.
func TestEarlyEmbedder(t *testing.T) {
	ctx := context.Background()
	id := cairn.EmbedderIdentity{Provider: "onnx", Model: "m@1", Dimension: 2}
	release := make(chan struct{})
	var closed bool
	e := startEarly(id, func() (cairn.Embedder, error) {
		<-release
		return earlyFake{id: id, vec: []float32{1, 0}, closed: &closed}, nil
	})
	if got := e.Identity(); got != id { // the build is still waiting
		t.Fatalf("Identity = %+v, want %+v", got, id)
	}
	close(release)
	v, err := e.Embed(ctx, cairn.EmbedQuery, []string{"q"})
	if err != nil || len(v) != 1 || v[0][0] != 1 {
		t.Fatalf("Embed = %v, %v", v, err)
	}
	if err := e.Close(); err != nil || !closed {
		t.Fatalf("Close = %v, closed %v", err, closed)
	}

	other := cairn.EmbedderIdentity{Provider: "onnx", Model: "m@2", Dimension: 2}
	var closed2 bool
	e = startEarly(id, func() (cairn.Embedder, error) {
		return earlyFake{id: other, vec: []float32{0, 1}, closed: &closed2}, nil
	})
	if _, err := e.Embed(ctx, cairn.EmbedQuery, []string{"q"}); !errors.Is(err, cairn.ErrUnavailable) || !strings.Contains(err.Error(), "m@2") {
		t.Errorf("Embed with another identity built: %v, want ErrUnavailable naming m@2", err)
	}
	e.Close()
	if !closed2 {
		t.Errorf("the embedder built with another identity was not closed")
	}

	boom := errors.New("no runtime")
	e = startEarly(id, func() (cairn.Embedder, error) { return nil, boom })
	if _, err := e.Embed(ctx, cairn.EmbedQuery, []string{"q"}); !errors.Is(err, boom) {
		t.Errorf("Embed after a failed build: %v, want %v", err, boom)
	}
	if err := e.Close(); err != nil {
		t.Errorf("Close after a failed build: %v", err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	hold := make(chan struct{})
	e = startEarly(id, func() (cairn.Embedder, error) { <-hold; return nil, boom })
	if _, err := e.Embed(cctx, cairn.EmbedQuery, []string{"q"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with a cancelled context: %v", err)
	}
	close(hold)
	e.Close()
}
