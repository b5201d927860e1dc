package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/port"
)

// cmdImport reads an export (FILE, - for stdin) into the agent's storage
// in one transaction: refused when the agent holds anything, unless
// --replace deletes it first. A broken line, a row the store refuses or
// rows the end line counts that never came fail the import (exit 2,
// nothing written); --partial imports the rest, lists what was left out
// with its line numbers, and leaves out whole each document that lost
// chunks, for the next sync to index again. Corpora of the export that
// the config does not define are named in a warning: the next sync would
// remove their documents. An import refused (not an export, another
// format or feature version, vectors of another model) or failed leaves
// no folder that it made, the agent's data directory included.
func cmdImport(ctx context.Context, e *env, args []string) error {
	fs := e.flags("import")
	replace := fs.Bool("replace", false, "delete what the agent's storage holds first (in the same transaction)")
	anyModel := fs.Bool("any-model", false, "import vectors made by another model than the configured [embedder] (sync then embeds again)")
	partial := fs.Bool("partial", false, "import what arrived from a damaged file (broken or missing lines), leaving out documents that lost chunks; without it such a file imports nothing")
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
	var where string
	target, agentDir, err := e.importTarget(*store, &where)
	if err != nil {
		return err
	}
	var progress func(done, total int64)
	// The session copies go where the engine keeps them (ux U26).
	opts := &port.ImportOptions{Replace: *replace, AnyModel: *anyModel, Partial: *partial, FeatureVersion: engine.FeatureVersion,
		SessionsDir: filepath.Join(agentDir, engine.SessionsDir),
		Progress: func(done, total int64) {
			if progress == nil { // where is known once the store is open
				progress = e.portProgress("importing into " + where)
			}
			progress(done, total)
		}}
	if opts.Embedder, opts.EmbedderAlso, err = e.embedderKeys(); err != nil {
		e.logf("cairn: warning: import: the configured [embedder] cannot be built (%v): the export's models are not checked against it", err)
	}
	// The header, versions and models are checked before the store is
	// opened, and a refused or failed import removes the folders opening
	// made: before, a refused import left an empty data folder behind.
	res, err := port.ImportTo(ctx, target, in, opts)
	if err != nil {
		return err
	}
	return e.reportImport(res, where)
}

// importTarget is the store cmdImport writes (openPortable's, which sets
// *where when it opens) and the folder that opening may create: the
// agent's data directory (SQLite's files, PostgreSQL's caches) or the
// --store directory, as its outermost folder not there yet, so that a
// refused import leaves none of them (port.ImportTo removes it). dir is
// the agent's data directory (or --store's).
func (e *env) importTarget(store string, where *string) (t port.Target, dir string, err error) {
	dir = store
	if dir == "" || strings.HasPrefix(store, "postgres://") || strings.HasPrefix(store, "postgresql://") {
		_, dataDir := e.paths()
		if dir, err = config.AgentDir(dataDir, e.agent); err != nil {
			return port.Target{}, "", err
		}
	}
	return port.Target{Dir: outermostMissing(dir), Open: func(ctx context.Context) (cairn.Storage, error) {
		st, w, err := e.openPortable(ctx, store, false)
		*where = w
		return st, err
	}}, dir, nil
}

// outermostMissing returns the outermost folder of dir's path that does
// not exist (dir itself when it exists or only it is missing).
func outermostMissing(dir string) string {
	dir = filepath.Clean(dir)
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		if _, err := os.Stat(parent); !errors.Is(err, fs.ErrNotExist) {
			return dir
		}
		dir = parent
	}
}

// embedderKeys is the identity of the configured embedder ("" for none)
// and the others it accepts: what import checks the export's vectors
// against. Building it loads no model file for OpenAI; for ONNX it reads
// the model's files. With quantize = "auto" it is the model's FP32 and
// INT8 identities (read without the runtime, embedder_auto.go): an index
// without vectors takes the export's quantization, and auto keeps it
// after.
func (e *env) embedderKeys() (string, []string, error) {
	cfg, err := e.loadConfig()
	if err != nil || cfg.Embedder == nil {
		return "", nil, err
	}
	if ec := cfg.Embedder; ec.Provider == "onnx" && ec.Quantize == quantizeAuto {
		_, dataDir := e.paths()
		id, err := modelIdentity(ec, filepath.Join(dataDir, "cache", "onnx"))
		if err != nil {
			return "", nil, err
		}
		return onnx.QuantizedIdentity(id, onnx.QuantizeNone).Key(), []string{onnx.QuantizedIdentity(id, onnx.QuantizeInt8).Key()}, nil
	}
	e.embedWorkers = 1
	emb, err := e.embedder(cfg)
	if err != nil || emb == nil {
		return "", nil, err
	}
	if c, ok := emb.(interface{ Close() error }); ok {
		defer c.Close()
	}
	return emb.Identity().Key(), nil, nil
}

