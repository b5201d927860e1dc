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

const usage = `cairn: long-term memory for AI agents

Usage:
  cairn init                                  write a commented config.toml and create the data dir
  cairn corpus add NAME PATH [--glob G]       add a files corpus to config.toml
  cairn corpus list [--json]                  list configured corpora
  cairn sync [--corpus NAME]... [--json]      index changed files
  cairn search QUERY [--corpus NAME]... [--limit N] [--min-score X] [--mode hybrid|lexical|vector] [--json] [--explain]
  cairn get PATH [--from N] [--lines M] [--json]
  cairn mcp [--agent A]                       serve the memory tools over MCP on stdio (protocol on stdout, logs on stderr)
  cairn serve [--addr 127.0.0.1:7777] [--agent A]... [--token-file F] [--allow-origin O]...   MCP at /mcp and a JSON API at /v1/ over HTTP
  cairn doctor [--repair] [--json]            check the index, full-text index, vectors.bin, temp files and lock; --repair rebuilds what is derived
  cairn models pull NAME [--hub URL] [--json]   fetch an ONNX embedding model (resumable, sha256-checked)
  cairn models list [--json]
  cairn eval locomo --data FILE [--mode lexical|vector|hybrid] [--audit FILE] [--include-adversarial] [--qa] [--json]
  cairn eval longmemeval --data FILE [--mode lexical] [--json]
  cairn consolidate [--thread ID] [--limit N] [--idle 30m] [--dry-run] [--json]   turn sessions into memories ([llm.consolidate]); --limit caps windows
  cairn memories list [--kind K] [--status active|superseded|all] [--json]   list consolidated memories (active by default)
  cairn memories show ID [--json]             a memory with its links
  cairn memories sleep [--limit N] [--dry-run] [--json]   merge near-duplicates, mark superseded memories, link related ones ([llm.fast])

Global flags (any position):
  --agent NAME     agent whose data to use (default "default")
  --config FILE    configuration file (default $CAIRN_HOME/config.toml, else $XDG_CONFIG_HOME/cairn/config.toml)
`

// usageError marks bad usage: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := dispatch(ctx, args, stdout, stderr)
	if err == nil {
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

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("no command given: run cairn help for the list")
	}
	cmd, rest := args[0], args[1:]
	env := newEnv(stdout, stderr)
	switch cmd {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	case "init":
		return cmdInit(ctx, env, rest)
	case "corpus":
		return cmdCorpus(ctx, env, rest)
	case "sync":
		return cmdSync(ctx, env, rest)
	case "search":
		return cmdSearch(ctx, env, rest)
	case "get":
		return cmdGet(ctx, env, rest)
	case "mcp":
		return cmdMCP(ctx, env, rest)
	case "serve":
		return cmdServe(ctx, env, rest)
	case "eval":
		return cmdEval(ctx, env, rest)
	case "consolidate":
		return cmdConsolidate(ctx, env, rest)
	case "memories":
		return cmdMemories(ctx, env, rest)
	case "models":
		return cmdModels(ctx, env, rest)
	case "doctor":
		return cmdDoctor(ctx, env, rest)
	default:
		return usagef("unknown command %q: run cairn help for the list", cmd)
	}
}
