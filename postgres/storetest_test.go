package postgres

import (
	"context"
	"os"
	"testing"

	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/cairnmemory/cairn/storetest"
)

// serverURL returns the URL in env (CAIRN_TEST_POSTGRES_URL or
// CAIRN_TEST_CITUS_URL, which scripts/pg-test-servers.sh start prints),
// skipping the test without one, or failing it with
// CAIRN_REQUIRE_POSTGRES=1 (as .ci/run sets).
func serverURL(t *testing.T, env string) string {
	t.Helper()
	url := os.Getenv(env)
	if url == "" {
		testshared.SkipOrFail(t, "POSTGRES", env+" is not set (eval \"$(scripts/pg-test-servers.sh start)\" starts a server)")
	}
	return url
}

// testBackend is a Backend on the server in env, in a schema of its own
// (dropped when the test ends) so runs never meet earlier ones' tables.
func testBackend(t *testing.T, env, schema string) Backend {
	t.Helper()
	url := serverURL(t, env)
	b := Backend{URL: url, Schema: schema, HNSW: true}
	ctx := context.Background()
	pool, err := openPool(ctx, url, "public", 2)
	if err != nil {
		t.Fatalf("connect to %s: %v", env, err)
	}
	drop := func() {
		if _, err := pool.Exec(ctx, `DROP SCHEMA IF EXISTS `+quoteIdent(schema)+` CASCADE`); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
	}
	drop()
	t.Cleanup(func() { drop(); pool.Close() })
	return b
}

// TestConformance runs the storage conformance suite against a single
// PostgreSQL server: each case's folder is a tenant of its own.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Factory{Backend: testBackend(t, "CAIRN_TEST_POSTGRES_URL", "cairn_conformance")})
}

// TestConformanceCitus runs the suite against the three-node Citus
// cluster: the tables distributed by agent over both workers.
func TestConformanceCitus(t *testing.T) {
	storetest.Run(t, storetest.Factory{Backend: testBackend(t, "CAIRN_TEST_CITUS_URL", "cairn_conformance")})
}
