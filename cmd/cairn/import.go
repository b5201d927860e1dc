package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/port"
)

// cmdImport reads an export (FILE, - for stdin) into the agent's storage
// in one transaction: refused when the agent holds anything, unless
// --replace deletes it first. Broken lines and rows the store refuses are
// counted and listed with their line numbers; the rest is imported.
func cmdImport(ctx context.Context, e *env, args []string) error {
	fs := e.flags("import")
	replace := fs.Bool("replace", false, "delete what the agent's storage holds first (in the same transaction)")
	anyModel := fs.Bool("any-model", false, "import vectors made by another model than the configured [embedder] (sync then embeds again)")
	store := fs.String("store", "", storeFlagUsage)
	fs.BoolVar(&e.json, "json", false, "print the result as JSON; no progress on stderr")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("import takes one argument, the file to read (- for stdin), got %d", len(pos))
	}
	var in io.Reader = os.Stdin
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return fmt.Errorf("open export: %w", err)
		}
		defer f.Close()
		in = f
	}
	st, where, err := e.openPortable(ctx, *store)
	if err != nil {
		return err
	}
	defer st.Close()
	opts := &port.ImportOptions{Replace: *replace, AnyModel: *anyModel, Progress: e.portProgress("importing into " + where)}
	if opts.Embedder, err = e.embedderKey(); err != nil {
		e.logf("cairn: warning: import: the configured [embedder] cannot be built (%v): the export's models are not checked against it", err)
	}
	res, err := port.Import(ctx, st.(cairn.Porter), in, opts)
	if err != nil {
		return err
	}
	return e.reportImport(res, where)
}

// embedderKey is the identity of the configured embedder ("" for none):
// what import checks the export's vectors against. Building it loads no
// model file for OpenAI; for ONNX it reads the model's files.
func (e *env) embedderKey() (string, error) {
	cfg, err := e.loadConfig()
	if err != nil || cfg.Embedder == nil {
		return "", err
	}
	e.embedWorkers = 1
	emb, err := e.embedder(cfg)
	if err != nil || emb == nil {
		return "", err
	}
	if c, ok := emb.(interface{ Close() error }); ok {
		defer c.Close()
	}
	return emb.Identity().Key(), nil
}

func (e *env) reportImport(res *port.ImportResult, where string) error {
	if e.json {
		return e.printJSON(res)
	}
	var rows int64
	for _, n := range res.Counts {
		rows += n
	}
	fmt.Fprintf(e.stdout, "imported %s rows into %s (%s)\n", thousands(int(rows)-res.Rejected), where, portCounts(res.Counts))
	if res.Rejected > 0 {
		fmt.Fprintf(e.stdout, "left out %d lines:\n", res.Rejected)
		for i, p := range res.Problems {
			if i == 20 {
				fmt.Fprintf(e.stdout, "  ... (--json lists %d)\n", len(res.Problems))
				break
			}
			fmt.Fprintf(e.stdout, "  line %d: %s\n", p.Line, p.Reason)
		}
	}
	return nil
}
