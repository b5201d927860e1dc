package config

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// The access file of a team server ([store] access): who may use which
// agents. A token is kept as its sha256 (printf %s "$TOKEN" | sha256sum),
// so the file holds no secret.
//
//	[[token]]
//	name = "alice-laptop"       # in messages and logs
//	sha256 = "5e88…"            # 64 hex digits
//	agents = ["alice", "team"]  # "*": every agent served
//	write = true                # sync, remember, curation changes (default false: read only)

// AccessToken is one [[token]] of the access file.
type AccessToken struct {
	Name   string
	SHA256 string
	Agents []string
	Write  bool
}

type rawAccess struct {
	Token []struct {
		Name   string   `toml:"name"`
		SHA256 string   `toml:"sha256"`
		Agents []string `toml:"agents"`
		Write  bool     `toml:"write"`
	} `toml:"token"`
}

// LoadAccess reads and checks an access file: every token named, with a
// sha256 of 64 hex digits used once, and at least one agent.
func LoadAccess(path string) ([]AccessToken, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read access file: %w", err)
	}
	var raw rawAccess
	if err := toml.NewDecoder(strings.NewReader(string(data))).DisallowUnknownFields().Decode(&raw); err != nil {
		var de *toml.DecodeError
		var se *toml.StrictMissingError
		line := 1
		if errors.As(err, &de) {
			line, _ = de.Position()
		} else if errors.As(err, &se) && len(se.Errors) > 0 {
			line, _ = se.Errors[0].Position()
		}
		return nil, &LoadError{File: path, Line: line, Msg: strings.TrimPrefix(err.Error(), "toml: ") + "; allowed: [[token]] tables with name, sha256, agents, write"}
	}
	seen := map[string]string{}
	var out []AccessToken
	for i, t := range raw.Token {
		fail := func(format string, args ...any) error {
			return &LoadError{File: path, Line: 1, Msg: fmt.Sprintf("[[token]] %d (%q): ", i+1, t.Name) + fmt.Sprintf(format, args...)}
		}
		h := strings.ToLower(strings.TrimSpace(t.SHA256))
		switch b, err := hex.DecodeString(h); {
		case strings.TrimSpace(t.Name) == "":
			return nil, fail("name is missing")
		case err != nil || len(b) != 32:
			return nil, fail("sha256 %q is not 64 hex digits (printf %%s \"$TOKEN\" | sha256sum)", t.SHA256)
		case len(t.Agents) == 0:
			return nil, fail(`agents is empty; name the agents it may use, or "*" for all`)
		case seen[h] != "":
			return nil, fail("the same token as %q", seen[h])
		}
		seen[h] = t.Name
		out = append(out, AccessToken{Name: t.Name, SHA256: h, Agents: t.Agents, Write: t.Write})
	}
	if len(out) == 0 {
		return nil, &LoadError{File: path, Line: 1, Msg: "no [[token]] tables: a server with an access file needs at least one token"}
	}
	return out, nil
}
