// Command cairn is the command-line interface to Cairn, a long-term memory
// engine for AI agents: it indexes Markdown corpora into an embedded SQLite
// store and searches them.
//
//	cairn init
//	cairn corpus add notes ~/notes
//	cairn sync
//	cairn search "sqlite busy timeout"
//	cairn get cairn://notes/db.md --from 10 --lines 40
//
// Exit status: 0 on success, 1 on a runtime failure, 2 on bad usage.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/cairnmemory/cairn"
)

// usageError marks bad usage: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// The first Ctrl-C cancels: the command stops after what it is writing
	// and says what it kept. A second one kills the process at once (the
	// index is crash-safe: a killed sync loses only its open transaction).
	// This goroutine is main's and lives as long as the process: os.Exit
	// ends it (no Close to await it in).
	go func() { <-ctx.Done(); stop() }()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := dispatch(ctx, args, stdout, stderr)
	if err == nil {
		return 0
	}
	var help *helpError
	if errors.As(err, &help) {
		fmt.Fprint(stdout, help.text())
		return 0
	}
	fmt.Fprintln(stderr, "cairn: "+oneLine(err.Error()))
	var ue usageError
	if errors.As(err, &ue) || errors.Is(err, cairn.ErrInvalid) {
		return 2
	}
	return 1
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
