package main

import (
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/mcpserver"
	"github.com/cairnmemory/cairn/postgres"
)

// storeBackend is the storage of [store]: nil (SQLite files in the
// agent's data directory, local.Fill's default) without a url, else the
// agent's tenant in the PostgreSQL database, named by the agent id, so
// every server and CLI on the database that names the agent shares it.
func storeBackend(cfg *config.Config, agent string) cairn.Backend {
	if cfg == nil || !cfg.Store.Postgres() {
		return nil
	}
	s := cfg.Store
	return postgres.Backend{URL: s.URL, Agent: agent, Schema: s.Schema, MaxConns: int32(s.MaxConns), HNSW: s.HNSW}
}

// serveAccess loads the access file of [store] access (nil without one):
// the tokens a team server accepts and what each may do.
func serveAccess(cfg *config.Config) (*mcpserver.Access, error) {
	if cfg == nil || cfg.Store.Access == "" {
		return nil, nil
	}
	tokens, err := config.LoadAccess(cfg.Store.Access)
	if err != nil {
		return nil, err
	}
	grants := map[string]mcpserver.Grant{}
	for _, t := range tokens {
		grants[t.SHA256] = mcpserver.Grant{Name: t.Name, Agents: t.Agents, Corpora: trimmed(t.Corpora), Write: t.Write, WriteCorpora: trimmed(t.WriteCorpora)}
	}
	return mcpserver.NewAccess(grants)
}

// trimmed is names with surrounding space removed; nil stays nil (every
// corpus).
func trimmed(names []string) []string {
	if names == nil {
		return nil
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimSpace(n)
	}
	return out
}
