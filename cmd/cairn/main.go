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
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// This goroutine is main's and lives as long as the process: os.Exit
	// ends it (no Close to await it in).
	go interrupts(sigs, cancel, os.Stderr, os.Exit)
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// interrupts handles Ctrl-C: the first cancels (the command stops after
// what it is writing and says what it kept); a second ends the process at
// once with status 130, as a shell reports a process SIGINT killed (the
// index is crash-safe: a killed sync loses only its open transaction).
// It exits itself: handing the second signal back to its default did
// not kill a sync blocked in a read (a hung mount; /proc/kmsg), which
// ignored both (ux U12).
func interrupts(sigs <-chan os.Signal, cancel func(), stderr io.Writer, exit func(int)) {
	<-sigs
	cancel()
	<-sigs
	fmt.Fprintln(stderr, "cairn: interrupted twice: stopped at once")
	exit(130)
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
