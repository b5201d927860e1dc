package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/sqlite"
)

// versionInfo is what `cairn version` prints. The JSON names are fixed.
type versionInfo struct {
	// Version is the module version: a tag for `go install ...@v1.2.3`,
	// "(devel)" for a build inside a checkout.
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`   // vcs.revision, when built from a checkout
	Modified bool   `json:"modified,omitempty"` // vcs.modified: the checkout had uncommitted changes
	Go       string `json:"go"`
	// IndexSchema and IndexFeatures are what this binary writes to
	// index.db: the schema (migrations) and the chunker and tokenizer
	// versions (a change to either re-indexes); MemorySchema is memory.db's.
	IndexSchema   int    `json:"indexSchema"`
	IndexFeatures string `json:"indexFeatures"`
	MemorySchema  int    `json:"memorySchema"`
	// Embedder is the configured [embedder] (provider and model; the model
	// is not loaded), nil without one or when the config cannot be read.
	Embedder    *embedderInfo `json:"embedder"`
	ConfigError string        `json:"configError,omitempty"`
	// IndexVectors are the vectors the agent's index holds, by the model
	// and quantization that made them (read from index.db, never
	// migrated): empty when it holds none, null when the agent has no
	// index.db yet or it was not read (IndexVectorsError says why: the
	// index is on a PostgreSQL server, or index.db cannot be read).
	IndexVectors      []indexVectors `json:"indexVectors"`
	IndexVectorsError string         `json:"indexVectorsError,omitempty"`
}

type embedderInfo struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Quantize is the configured [embedder] quantize: "none" (the key
	// absent, or any provider other than onnx), "int8" or "auto" (which
	// the index's vectors decide: IndexVectors).
	Quantize string `json:"quantize"`
}

// indexVectors is one embedder identity's vectors in the index.
type indexVectors struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`    // without the "+int8" of the identity
	Quantize string `json:"quantize"` // "none" or "int8"
	Vectors  int    `json:"vectors"`
}

// vectorsOfIdentity reads an identity key ("onnx|name+int8|384|...").
func vectorsOfIdentity(key string, n int) indexVectors {
	parts := strings.SplitN(key, "|", 3)
	v := indexVectors{Provider: parts[0], Quantize: "none", Vectors: n}
	if len(parts) > 1 {
		v.Model = parts[1]
	}
	if m, ok := strings.CutSuffix(v.Model, "+"+onnx.QuantizeInt8); ok && v.Provider == "onnx" {
		v.Model, v.Quantize = m, onnx.QuantizeInt8
	}
	return v
}

// readIndexVectors fills IndexVectors from the agent's index.db.
func (e *env) readIndexVectors(ctx context.Context, v *versionInfo, cfg *config.Config) {
	if cfg != nil && storeBackend(cfg, e.agent) != nil {
		v.IndexVectorsError = "not read: the index is on a PostgreSQL server ([store] url)"
		return
	}
	_, dataDir := e.paths()
	dir, err := config.AgentDir(dataDir, e.agent)
	if err != nil {
		v.IndexVectorsError = oneLine(err.Error())
		return
	}
	ids, counts, err := sqlite.VectorIdentities(ctx, filepath.Join(dir, sqlite.IndexFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		v.IndexVectorsError = oneLine(err.Error())
		return
	}
	v.IndexVectors = []indexVectors{}
	for i, id := range ids {
		v.IndexVectors = append(v.IndexVectors, vectorsOfIdentity(id, counts[i]))
	}
}

// buildVersion reads the module version and VCS stamp from the binary.
func buildVersion(info *debug.BuildInfo, ok bool) versionInfo {
	v := versionInfo{Version: "unknown", Go: runtime.Version(), IndexSchema: sqlite.SchemaVersion,
		IndexFeatures: engine.FeatureVersion, MemorySchema: sqlite.DurableVersion}
	if !ok {
		return v
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// cmdVersion prints the build and the on-disk format versions. A missing
// config is no error (no embedder); an unreadable one is reported in the
// output, since the version must print whatever the config says.
func cmdVersion(ctx context.Context, e *env, args []string) error {
	fs := e.flags("version")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("version", pos); err != nil {
		return err
	}
	v := buildVersion(debug.ReadBuildInfo())
	cfg, err := e.loadConfig()
	if err != nil {
		v.ConfigError = oneLine(err.Error())
		cfg = nil
	} else if cfg.Embedder != nil {
		q := cfg.Embedder.Quantize
		if q == "" {
			q = "none"
		}
		v.Embedder = &embedderInfo{Provider: cfg.Embedder.Provider, Model: cfg.Embedder.Model, Quantize: q}
	}
	e.readIndexVectors(ctx, &v, cfg)
	if e.json {
		return e.printJSON(v)
	}
	fmt.Fprintf(e.stdout, "cairn %s", v.Version)
	if v.Commit != "" {
		fmt.Fprintf(e.stdout, " (commit %s", v.Commit)
		if v.Modified {
			fmt.Fprint(e.stdout, ", modified")
		}
		fmt.Fprint(e.stdout, ")")
	}
	fmt.Fprintf(e.stdout, ", %s\nindex schema %d, features %s; memory schema %d\n", v.Go, v.IndexSchema, v.IndexFeatures, v.MemorySchema)
	switch {
	case v.ConfigError != "":
		fmt.Fprintf(e.stdout, "embedder: unknown (%s)\n", v.ConfigError)
	case v.Embedder == nil:
		fmt.Fprintln(e.stdout, "embedder: none configured")
	default:
		fmt.Fprintf(e.stdout, "embedder: %s %s, quantize %s\n", v.Embedder.Provider, v.Embedder.Model, v.Embedder.Quantize)
	}
	switch {
	case v.IndexVectorsError != "":
		fmt.Fprintf(e.stdout, "index vectors: unknown (%s)\n", v.IndexVectorsError)
	case v.IndexVectors == nil:
		fmt.Fprintf(e.stdout, "index vectors: none (agent %s has no index yet)\n", e.agent)
	case len(v.IndexVectors) == 0:
		fmt.Fprintf(e.stdout, "index vectors: none stored (agent %s)\n", e.agent)
	}
	for _, iv := range v.IndexVectors {
		fmt.Fprintf(e.stdout, "index vectors: %s %s, quantize %s: %d (agent %s)\n", iv.Provider, iv.Model, iv.Quantize, iv.Vectors, e.agent)
	}
	return nil
}
