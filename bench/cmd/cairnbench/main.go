// Command cairnbench measures Cairn's indexing and search on generated
// Markdown corpora of several sizes. Each size runs in a fresh child process
// (the same binary with a hidden -child flag) so peak RSS is per size.
//
//	go run -tags sqlite_fts5 ./bench/cmd/cairnbench -sizes 1000,10000
//
// See bench/README.md for what each number means.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
)

// config is what the flags select.
type config struct {
	sizes   []int
	queries int
	out     string
	cli     string
	json    bool
	seed    int64
	child   int // hidden: run one size and print its JSON result
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cairnbench: "+err.Error())
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if c.child > 0 {
		return runChild(ctx, c, stdout, stderr)
	}
	return runParent(ctx, c, stdout, stderr)
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("cairnbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("sizes", "1000,10000,100000", "comma-separated corpus sizes in notes")
	fs.IntVar(&c.queries, "queries", 1000, "queries per size")
	fs.StringVar(&c.out, "out", "", "work directory, kept afterwards (default: a temporary one, removed)")
	fs.StringVar(&c.cli, "cli", "", "path to a built cairn binary: also time 50 CLI searches per size")
	fs.BoolVar(&c.json, "json", false, "print JSON instead of Markdown tables")
	fs.Int64Var(&c.seed, "seed", 1, "corpus and query seed")
	fs.IntVar(&c.child, "child", 0, "internal: run one size in this process")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: cairnbench [-sizes N,N] [-queries N] [-out DIR] [-cli PATH] [-json] [-seed N]")
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name != "child" {
				fmt.Fprintf(stderr, "  -%s\t%s (default %q)\n", f.Name, f.Usage, f.DefValue)
			}
		})
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: cairnbench takes only flags", fs.Arg(0))
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 100 {
			return nil, fmt.Errorf("-sizes: %q is not a size: give whole numbers of notes, 100 or more", s)
		}
		c.sizes = append(c.sizes, n)
	}
	if c.queries < 1 {
		return nil, fmt.Errorf("-queries %d out of range: must be at least 1", c.queries)
	}
	return c, nil
}
