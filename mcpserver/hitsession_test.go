package mcpserver

import (
	"context"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestSearchHitSessionFields: a session hit over MCP and /v1/search
// carries the session's cwd and title (and parent) as the engine's hit
// and the CLI's JSON do (rev finding 8: they were left out).
func TestSearchHitSessionFields(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	ctx := context.Background()
	out, err := f.agent.Search(ctx, SearchIn{Query: "token TTL", Corpora: []string{"sessions"}, MinScore: ptr(0.0), MaxResults: ptr(20)})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := f.eng.Search(ctx, "token TTL", &cairn.SearchOptions{Corpora: []string{"sessions"}, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*cairn.SessionInfo{}
	for _, h := range hits {
		want[h.Path] = h.Session
	}
	withCwd := 0
	for _, h := range out.Results {
		w := want[h.Path]
		if h.Session == nil || w == nil {
			continue
		}
		if h.Session.Cwd != w.Cwd || h.Session.Title != w.Title || h.Session.ParentID != w.ParentID {
			t.Errorf("%s: session %+v, want cwd %q title %q parent %q", h.Path, *h.Session, w.Cwd, w.Title, w.ParentID)
		}
		if h.Session.Cwd != "" {
			withCwd++
		}
	}
	if withCwd == 0 {
		t.Fatalf("no session hit with a cwd among %d results: %+v", len(out.Results), out.Results)
	}
}
