package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/port"
	"github.com/cairnmemory/cairn/postgres"
	"github.com/cairnmemory/cairn/search"
	"github.com/cairnmemory/cairn/sqlite"
)

// storeFlagUsage describes --store of export, import and migrate.
const storeFlagUsage = "the store to use instead of [store] of the config: a postgres:// URL (the agent's tenant there), or a data directory for SQLite files"

// cmdExport writes the agent's storage to FILE (- for stdout) in the
// format of package port: documents, chunks, vectors, sessions, memories,
// curation state, without any model call. On a server store it reads the
// database with the URL's own credentials: an operator tool, past the
// tokens of [store] access.
func cmdExport(ctx context.Context, e *env, args []string) error {
	fs := e.flags("export")
	gz := fs.Bool("gzip", false, "compress with gzip (also when FILE ends in .gz)")
	store := fs.String("store", "", storeFlagUsage)
	fs.BoolVar(&e.json, "json", false, "print the counts as JSON; no progress on stderr")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("export takes one argument, the file to write (- for stdout), got %d", len(pos))
	}
	if err := exportTarget(pos[0]); err != nil {
		return err
	}
	st, where, err := e.openPortable(ctx, *store, true)
	if err != nil {
		return err
	}
	defer st.Close()
	file := pos[0]
	opts := &port.ExportOptions{Agent: e.agent, Gzip: *gz || strings.HasSuffix(file, ".gz"), Progress: e.portProgress("exporting " + where)}
	var res *port.ExportResult
	var size int64
	if file == "-" {
		res, err = port.Export(ctx, st.(cairn.Porter), e.stdout, opts)
	} else {
		size, err = writeAtomic(file, func(w io.Writer) error {
			var err error
			res, err = port.Export(ctx, st.(cairn.Porter), w, opts)
			return err
		})
	}
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(map[string]any{"file": file, "rows": res.Rows, "bytes": size, "counts": res.Counts, "models": res.Header.Models})
	}
	out := e.stdout
	if file == "-" {
		out = e.stderr
	}
	fmt.Fprintf(out, "exported %s rows of %s to %s (%s)\n", thousands(int(res.Rows)), where, file, portCounts(res.Counts))
	return nil
}

// exportTarget refuses, before anything is read, a FILE that cannot be
// written: a directory (the export was written whole into a temporary file
// beside it, in its parent, and then failed to rename over it) or a path
// whose folder does not exist.
func exportTarget(file string) error {
	if file == "-" {
		return nil
	}
	if fi, err := os.Stat(file); err == nil && fi.IsDir() {
		return usagef("export FILE: %s is a directory; allowed: a file to write (e.g. %s), or - for stdout", file, filepath.Join(file, "export.jsonl"))
	}
	dir := filepath.Dir(file)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usagef("export FILE: the folder %s does not exist; allowed: a file in an existing folder, or - for stdout", dir)
	}
	return nil
}

// writeAtomic writes a file through a temporary one beside it, synced and
// renamed into place, and returns its size.
func writeAtomic(path string, write func(io.Writer) error) (int64, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("create export file: %w", err)
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return 0, fmt.Errorf("write export file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, fmt.Errorf("write export file: %w", err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("write export file: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return 0, fmt.Errorf("write export file: %w", err)
	}
	return fi.Size(), nil
}

// openPortable opens the agent's storage for export or import: the store
// --store names, else the config's. It says where, in words. A source
// (export, migrate's side to copy from) must hold something: an agent
// without its SQLite index, or with no rows in PostgreSQL, is an error
// naming the agent and where it looked (a mistyped --agent), and no
// directory is made for it.
func (e *env) openPortable(ctx context.Context, store string, source bool) (cairn.Storage, string, error) {
	cfg, err := e.loadConfig()
	if err != nil {
		return nil, "", err
	}
	_, dataDir := e.paths()
	dir, err := config.AgentDir(dataDir, e.agent)
	if err != nil {
		return nil, "", err
	}
	backend := storeBackend(cfg, e.agent)
	switch {
	case strings.HasPrefix(store, "postgres://") || strings.HasPrefix(store, "postgresql://"):
		schema := ""
		if cfg.Store.Postgres() {
			schema = cfg.Store.Schema
		}
		backend = postgres.Backend{URL: store, Agent: e.agent, Schema: schema}
	case store != "":
		backend, dir = sqlite.Backend{}, store
	case backend == nil:
		backend = sqlite.Backend{}
	}
	where := "agent " + e.agent + " in " + dir
	pg, isPG := backend.(postgres.Backend)
	if isPG {
		where = fmt.Sprintf("agent %s in PostgreSQL", pg.AgentFor(dir))
	}
	if _, ok := backend.(sqlite.Backend); ok && source {
		if _, err := os.Stat(filepath.Join(dir, sqlite.IndexFile)); err != nil {
			return nil, "", cairn.Invalidf("open %s: no %s there, nothing to copy: is --agent %q the agent meant?", where, sqlite.IndexFile, e.agent)
		}
	}
	_, statErr := os.Stat(dir)
	st, err := backend.Open(ctx, dir, cairn.StorageOptions{FeatureVersion: engine.FeatureVersion, OneShot: true, Ident: search.IdentText, Logf: e.logf})
	if err != nil {
		return nil, "", err
	}
	p, ok := st.(cairn.Porter)
	if !ok {
		st.Close()
		return nil, "", fmt.Errorf("open %s: this store cannot be exported or imported", where)
	}
	if isPG && source {
		info, err := p.PortInfo(ctx)
		if err == nil && len(info.Counts) > 0 && sumCounts(info.Counts) == 0 {
			err = cairn.Invalidf("open %s: the agent holds nothing there, nothing to copy: is --agent %q the agent meant?", where, e.agent)
		}
		if err != nil {
			st.Close()
			if statErr != nil {
				os.Remove(dir) // the folder the backend made for its caches, if still empty
			}
			return nil, "", err
		}
	}
	return st, where, nil
}

func sumCounts(counts map[string]int64) int64 {
	var n int64
	for _, c := range counts {
		n += c
	}
	return n
}

// portProgress reports rows on stderr (none with --json).
func (e *env) portProgress(what string) func(done, total int64) {
	p := newProgress(e.stderr, !e.json)
	p.label = func(string) (string, string) { return what, "rows" }
	return func(done, total int64) {
		p.update(cairn.ProgressEvent{Corpus: what, Done: int(done), Total: int(total)})
		if done >= total {
			p.done()
		}
	}
}

// portCounts is "12 documents, 40 chunks, ..." for the tables that hold rows.
func portCounts(counts map[string]int64) string {
	var parts []string
	for _, t := range cairn.PortTables {
		if n := counts[t.Name]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", thousands(int(n)), t.Name))
		}
	}
	if len(parts) == 0 {
		return "nothing stored"
	}
	return strings.Join(parts, ", ")
}
