package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

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
}

type embedderInfo struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
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
	if cfg, err := e.loadConfig(); err != nil {
		v.ConfigError = oneLine(err.Error())
	} else if cfg.Embedder != nil {
		v.Embedder = &embedderInfo{Provider: cfg.Embedder.Provider, Model: cfg.Embedder.Model}
	}
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
		fmt.Fprintf(e.stdout, "embedder: %s %s\n", v.Embedder.Provider, v.Embedder.Model)
	}
	return nil
}
