package main

import (
	"context"
	"io"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/port"
)

// cmdMigrate is export piped into import: the agent's storage (the
// config's, or --from) copied into --to in one transaction there, through
// the same format, without a file in between.
func cmdMigrate(ctx context.Context, e *env, args []string) error {
	fs := e.flags("migrate")
	to := fs.String("to", "", "the store to copy into: a postgres:// URL, or a data directory for SQLite files (required)")
	from := fs.String("from", "", "the store to copy from instead of [store] of the config (as --to)")
	replace := fs.Bool("replace", false, "delete what the agent holds in --to first (in the same transaction)")
	fs.BoolVar(&e.json, "json", false, "print the result as JSON; no progress on stderr")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("migrate", pos); err != nil {
		return err
	}
	if *to == "" {
		return usagef("migrate needs --to, the store to copy into (postgres://... or a directory)")
	}
	src, fromWhere, err := e.openPortable(ctx, *from, true)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, toWhere, err := e.openPortable(ctx, *to, false)
	if err != nil {
		return err
	}
	defer dst.Close()
	if fromWhere == toWhere {
		return usagef("migrate: --to names the store it copies from (%s)", fromWhere)
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var exportErr error
	wg.Add(1)
	go func() { // owned: awaited below before anything returns
		defer wg.Done()
		_, exportErr = port.Export(ctx, src.(cairn.Porter), pw, &port.ExportOptions{Agent: e.agent})
		pw.CloseWithError(exportErr)
	}()
	res, err := port.Import(ctx, dst.(cairn.Porter), pr, &port.ImportOptions{Replace: *replace, AnyModel: true,
		Progress: e.portProgress("copying " + fromWhere + " to " + toWhere)})
	pr.CloseWithError(io.ErrClosedPipe) // an import that stopped early ends the export
	cancel()
	wg.Wait()
	if err != nil {
		return err
	}
	if exportErr != nil {
		return exportErr
	}
	return e.reportImport(res, toWhere)
}
