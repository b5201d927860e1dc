package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// env is what every subcommand shares: output streams and global flags.
type env struct {
	stdout, stderr io.Writer
	agent          string
	configPath     string
	json           bool
	// bulkEmbed marks a command that embeds many texts (sync): its ONNX
	// embedder gets the default two sessions, the others one.
	bulkEmbed    bool
	embedWorkers int // ONNX sessions; 0: the package default
	// shares are the embedders a server offers to one-shot commands, by
	// agent (embedshare.go); closeAgent stops them.
	shares map[string]*agentShare
	// serverCommand names this server (serve, mcp) in its share record.
	serverCommand string
	// shareBad are the servers that failed this command
	// (embedshare_client.go): not asked again.
	shareBad shareFailures
	// reads marks a command that only reads (readCommands): it opens no
	// agent that has no data.
	reads bool
}

// logf writes one diagnostic line to stderr.
func (e *env) logf(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) }

func newEnv(stdout, stderr io.Writer) *env {
	return &env{stdout: stdout, stderr: stderr, agent: "default"}
}

// flags returns a flag set with the global flags bound.
func (e *env) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("cairn "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&e.agent, "agent", e.agent, globalUsage["agent"])
	fs.StringVar(&e.configPath, "config", e.configPath, globalUsage["config"])
	return fs
}

// globalUsage describes the flags every command binds; help lists them once.
var globalUsage = map[string]string{
	"agent":  "agent whose data to use",
	"config": "configuration file (default $CAIRN_HOME/config.toml, else $XDG_CONFIG_HOME/cairn/config.toml)",
}

