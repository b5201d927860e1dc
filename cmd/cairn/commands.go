package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
)

// command is one runnable command: the words that name it, its positional
// arguments, a one-line summary, and the function that parses its flags
// and runs it. The table below is the only dispatch, so a command missing
// from it cannot be run, and everything in it is in the help.
type command struct {
	path    string // "corpus add"
	args    string // positional arguments, as the synopsis shows them
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

// commands is filled in init: cmdHelp reads the table it is part of.
var commands []command

func init() {
	commands = []command{
		{"init", "", "write a commented config.toml, create the data directory, offer the agents found on this machine", cmdInit},
		{"corpus add", "NAME [PATH]", "add a files corpus (or, with --kind sessions or skills, the sessions or skills corpus) to config.toml",
			func(_ context.Context, e *env, args []string) error { return cmdCorpusAdd(e, args) }},
		{"corpus list", "", "list the configured corpora",
			func(_ context.Context, e *env, args []string) error { return cmdCorpusList(e, args) }},
		{"corpus remove", "NAME", "remove a corpus from config.toml (the next sync drops its documents)",
			func(_ context.Context, e *env, args []string) error { return cmdCorpusRemove(e, args) }},
		{"sync", "", "index what changed in the corpora, then embed new chunks", cmdSync},
		{"sync status", "", "the last session sync: counts per source, skipped records and why", cmdSyncStatus},
		{"search", "QUERY", "search the corpora (BM25, vectors, or both fused)", cmdSearch},
		{"get", "PATH", "read lines of an indexed document (cairn://<corpus>/<path>[:<from>-<to>], as search prints it, or its file's absolute path)", cmdGet},
		{"mcp", "", "serve the memory tools over MCP on stdio (protocol on stdout, logs on stderr)", cmdMCP},
		{"serve", "", "serve MCP at /mcp and a JSON API at /v1/ over HTTP", cmdServe},
		{"ui", "", "the web pages (search, corpora, sessions, memories, clusters, inbox, diagnostics) on loopback, opened in a browser", cmdUI},
		{"doctor", "", "check the index, full-text index, vectors.bin, temp files and lock; --repair rebuilds what is derived", cmdDoctor},
		{"models pull", "OWNER/NAME", "fetch an ONNX embedding model (resumable, sha256-checked)",
			func(ctx context.Context, e *env, args []string) error {
				return cmdModels(ctx, e, append([]string{"pull"}, args...))
			}},
		{"models list", "", "list the models fetched so far",
			func(ctx context.Context, e *env, args []string) error {
				return cmdModels(ctx, e, append([]string{"list"}, args...))
			}},
		{"eval locomo", "", "score retrieval (and with --qa, answers) on a LoCoMo file", cmdEvalLocomo},
		{"eval longmemeval", "", "score retrieval on a LongMemEval file", cmdEvalLME},
		{"consolidate", "", "turn sessions into memories with the [llm.consolidate] model", cmdConsolidate},
		{"recall", "QUERY", "search the memories (kind, scope, project, told and event-time filters; up to 200 hits)", cmdRecall},
		{"memories list", "", "list consolidated memories (active by default)", memoriesList},
		{"memories show", "ID", "a memory with its links", memoriesShow},
		{"memories sleep", "", "merge near-duplicates, mark superseded memories, link related ones ([llm.fast])", memoriesSleep},
		{"gather", "QUESTION", "every memory a question that counts, lists or compares needs: wide search, the [llm.fast] model keeps what matters", cmdGather},
		{"explore", "[TOPIC]", "what else memory holds about a topic (or --id memories): the concept graph walked, no model", cmdExplore},
		{"clusters rebuild", "", "cluster what is indexed by topic (exact duplicates set aside, UMAP, HDBSCAN), replacing the last run", clustersRebuild},
		{"clusters list", "", "the clusters of the last run, largest first, each with its most central passage", clustersList},
		{"clusters show", "CLUSTER_ID", "a page of one cluster's passages by representativeness, score or date (date sorts file event-date tasks)", clustersShow},
		{"tasks list", "", "the maintenance inbox: ambiguous event dates, exact duplicates, quality reviews, with what to do", tasksList},
		{"tasks update", "TASK_ID", "resolve, defer or mark irrelevant a task (an event date with --event-time); Cairn never edits the source", tasksUpdate},
		{"remember", "SUMMARY", "write a memory directly: a fact, decision, preference, ... or a dated observation (told by cli or --agent)", cmdRemember},
		{"forget", "ID", "remove a memory, told or consolidated, from memory and search (a later consolidation does not write it again)", cmdForget},
		{"skills list", "", "the skills of the skills corpus as the Skill Whisperer sees them (name, SKILL.md, description; duplicates)", cmdSkillsList},
		{"skills install", "curator", "write Cairn's curator skill (clusters and the maintenance inbox into topic files) for Claude Code and OpenClaw", cmdSkillsInstall},
		{"hooks install", "claude-code", "add Cairn's whisperers to Claude Code's prompt hooks (merged into its settings.json; undo with hooks uninstall)", cmdHooksInstall},
		{"hooks uninstall", "claude-code", "remove exactly what hooks install added (the settings file restored byte for byte when nothing else changed)", cmdHooksUninstall},
		{"hooks run", "claude-code EVENT", "what the installed hooks run: Claude Code's hook JSON on stdin (EVENT user-prompt-submit or post-tool-use)", cmdHooksRun},
		{"whisper", "", "ask the whisperers what to add to a prompt, for hooks: a turn as JSON on stdin, {appendContext} or {} on stdout (--server: ask a running cairn serve)", cmdWhisper},
		{"export", "FILE", "write the agent's documents, chunks, vectors, sessions, memories and curation state to FILE (- for stdout), no model call", cmdExport},
		{"import", "FILE", "read an export into the agent's storage in one transaction (refused when it holds anything, unless --replace)", cmdImport},
		{"migrate", "", "copy the agent's storage into another store (--to postgres://... or a directory), as export piped into import", cmdMigrate},
		{"version", "", "the module version and commit, Go, index and memory schema versions, the embedder", cmdVersion},
		{"help", "[COMMAND]", "this list, or one command's usage and flags", cmdHelp},
	}
}

// lookup returns the command named by path, or nil.
func lookup(path string) *command {
	for i := range commands {
		if commands[i].path == path {
			return &commands[i]
		}
	}
	return nil
}

// group returns the commands under a group path ("corpus"), in table order.
func group(path string) []*command {
	var out []*command
	for i := range commands {
		if strings.HasPrefix(commands[i].path, path+" ") {
			out = append(out, &commands[i])
		}
	}
	return out
}

// isPrefix reports whether words name a command or a group of them.
func isPrefix(words []string) bool {
	p := strings.Join(words, " ")
	return lookup(p) != nil || len(group(p)) > 0
}

// globalFlags are bound by every command (env.flags); before or between
// the command words they are moved behind them, so they work in any
// position.
var globalFlags = []string{"agent", "config"}

// globalFlagLen returns how many arguments the global flag at args[0]
// takes (2 for "--agent NAME", 1 for "--agent=NAME"), or 0 when args[0] is
// not a global flag.
func globalFlagLen(args []string) int {
	name, hasValue := strings.CutPrefix(args[0], "--")
	if !hasValue {
		if name, hasValue = strings.CutPrefix(args[0], "-"); !hasValue {
			return 0
		}
	}
	name, _, eq := strings.Cut(name, "=")
	for _, g := range globalFlags {
		if name == g {
			if eq || len(args) == 1 {
				return 1
			}
			return 2
		}
	}
	return 0
}

func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// dispatch finds the command among the leading words of args, moving
// global flags met on the way behind the command words, and runs it.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	e := newEnv(stdout, stderr)
	var words, globals []string
	help := false
	i := 0
	for i < len(args) {
		a := args[i]
		if n := globalFlagLen(args[i:]); n > 0 {
			globals = append(globals, args[i:i+n]...)
			i += n
			continue
		}
		if isHelpFlag(a) {
			help = true
			i++
			continue
		}
		if len(words) == 0 && (a == "--version" || a == "-version") {
			a = "version"
		}
		if strings.HasPrefix(a, "-") || !isPrefix(append(words, a)) {
			break
		}
		words = append(words, a)
		i++
	}
	rest := append(globals, args[i:]...)
	if help {
		rest = append(rest, "--help")
	}
	path := strings.Join(words, " ")
	if c := lookup(path); c != nil {
		e.reads = readCommands[path] // agentcheck.go
		return c.run(ctx, e, rest)
	}
	if len(words) == 0 {
		if help {
			return writeUsage(ctx, stdout)
		}
		if i == len(args) {
			return usagef("no command given: run cairn help for the list")
		}
		return usagef("unknown command %q: %srun cairn help for the list", args[i], didYouMean(args[i]))
	}
	if help {
		return writeGroupUsage(stdout, path)
	}
	var subs []string
	for _, c := range group(path) {
		subs = append(subs, strings.TrimPrefix(c.path, path+" "))
	}
	if i == len(args) {
		return usagef("%s needs a subcommand: %s (run cairn %s --help)", path, strings.Join(subs, ", "), path)
	}
	return usagef("unknown %s subcommand %q: allowed %s (run cairn %s --help)", path, args[i], strings.Join(subs, ", "), path)
}

