package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os/exec"
	"runtime"
	"time"

	"github.com/cairnmemory/cairn/mcpserver"
	"github.com/cairnmemory/cairn/web"
)

// DefaultUIAddr is where cairn ui listens unless told: loopback, a port of
// its own so it runs beside cairn serve.
const DefaultUIAddr = "127.0.0.1:7778"

// cmdUI starts the server of cairn serve on a loopback address, with its
// web pages, and opens them in a browser where one can be found (xdg-open,
// open, or start); otherwise it prints the address. It stops on Ctrl-C.
func cmdUI(ctx context.Context, e *env, args []string) error {
	f := serveFlags{ui: true, watch: true, requestTimeout: mcpserver.DefaultRequestTimeout,
		shutdownTimeout: closeTimeout, maxBody: mcpserver.DefaultMaxBodyBytes}
	var noOpen bool
	fs := flag.NewFlagSet("cairn ui", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.addr, "addr", DefaultUIAddr, "listen address (loopback only; port 0 picks a free one)")
	fs.Var(&f.agents, "agent", "agent to serve (the pages show the first)")
	fs.StringVar(&e.configPath, "config", "", "configuration file")
	fs.BoolVar(&f.watch, "watch", true, "watch the files corpora and sync on change")
	fs.BoolVar(&noOpen, "no-open", false, "print the address instead of opening a browser")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("ui", pos); err != nil {
		return err
	}
	if !loopbackAddr(f.addr) {
		return usagef("ui on %s refused: cairn ui serves loopback only; use cairn serve --addr %s --token-file FILE to serve a network", f.addr, f.addr)
	}
	var launched chan error // the browser launcher's exit, awaited before returning
	err = serve(ctx, e, f, func(addr net.Addr) {
		url := "http://" + addr.String() + "/"
		fmt.Fprintf(e.stderr, "cairn: pages at %s (Ctrl-C stops)\n", url)
		if noOpen {
			return
		}
		cmd, err := browserCommand(url)
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "cairn: no browser opened (%v): open %s yourself\n", err, url)
			return
		}
		launched = make(chan error, 1)
		go func() { launched <- cmd.Wait() }()
	})
	if launched != nil {
		// xdg-open and open return once the browser is asked; a launcher
		// still running after the server stopped is not waited for long.
		select {
		case <-launched:
		case <-time.After(5 * time.Second):
		}
	}
	return err
}

// browserCommand is the desktop's way to open url.
func browserCommand(url string) (*exec.Cmd, error) {
	switch runtime.GOOS {
	case "darwin":
		return exec.Command("open", url), nil
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url), nil
	}
	path, err := exec.LookPath("xdg-open")
	if err != nil {
		return nil, fmt.Errorf("find xdg-open: %w", err)
	}
	return exec.Command(path, url), nil
}

// closePages waits for a sync the pages started.
func closePages(e *env, pages *web.Handler) {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := pages.Close(ctx); err != nil {
		fmt.Fprintf(e.stderr, "cairn: web pages: %v\n", err)
	}
}
