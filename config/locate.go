package config

import (
	"fmt"
	"path/filepath"

	"github.com/cairnmemory/cairn"
)

// namePattern is the allowed form of corpus names and agent ids.
// namePattern matches ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$ (written by hand: the
// compiled regexp cost 2 ms at every CLI start).
var namePattern = nameMatcher{}

type nameMatcher struct{}

func (nameMatcher) MatchString(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// nameRule describes namePattern for error messages.
const nameRule = "allowed: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"

// Locate returns where the config file and the data directory live. With
// CAIRN_HOME set both are under it ($CAIRN_HOME/config.toml and $CAIRN_HOME);
// otherwise they follow the XDG base directories:
// $XDG_CONFIG_HOME/cairn/config.toml (default home/.config) and
// $XDG_DATA_HOME/cairn (default home/.local/share). Relative XDG values are
// ignored, as the XDG specification asks.
func Locate(getenv func(string) string, home string) (configPath, dataDir string) {
	if dir := getenv("CAIRN_HOME"); dir != "" {
		return filepath.Join(dir, "config.toml"), filepath.Clean(dir)
	}
	configHome := xdgDir(getenv, "XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	dataHome := xdgDir(getenv, "XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	return filepath.Join(configHome, "cairn", "config.toml"), filepath.Join(dataHome, "cairn")
}

func xdgDir(getenv func(string) string, key, def string) string {
	if dir := getenv(key); dir != "" && filepath.IsAbs(dir) {
		return dir
	}
	return def
}

// AgentDir returns dataDir/agents/<agent>, the directory of one agent's
// state. The agent id must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$ so it is
// always a single safe path element.
func AgentDir(dataDir, agent string) (string, error) {
	if !namePattern.MatchString(agent) {
		return "", cairn.Invalidf("agent id %q: %s", agent, nameRule)
	}
	return filepath.Join(dataDir, "agents", agent), nil
}

// ValidName reports whether name is a valid corpus name: the right form and
// not reserved. The error wraps cairn.ErrInvalid and names the allowed form.
func ValidName(name string) error {
	if !namePattern.MatchString(name) {
		return cairn.Invalidf("corpus name %q: %s", name, nameRule)
	}
	if isReserved(name) {
		return cairn.Invalidf("corpus name %q is reserved: %s", name, reservedRule())
	}
	return nil
}

func isReserved(name string) bool {
	for _, r := range cairn.ReservedCorpusNames {
		if equalFold(r, name) {
			return true
		}
	}
	return false
}

func reservedRule() string {
	return fmt.Sprintf("reserved names: %s", joinNames(cairn.ReservedCorpusNames))
}

// ModelsDir is where pulled models go: $CAIRN_HOME/models, else
// $XDG_CACHE_HOME/cairn/models (default ~/.cache/cairn/models).
func ModelsDir(getenv func(string) string, home string) string {
	if h := getenv("CAIRN_HOME"); h != "" {
		return filepath.Join(h, "models")
	}
	return filepath.Join(xdgDir(getenv, "XDG_CACHE_HOME", filepath.Join(home, ".cache")), "cairn", "models")
}
