// Package config reads and writes Cairn's TOML configuration file and locates
// its per-user directories. Only cmd/cairn uses it: the library never reads
// configuration or the environment itself, it takes the []cairn.Corpus that
// ToCorpora or Select return.
//
// The file holds one [[corpus]] table per corpus:
//
//	[[corpus]]
//	name = "notes"          # required, unique ignoring case, not all/extracted/memories
//	kind = "files"          # required; "files" or "sessions" (see Template)
//	paths = ["~/notes"]     # required; relative to the config file's directory
//	glob = "**/*.md"        # optional, default cairn.DefaultGlob
//	exclude = ["drafts/**"] # optional, relative to each path
//
// Unknown keys, wrong types and invalid values fail Load with a *LoadError
// naming the file, the line and the allowed values.
//
// Quick start:
//
//	cfgPath, dataDir := config.Locate(os.Getenv, home)
//	cfg, err := config.Load(cfgPath, &config.LoadOptions{Home: home})
//	if err != nil { ... }
//	corpora, err := cfg.Select(nil) // every corpus
package config