// didYouMean names the commands whose path holds word as one of its
// later words ("status": cairn sync status), as "did you mean ...; ", or
// "" for none.
func didYouMean(word string) string {
	var found []string
	for _, c := range commands {
		if ws := strings.Fields(c.path); len(ws) > 1 && slices.Contains(ws[1:], word) {
			found = append(found, "cairn "+c.path)
		}
	}
	if len(found) == 0 { // a typo of a command's first word (serach): nearWords, env.go
		var firsts []string
		for _, c := range commands {
			if w := strings.Fields(c.path)[0]; !slices.Contains(firsts, w) {
				firsts = append(firsts, w)
			}
		}
		for _, w := range nearWords(word, firsts) {
			found = append(found, "cairn "+w)
		}
	}
	if len(found) == 0 {
		return ""
	}
	return "did you mean " + strings.Join(found, " or ") + "? "
}

// cmdHelp prints the command list, or the usage of the command or group
// its words name.
func cmdHelp(ctx context.Context, e *env, args []string) error {
	fs := e.flags("help")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	path := strings.Join(pos, " ")
	switch {
	case path == "":
		return writeUsage(ctx, e.stdout)
	case lookup(path) != nil:
		h, err := commandHelp(ctx, lookup(path))
		if err != nil {
			return err
		}
		fmt.Fprint(e.stdout, h.text())
		return nil
	case len(group(path)) > 0:
		return writeGroupUsage(e.stdout, path)
	}
	return usagef("help %s: no such command: run cairn help for the list", path)
}
