package main

import (
	"errors"
	"io"
	"log/slog"
	"os"

	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/skills"
)

// skillWhisperer builds the Skill Whisperer of a configuration
// ([skillWhisperer] and the skills corpus), nil when it is not enabled.
// The judge is [llm.judge] (else [llm.fast]); without one the whisperer
// runs in local mode, and the key's state is read on every turn. The
// embedder is [embedder]. watch: a long-lived server's whisperer, whose
// skills index file events invalidate (skills.Watch); a one-turn process
// needs none. The caller calls close when done with the whisperer.
func (e *env) skillWhisperer(cfg *config.Config, watch bool) (w *skills.Whisperer, close func(), err error) {
	corpus, ok := cfg.SkillsCorpus()
	if !cfg.SkillWhisperer.Enabled || !ok {
		return nil, func() {}, nil
	}
	emb, err := e.embedder(cfg)
	if err != nil {
		return nil, nil, err
	}
	close = func() {
		if c, ok := emb.(io.Closer); ok {
			c.Close()
		}
	}
	var asker skills.Asker
	j, err := judge.FromConfig(cfg.Judge, os.Getenv)
	switch {
	case err == nil:
		asker = j
	case !errors.Is(err, judge.ErrNotConfigured):
		close()
		return nil, nil, err
	}
	idx := skills.NewIndex(corpus.Paths, emb)
	closeEmb := close
	close = func() { idx.Close(); closeEmb() }
	if watch {
		watcher, err := skills.Watch(idx, nil)
		if err != nil {
			close()
			return nil, nil, err
		}
		closeIdx := close
		close = func() { watcher.Close(); closeIdx() }
		idx.Warm() // a server's first turn finds the skills embedded
	}
	w = skills.NewWhisperer(idx, asker)
	w.HistoryMessages = cfg.SkillWhisperer.HistoryMessages
	w.MinScore = cfg.SkillWhisperer.MinScore
	w.CooldownTurns = cfg.SkillWhisperer.CooldownTurns
	w.Logger = slog.New(slog.NewJSONHandler(e.stderr, nil)) // as the whisper Service logs (whisper.go)
	judgeCfg := cfg.Judge
	w.Credential = func() string { return judge.Credential(judgeCfg, os.Getenv) }
	return w, close, nil
}
