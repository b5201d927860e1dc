package config

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// The access file of a team server ([store] access): who may use which
// agents. A token is kept as its sha256 (printf %s "$TOKEN" | sha256sum),
// so the file holds no secret.
//
//	[[token]]
//	name = "alice-laptop"       # in messages and logs
//	sha256 = "5e88…"            # 64 hex digits
//	agents = ["alice", "team"]  # "*": every agent served
//	corpora = ["notes", "memories"]  # optional: the corpora it reads (absent: all, memories included)
//	write = true                # sync, remember, curation changes (default false: read only)
//	write_corpora = ["notes"]   # optional, with write: the corpora it changes (absent: those it reads)

// AccessToken is one [[token]] of the access file. Corpora and
// WriteCorpora are nil when the file leaves them out (every corpus).
type AccessToken struct {
	Name         string
	SHA256       string
	Agents       []string
	Corpora      []string
	Write        bool
	WriteCorpora []string
}

type rawAccess struct {
	Token []struct {
		Name         string   `toml:"name"`
		SHA256       string   `toml:"sha256"`
		Agents       []string `toml:"agents"`
		Corpora      []string `toml:"corpora"`
		Write        bool     `toml:"write"`
		WriteCorpora []string `toml:"write_corpora"`
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
		return nil, &LoadError{File: path, Line: line, Msg: strings.TrimPrefix(err.Error(), "toml: ") + "; allowed: [[token]] tables with name, sha256, agents, corpora, write, write_corpora"}
	}
	seen := map[string]string{}
	var out []AccessToken
	headers := tokenHeaders(data)
	for i, t := range raw.Token {
		line := 1
		if i < len(headers) {
			line = headers[i]
		}
		fail := func(format string, args ...any) error {
			return &LoadError{File: path, Line: line, Msg: fmt.Sprintf("[[token]] %d (%q): ", i+1, t.Name) + fmt.Sprintf(format, args...)}
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
		if msg := checkGrantCorpora(t.Corpora, t.Write, t.WriteCorpora); msg != "" {
			return nil, fail("%s", msg)
		}
		seen[h] = t.Name
		out = append(out, AccessToken{Name: t.Name, SHA256: h, Agents: t.Agents, Corpora: t.Corpora, Write: t.Write, WriteCorpora: t.WriteCorpora})
	}
	if len(out) == 0 {
		return nil, &LoadError{File: path, Line: 1, Msg: "no [[token]] tables: a server with an access file needs at least one token"}
	}
	return out, nil
}

// tokenHeaders returns the line of each [[token]] header, in order, so an
// error in a token names where it starts.
func tokenHeaders(data []byte) []int {
	var out []int
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		if expr := p.Expression(); expr.Kind == unstable.ArrayTable && slices.Equal(keyParts(expr), []string{"token"}) {
			out = append(out, keyLine(&p, expr))
		}
	}
	return out
}

// checkGrantCorpora checks a token's corpora and write_corpora: each,
// when given, a list of distinct corpus names ("memories" is the
// consolidated memories), and write_corpora only with write = true and
// within corpora. It returns what is wrong, or "".
func checkGrantCorpora(corpora []string, write bool, writeCorpora []string) string {
	for _, f := range []struct {
		field string
		names []string
	}{{"corpora", corpora}, {"write_corpora", writeCorpora}} {
		if f.names == nil {
			continue
		}
		if len(f.names) == 0 {
			return f.field + ` is empty: name corpora (e.g. ["notes", "memories"]), or leave ` + f.field + " out for every corpus"
		}
		seen := map[string]bool{}
		for _, n := range f.names {
			k := strings.ToLower(strings.TrimSpace(n))
			switch {
			case k == "":
				return f.field + " holds a blank name: allowed corpus names as configured, and memories"
			case k == "all" || k == "*":
				return fmt.Sprintf("%s names %q: leave %s out for every corpus, or name corpora", f.field, n, f.field)
			case seen[k]:
				return fmt.Sprintf("%s names %q twice", f.field, n)
			}
			seen[k] = true
		}
	}
	if writeCorpora == nil {
		return ""
	}
	if !write {
		return "write_corpora needs write = true (a read-only token changes no corpus)"
	}
	for _, n := range writeCorpora {
		if corpora != nil && !slices.ContainsFunc(corpora, func(c string) bool { return strings.EqualFold(strings.TrimSpace(c), strings.TrimSpace(n)) }) {
			return fmt.Sprintf("write_corpora names %q, which corpora does not: allowed %s (a token changes only corpora it reads)", n, strings.Join(corpora, ", "))
		}
	}
	return ""
}
