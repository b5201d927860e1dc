package mcpserver

import (
	"context"
	"slices"
	"testing"

	"github.com/cairnmemory/cairn/engine"
)

// TestDiagnosticsNarrowedGrant: memory_diagnostics under a token that reads
// only some corpora reports the index (documents, chunks) and lists only
// the corpora it reads. Before, a token without the memories corpus got
// index status "unavailable" with the error "read corpus memories: token
// may not read it", and both scopes named every configured corpus.
func TestDiagnosticsNarrowedGrant(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	for _, tt := range []struct {
		grant Grant
		want  []string
	}{
		{Grant{Name: "notes-only", Corpora: []string{"notes"}}, []string{"notes"}},
		{Grant{Name: "sessions-only", Corpora: []string{"sessions"}}, []string{"sessions"}},
		{Grant{Name: "everything"}, []string{"notes", "sessions"}},
	} {
		ctx := engine.WithScope(context.Background(), tt.grant.Scope())
		out, err := f.agent.Diagnostics(ctx, Empty{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Index.Status == "unavailable" || out.Index.Retrieval.Documents == 0 {
			t.Errorf("%s: index %+v; want it reported", tt.grant.Name, out.Index)
		}
		if !slices.Equal(out.Index.Scope.Corpora, tt.want) || !slices.Equal(out.Whisperers.Scope.Corpora, tt.want) {
			t.Errorf("%s: scopes %v and %v; want %v", tt.grant.Name, out.Index.Scope.Corpora, out.Whisperers.Scope.Corpora, tt.want)
		}
	}
}

// TestDiagnosticsPeriodicNarrowed: the periodic sync is the session sync,
// so a grant that does not read the sessions corpus is not shown its
// status in memory_diagnostics or memory_sync_status; a grant that reads
// it is.
func TestDiagnosticsPeriodicNarrowed(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	f.agent.updateBackground(func(p **PeriodicStatus, _ **WatcherStatus) {
		*p = &PeriodicStatus{IntervalMinutes: 10, Runs: 3, LastError: "read transcript x: denied"}
	})
	for _, tt := range []struct {
		grant    Grant
		periodic bool
	}{
		{Grant{Name: "notes-only", Corpora: []string{"notes"}}, false},
		{Grant{Name: "sessions-only", Corpora: []string{"sessions"}}, true},
		{Grant{Name: "everything"}, true},
	} {
		ctx := engine.WithScope(context.Background(), tt.grant.Scope())
		d, err := f.agent.Diagnostics(ctx, Empty{})
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.agent.SyncStatus(ctx, Empty{})
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string]*Background{"diagnostics": d.Background, "sync status": st.Background} {
			if got := b != nil && b.Periodic != nil; got != tt.periodic {
				t.Errorf("%s: %s shows the periodic sync: %v; want %v", tt.grant.Name, name, got, tt.periodic)
			}
		}
	}
}
