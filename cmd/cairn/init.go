package main

import (
	"context"
	"fmt"
	"os"

	"github.com/cairnmemory/cairn/config"
)

func cmdInit(ctx context.Context, e *env, args []string) error {
	fs := e.flags("init")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("init", pos); err != nil {
		return err
	}
	path, dataDir := e.paths()
	created, err := config.Init(path)
	if err != nil {
		return err
	}
	dir, err := config.AgentDir(dataDir, e.agent)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	if created {
		fmt.Fprintf(e.stdout, "wrote %s\n", path)
	} else {
		fmt.Fprintf(e.stdout, "kept existing %s\n", path)
	}
	fmt.Fprintf(e.stdout, "data in %s\nnext: cairn corpus add NAME PATH, then cairn sync\n", dir)
	return nil
}
