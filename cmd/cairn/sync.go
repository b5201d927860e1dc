package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/cairnmemory/cairn"
)

func cmdSync(ctx context.Context, e *env, args []string) error {
	fs := e.flags("sync")
	var corpora stringList
	fs.Var(&corpora, "corpus", "corpus to sync (repeatable; default all)")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("sync", pos); err != nil {
		return err
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	bar := newProgress(e.stderr, !e.json)
	res, err := eng.Sync(ctx, &cairn.SyncOptions{Corpora: corpora, Progress: bar.update})
	bar.done()
	if res != nil {
		if perr := e.printSync(res); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}

func (e *env) printSync(res *cairn.SyncResult) error {
	if e.json {
		return e.printJSON(res)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "corpus\tscanned\tadded\tupdated\tunchanged\tremoved\tfailed\tchunks\t")
	for _, c := range res.Corpora {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", c.Name, c.Scanned, c.Added, c.Updated, c.Unchanged, c.Removed, c.Failed, c.Chunks)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range res.Corpora {
		for _, f := range c.Failures {
			fmt.Fprintf(e.stdout, "failed: %s/%s: %s\n", c.Name, f.Path, f.Reason)
		}
	}
	fmt.Fprintf(e.stdout, "done in %.3fs\n", res.Seconds)
	return nil
}
