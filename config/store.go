package config

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// The [store] table: where an agent's index and memories live.
//
//	[store]
//	url = "postgres://cairn@db.internal:5432/cairn?sslmode=verify-full"
//	schema = "cairn"            # the tables' schema
//	maxConns = 10               # connection pool size (0: pgx's default)
//	hnsw = false                # an HNSW index per embedder in the database
//	access = "access.toml"      # tokens naming the agents and corpora a caller may use (cairn serve)
//
// Without the table (or with url empty) each agent keeps SQLite files in
// its data directory. A password belongs in PGPASSWORD or ~/.pgpass,
// which the driver reads, not in the file. docs/postgres.md has the rest.

var storeKeys = []string{"url", "schema", "maxConns", "hnsw", "access"}

// Store is the [store] table; the zero value is SQLite.
type Store struct {
	URL      string
	Schema   string
	MaxConns int
	HNSW     bool
	Access   string // absolute path of the access file; "" when not set
}

// Postgres reports whether the agents' storage is a PostgreSQL database.
func (s Store) Postgres() bool { return s.URL != "" }

type rawStore struct {
	URL      *string `toml:"url"`
	Schema   *string `toml:"schema"`
	MaxConns *int    `toml:"maxConns"`
	HNSW     *bool   `toml:"hnsw"`
	Access   *string `toml:"access"`
}

func isStoreTable(key []string) bool { return len(key) == 1 && key[0] == "store" }

// storeKey checks one key of the [store] table.
func storeKey(file string, line int, key []string) error {
	if len(key) != 1 || !slices.Contains(storeKeys, key[0]) {
		return &LoadError{File: file, Line: line, Msg: fmt.Sprintf("unknown key %q in [store]; allowed keys: %s", strings.Join(key, "."), strings.Join(storeKeys, ", "))}
	}
	return nil
}

var schemaPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// validateStore checks the [store] table and fills cfg.Store.
func validateStore(file string, data []byte, raw *rawStore, r resolver, cfg *Config) error {
	if raw == nil {
		return nil
	}
	lines := storeLines(data)
	fail := func(key, format string, args ...any) error {
		return &LoadError{File: file, Line: max(lines[key], lines[""], 1), Msg: fmt.Sprintf("[store] "+format, args...)}
	}
	var s Store
	if raw.URL != nil && *raw.URL != "" {
		u, err := url.Parse(*raw.URL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
			return fail("url", "url is not a PostgreSQL URL; allowed: postgres://user@host:port/database (options as ?sslmode=...)")
		}
		if _, ok := u.User.Password(); ok || hasPasswordParam(u.Query()) {
			return fail("url", "url holds a password; put it in PGPASSWORD or ~/.pgpass instead, which the driver reads")
		}
		s.URL = *raw.URL
	}
	if raw.Schema != nil {
		if !schemaPattern.MatchString(*raw.Schema) {
			return fail("schema", "schema %q; allowed: a letter or _ then up to 62 letters, digits or _", *raw.Schema)
		}
		s.Schema = *raw.Schema
	}
	if raw.MaxConns != nil {
		if *raw.MaxConns < 0 || *raw.MaxConns > 1000 {
			return fail("maxConns", "maxConns %d; allowed: 0 (the driver's default) to 1000", *raw.MaxConns)
		}
		s.MaxConns = *raw.MaxConns
	}
	if raw.HNSW != nil {
		s.HNSW = *raw.HNSW
	}
	if raw.Access != nil && *raw.Access != "" {
		p, err := r.resolve(*raw.Access)
		if err != nil {
			return fail("access", "access: %v", err)
		}
		s.Access = p
	}
	if s.URL == "" && (s.Schema != "" || s.MaxConns != 0 || s.HNSW) {
		return fail("", "schema, maxConns and hnsw need a url (without one the store is SQLite)")
	}
	cfg.Store = s
	return nil
}

// storeLines maps "" to the [store] header's line and each key to its own.
func storeLines(data []byte) map[string]int {
	out := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	in := false
	for p.NextExpression() {
		expr := p.Expression()
		switch expr.Kind {
		case unstable.Table, unstable.ArrayTable:
			in = isStoreTable(keyParts(expr))
			if in {
				out[""] = keyLine(&p, expr)
			}
		case unstable.KeyValue:
			if in {
				out[strings.Join(keyParts(expr), ".")] = keyLine(&p, expr)
			}
		}
	}
	return out
}

// hasPasswordParam reports whether a url's query sets a password
// (?password=, which the driver reads as the url's own password does).
func hasPasswordParam(q url.Values) bool {
	for k := range q {
		if strings.EqualFold(k, "password") {
			return true
		}
	}
	return false
}
