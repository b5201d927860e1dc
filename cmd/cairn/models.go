package main

import (
	"context"
	"fmt"
	"os"

	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/models"
)

func cmdModels(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "pull" && args[0] != "list" {
		return usagef("models needs a subcommand: pull NAME or list")
	}
	fs := e.flags("models " + args[0])
	hub := fs.String("hub", models.DefaultHub, "base URL of a Hugging Face-style hub")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	dir := config.ModelsDir(os.Getenv, home)
	if args[0] == "list" {
		if err := noPositional("models list", pos); err != nil {
			return err
		}
		names, err := models.List(dir)
		if err != nil {
			return err
		}
		if e.json {
			if names == nil {
				names = []string{}
			}
			return e.printJSON(map[string]any{"dir": dir, "models": names})
		}
		if len(names) == 0 {
			fmt.Fprintf(e.stdout, "no models in %s; fetch one with: cairn models pull OWNER/NAME\n", dir)
		}
		for _, n := range names {
			fmt.Fprintln(e.stdout, n)
		}
		return nil
	}
	if len(pos) != 1 {
		return usagef("models pull needs one model name, such as sentence-transformers/all-MiniLM-L6-v2")
	}
	bar := newProgress(e.stderr, !e.json)
	bar.label = downloadLabel
	p := &models.Puller{Hub: *hub, Dir: dir, Progress: func(file string, done, total int64) {
		if total > 0 {
			bar.update(progressEvent(file, done, total))
		}
	}}
	path, err := p.Pull(ctx, pos[0])
	bar.done()
	if err != nil && ctx.Err() != nil {
		return bar.pullInterrupted(pos[0])
	}
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(map[string]string{"model": pos[0], "dir": path})
	}
	fmt.Fprintf(e.stdout, "pulled %s into %s\nuse it with:\n[embedder]\nprovider = \"onnx\"\nmodel = %q\n", pos[0], path, path)
	return nil
}

// pullInterrupted says what an interrupted pull kept: the partial file
// stays (name.part) and the next pull resumes it with a Range request.
func (p *progress) pullInterrupted(model string) error {
	ev := p.last
	if ev.Total == 0 {
		return fmt.Errorf("interrupted before any file was downloaded; run cairn models pull %s to start again", model)
	}
	return fmt.Errorf("interrupted: %s of %s KiB of %s downloaded and kept; run cairn models pull %s to resume",
		thousands(ev.Done), thousands(ev.Total), ev.Corpus, model)
}