// importReport is import's and migrate's --json: the result, and the
// corpora the config lacks.
type importReport struct {
	*port.ImportResult
	Unconfigured []string `json:"unconfigured_corpora"`
}

// corpusAddHint is the corpus add command that configures a corpus of
// this name: the sessions and skills corpora have their own forms
// (corpus.go refuses NAME PATH for them).
func corpusAddHint(name string) string {
	switch name {
	case "sessions":
		return "cairn corpus add sessions --kind sessions --source SOURCE"
	case "skills":
		return "cairn corpus add skills PATH --kind skills"
	}
	return "cairn corpus add " + name + " PATH"
}

func (e *env) reportImport(res *port.ImportResult, where string) error {
	lacking, cfgPath := e.unconfigured(res.Corpora)
	for _, c := range lacking {
		e.logf("cairn: warning: import: corpus %s (%s) is not in the config %s: add it (%s) before syncing, or the next sync removes those documents",
			c, plural(int(res.Corpora[c]), "document"), cfgPath, corpusAddHint(c))
	}
	if res.CopyError != "" {
		e.logf("cairn: warning: import: %s: wrote %s; a sync removes the sessions whose copy is missing and whose transcript is gone (copy them by hand, or import again once the folder is writable)",
			oneLine(res.CopyError), sessionCopies(res.SessionCopies))
	}
	if e.json {
		return e.printJSON(importReport{res, lacking})
	}
	rows := sumCounts(res.Counts)
	fmt.Fprintf(e.stdout, "imported %s rows into %s (%s)\n", thousands(int(rows)), where, portCounts(res.Counts))
	if res.Rejected > 0 {
		fmt.Fprintf(e.stdout, "left out %s:\n", plural(res.Rejected, "line"))
		for i, p := range res.Problems {
			if i == 20 {
				fmt.Fprintf(e.stdout, "  ... (--json lists %d)\n", len(res.Problems))
				break
			}
			fmt.Fprintf(e.stdout, "  line %d: %s\n", p.Line, p.Reason)
		}
	}
	if len(res.Missing) > 0 {
		fmt.Fprintf(e.stdout, "missing: the end line counts rows that never came: %s\n", portCounts(res.Missing))
	}
	if res.SessionCopies > 0 {
		fmt.Fprintf(e.stdout, "wrote %s, kept by the next sync even where the transcript is gone\n", sessionCopies(res.SessionCopies))
	}
	if res.DroppedCount > 0 {
		fmt.Fprintf(e.stdout, "left out %s that lost chunks (the next sync indexes them again from their files): %s\n",
			plural(res.DroppedCount, "document"), strings.Join(res.Dropped[:min(len(res.Dropped), 10)], ", "))
	}
	return nil
}

// unconfigured lists the corpora of counts that the config does not
// define (the memories corpus is every engine's), and the config's path.
// The config is read again quietly: openPortable printed its warnings.
func (e *env) unconfigured(counts map[string]int64) ([]string, string) {
	path, _ := e.paths()
	home, _ := os.UserHomeDir()
	cfg, err := config.Load(path, &config.LoadOptions{Home: home, Getenv: os.Getenv, Named: e.configPath != ""})
	if err != nil {
		return nil, path
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		known := strings.EqualFold(name, cairn.MemoriesCorpus) || slices.ContainsFunc(cfg.Corpora, func(c config.Corpus) bool { return strings.EqualFold(c.Name, name) })
		if !known && counts[name] > 0 {
			out = append(out, name)
		}
	}
	return out, path
}

// plural is "1 line", "3 lines".
// sessionCopies is "1 session copy", "3 session copies".
func sessionCopies(n int) string {
	if n == 1 {
		return "1 session copy"
	}
	return thousands(n) + " session copies"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return thousands(n) + " " + what + "s"
}
