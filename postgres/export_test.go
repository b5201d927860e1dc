package postgres

import (
	"testing"

	"github.com/cairnmemory/cairn/storetest"
)

// TestExportConformance runs the suite's export case alone, in a schema
// of its own, on PostgreSQL and on Citus (TestConformance runs it too,
// with the rest).
func TestExportConformance(t *testing.T) {
	for _, env := range []string{"CAIRN_TEST_POSTGRES_URL", "CAIRN_TEST_CITUS_URL"} {
		t.Run(env, func(t *testing.T) {
			storetest.TestExport(t, storetest.Factory{Backend: testBackend(t, env, "cairn_export_conformance")})
		})
	}
}
