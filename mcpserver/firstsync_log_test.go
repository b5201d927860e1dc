package mcpserver

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// The first sync's log line says what it did (documents, chunks) and names
// an error only when there is one: a server logged `err=<nil>` at every
// start before.
func TestFirstSyncLogLine(t *testing.T) {
	for _, fail := range []bool{false, true} {
		notes, data := t.TempDir(), t.TempDir()
		write(t, filepath.Join(notes, "a.md"), "# A\n\nThe heron nests by the weir.\n")
		write(t, filepath.Join(notes, "b.md"), "# B\n\nThe weir floods in spring.\n")
		ctx := context.Background()
		emb := &gateEmbedder{open: make(chan struct{})}
		if !fail {
			close(emb.open)
		}
		eng, err := local.Open(ctx, engine.Options{Dir: data, Embedder: emb,
			Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}}})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		a := NewAgent("default", eng)
		if err := a.StartBackground(BackgroundOptions{FirstSync: true, Logger: slog.New(slog.NewTextHandler(&buf, nil))}); err != nil {
			t.Fatal(err)
		}
		if fail {
			a.waitFirstSync(ctx) // embedding waits on the gate; Close cancels it
		} else {
			eventually(t, "the first sync completes", func() bool {
				fs := a.first.snapshot()
				return fs != nil && fs.Status == firstCompleted
			})
		}
		if err := a.Close(ctx); err != nil { // awaits the first sync's goroutine
			t.Fatal(err)
		}
		if err := eng.Close(ctx); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		want := []string{`level=INFO msg="first sync done" agent=default documents=2 new_or_changed=2 chunks=2 took=`}
		if fail {
			want = []string{`level=WARN msg="first sync failed" agent=default documents=2`, "err=", "canceled"}
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("fail=%v: log %q lacks %q", fail, got, w)
			}
		}
		if !fail && strings.Contains(got, "err=") {
			t.Errorf("log %q names an error after a sync that succeeded", got)
		}
	}
}
