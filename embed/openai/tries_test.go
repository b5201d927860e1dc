package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// TestRetriesCounted: an endpoint that stays busy fails after 1 + Retries
// tries, and the error says how many and how long they took, still
// matching cairn.ErrBusy (ux F25: "timed out after 1m0s" after four tries
// and four minutes). One try alone adds nothing.
func TestRetriesCounted(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	e := New(srv.URL+"/v1", "m", "")
	e.Backoff = time.Millisecond
	_, err := e.Embed(context.Background(), cairn.EmbedDocument, []string{"a"})
	if !errors.Is(err, cairn.ErrBusy) || calls.Load() != 4 || !strings.Contains(err.Error(), "answered 503 (4 tries in ") {
		t.Fatalf("busy endpoint: %v after %d calls; want ErrBusy naming 4 tries", err, calls.Load())
	}
	calls.Store(0)
	e.Retries = 0
	_, err = e.Embed(context.Background(), cairn.EmbedDocument, []string{"a"})
	if !errors.Is(err, cairn.ErrBusy) || calls.Load() != 1 || strings.Contains(err.Error(), "tries") {
		t.Fatalf("no retries: %v after %d calls", err, calls.Load())
	}
}