// parse parses flags anywhere among the arguments and returns the
// positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, &helpError{fs}
		} else if err != nil {
			// run prefixes "cairn: "; the set's name is "cairn <command>".
			return nil, usagef("%s: %v%s; run %s --help", strings.TrimPrefix(fs.Name(), "cairn "), err, flagTypo(fs, err), fs.Name())
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// paths returns the config file and data directory for this invocation.
func (e *env) paths() (configPath, dataDir string) {
	home, _ := os.UserHomeDir()
	configPath, dataDir = config.Locate(os.Getenv, home)
	if e.configPath != "" {
		configPath = e.configPath
	}
	return configPath, dataDir
}

func (e *env) loadConfig() (*config.Config, error) {
	path, _ := e.paths()
	home, _ := os.UserHomeDir()
	// A file named by --config must exist: read as empty, it would make
	// sync drop every indexed document. Only the default may be absent.
	cfg, err := config.Load(path, &config.LoadOptions{Home: home, Getenv: os.Getenv, Named: e.configPath != ""})
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings { // e.g. two corpora covering the same files
		fmt.Fprintln(e.stderr, "cairn: warning: "+w)
	}
	return cfg, nil
}

// open loads the configuration and opens the agent's engine.
func (e *env) open(ctx context.Context) (*engine.Engine, *config.Config, error) {
	cfg, err := e.loadConfig()
	if err != nil {
		return nil, nil, err
	}
	return e.openLoaded(ctx, cfg)
}

// openLoaded is open with the configuration already loaded.
func (e *env) openLoaded(ctx context.Context, cfg *config.Config) (*engine.Engine, *config.Config, error) {
	_, dataDir := e.paths()
	dir, err := config.AgentDir(dataDir, e.agent)
	if err != nil {
		return nil, nil, err
	}
	if err := checkAgentCase(dataDir, e.agent, dir); err != nil { // agentcheck.go
		return nil, nil, err
	}
	if err := e.privateDirs(os.Getuid(), dataDir, dir); err != nil {
		return nil, nil, err
	}
	if e.reads && e.agent != "default" && storeBackend(cfg, e.agent) == nil {
		if err := checkAgent(dataDir, e.agent, dir); err != nil { // agentcheck.go: a read makes no agent
			return nil, nil, err
		}
	}
	// The embedder is built when first used: most one-shot commands never
	// embed. Only sync embeds in bulk; the others embed one query at most
	// and need one session.
	var emb cairn.Embedder
	if cfg.Embedder != nil {
		if !e.bulkEmbed {
			e.embedWorkers = 1
		}
		emb = &lazyEmbedder{build: func() (cairn.Embedder, error) { return e.embedder(cfg) }, logf: e.logf}
		if !e.bulkEmbed {
			emb = e.remoteEmbedder(dir, cfg, emb) // a running server's model (embedshare_client.go)
		}
	}
	eng, err := local.Open(ctx, engine.Options{Dir: dir, Corpora: e.corpora(cfg), OneShot: true, Location: time.Local,
		AgentName: e.agentName(), Embedder: emb, Logf: e.logf, Backend: storeBackend(cfg, e.agent)})
	if err != nil {
		return nil, nil, err
	}
	return eng, cfg, nil
}

func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// agentName names the assistant in session projections: the agent id,
// unless it is the default one (then the source id is shown).
func (e *env) agentName() string {
	if e.agent == "default" {
		return ""
	}
	return e.agent
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func noPositional(cmd string, pos []string) error {
	if len(pos) > 0 {
		return usagef("%s takes no arguments, got %q", cmd, pos[0])
	}
	return nil
}

// privateDirs checks the folders an agent's data lives in: the data root,
// its agents folder and the agent's folder, those that exist (the rest are
// made 0700 when first written). Its files are 0600, but in a folder that
// others may write, anyone can delete index.db or memory.db and put their
// own (or a link) in its place, and the next search or MCP call serves
// their text as this user's memory (ux F15). A folder of ours that group
// or others may write is made 0700, once, and said on stderr; one owned
// by another user is refused with what to do. uid is this process's.
func (e *env) privateDirs(uid int, dataDir, dir string) error {
	for _, d := range []string{dataDir, filepath.Dir(dir), dir} {
		fi, err := os.Stat(d)
		if err != nil || !fi.IsDir() {
			continue // missing: made 0700 by whoever writes first; not a folder: the open says so
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			continue
		}
		if int(st.Uid) != uid {
			return fmt.Errorf("data folder %s belongs to uid %d, not to this user (uid %d): its owner could replace the index and the memories read from it; "+
				"use a folder of your own (set CAIRN_HOME), or have its owner hand it over: chown -R %d %s && chmod 700 %s", d, st.Uid, uid, uid, d, d)
		}
		perm := fi.Mode().Perm()
		if perm&0o022 == 0 {
			continue
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return fmt.Errorf("data folder %s is writable by group or others (mode %04o), and making it private failed: %v; run chmod 700 %s", d, perm, err, d)
		}
		fmt.Fprintf(e.stderr, "cairn: data folder %s was writable by group or others (mode %04o), who could have replaced its files; it is now 0700\n", d, perm)
	}
	return nil
}

// flagTypo is " (did you mean --limit?)" when err is an undefined flag
// within a typo of a defined one (--limt), else "" (ux F16).
func flagTypo(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	near := nearWords(strings.TrimLeft(name, "-"), names)
	if len(near) == 0 {
		return ""
	}
	return " (did you mean --" + strings.Join(near, " or --") + "?)"
}

// nearWords returns the candidates within a typo of word, in their order:
// at most one edit (a letter added, dropped or changed, or two neighbours
// swapped) for a word of up to four letters, two for a longer one. The
// command list can use it as the flags do.
func nearWords(word string, candidates []string) []string {
	most := 1
	if len([]rune(word)) > 4 {
		most = 2
	}
	var out []string
	for _, c := range candidates {
		if c != word && typoDistance(word, c) <= most {
			out = append(out, c)
		}
	}
	return out
}

// typoDistance is the optimal string alignment distance of a and b: the
// edits of nearWords, each letter edited once at most.
func typoDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
