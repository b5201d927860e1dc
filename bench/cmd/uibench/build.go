package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// buildWork makes work's notes, sessions and memories and syncs them
// lexically (opts without an embedder), unless an earlier build finished
// (the file "built" there).
func buildWork(ctx context.Context, work string, opts engine.Options) error {
	done := filepath.Join(work, "built")
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	start := time.Now()
	if _, _, err := corpus.Generate(filepath.Join(work, "notes"), corpus.Options{Notes: buildNotes, Seed: 1}); err != nil {
		return err
	}
	if err := writeSessions(filepath.Join(work, "sessions", "conversations.jsonl"), buildSessions); err != nil {
		return err
	}
	opts.Embedder = nil
	eng, err := local.Open(ctx, opts)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	for i := range buildMemories {
		req := &cairn.RememberRequest{Agent: "uibench", Kind: cairn.MemoryObservation, About: fmt.Sprintf("person %d", i%97),
			Summary:   fmt.Sprintf("Observation %d: the build of module m%d moved to runner r%d after the cache grew past %d MB.", i, i%311, i%17, 100+i%900),
			EventDate: fmt.Sprintf("2025-%02d-%02d", 1+i%12, 1+i%28)}
		if _, err := eng.Remember(ctx, req); err != nil {
			return fmt.Errorf("remember %d: %w", i, err)
		}
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		return err
	}
	fmt.Printf("built %s in %s: %d notes, %d sessions, %d memories\n", work, time.Since(start).Round(time.Second), buildNotes, buildSessions, buildMemories)
	return nil
}

// writeSessions writes n OpenAI chat conversations, one a line, their
// starts spread over 2025 and 2026.
func writeSessions(path string, n int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		conv := map[string]any{"id": fmt.Sprintf("c%06d", i), "title": fmt.Sprintf("conversation %d about module m%d", i, i%311),
			"created_at": t0.Add(time.Duration(i) * 93 * time.Minute).Format(time.RFC3339),
			"messages": []map[string]string{{"role": "user", "content": fmt.Sprintf("why does module m%d fail on runner r%d?", i%311, i%17)},
				{"role": "assistant", "content": fmt.Sprintf("The cache of m%d grew past its limit; clear it and rerun.", i%311)}}}
		if err := enc.Encode(conv); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
