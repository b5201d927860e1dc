package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// scopeFixture is an engine of one agent with four corpora, each holding
// the word zebraword: notes (files, also walrus), secret (files), sessions
// (one imported session) and memories (one told memory). A scope that
// names notes alone must reach none of the others.
func scopeFixture(t *testing.T) (*fixture, string) {
	t.Helper()
	notes, secret := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(notes, "open.md"), []byte("# Open\n\nwalrus zebraword in the open notes\n"), 0o644)
	os.WriteFile(filepath.Join(secret, "plan.md"), []byte("# Plan\n\nzebraword kept in the secret plan\n"), 0o644)
	f := newFixture(t, nil, Options{Corpora: []cairn.Corpus{
		{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob},
		{Name: "secret", Kind: cairn.KindFiles, Paths: []string{secret}, Glob: cairn.DefaultGlob},
		{Name: "sessions", Kind: cairn.KindSessions}}})
	ctx := context.Background()
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	if _, err := f.eng.ImportSessions(ctx, "sessions", "fixture", []cairn.Session{{Source: cairn.SourceCodex, ID: "s1", Cwd: "/work/secret",
		StartedAt: at, Messages: []cairn.Message{{Role: cairn.RoleUser, Text: "zebraword said in a session", Time: at}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Remember(ctx, &cairn.RememberRequest{Kind: "fact", Title: "zebraword fact", Summary: "zebraword is a remembered fact", Agent: "a"}); err != nil {
		t.Fatal(err)
	}
	return f, secret
}

// TestScopeLimitsCorpora: under a scope of notes alone every read of the
// engine reaches notes only (search in every filter form, get by path and
// by file, sessions, memories, explore, gather, tasks), naming another
// corpus is an error matching ErrForbidden that names the corpus and the
// grant, and writes reach only the corpora the scope writes.
func TestScopeLimitsCorpora(t *testing.T) {
	f, secretDir := scopeFixture(t)
	e, bg := f.eng, context.Background()
	all, err := e.Search(bg, "zebraword", &cairn.SearchOptions{Limit: 20, Mode: cairn.ModeLexical})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitCorpora(all); !slices.Equal(got, []string{"memories", "notes", "secret", "sessions"}) {
		t.Fatalf("unscoped search found corpora %v, want all four (the fixture is wrong)", got)
	}
	ctx := WithScope(bg, Scope{Grant: "docs", Read: []string{"Notes"}, Write: []string{}})
	for _, o := range []cairn.SearchOptions{
		{},
		{Corpora: []string{"all"}},
		{Sessions: &cairn.SessionFilter{Cwd: "/work/secret"}},
		{Memories: &cairn.MemorySearch{Kinds: []string{"fact"}}},
	} {
		o.Limit, o.Mode = 20, cairn.ModeLexical
		hits, err := e.Search(ctx, "zebraword", &o)
		if err != nil || !slices.Equal(hitCorpora(hits), []string{"notes"}) {
			t.Errorf("scoped search %+v = %v, %v; want the notes hit alone", o, hitCorpora(hits), err)
		}
	}
	forbidden := func(what string, err error, corpus string) {
		t.Helper()
		if !errors.Is(err, cairn.ErrForbidden) || !strings.Contains(err.Error(), `"`+corpus+`"`) || !strings.Contains(err.Error(), `"docs"`) {
			t.Errorf("%s: %v; want ErrForbidden naming corpus %q and token \"docs\"", what, err, corpus)
		}
	}
	for _, c := range []string{"secret", "sessions", "memories", "nosuch"} {
		_, err := e.Search(ctx, "zebraword", &cairn.SearchOptions{Corpora: []string{"notes", c}, Mode: cairn.ModeLexical})
		forbidden("search naming "+c, err, c)
	}
	_, err = e.Get(ctx, "cairn://secret/plan.md", nil)
	forbidden("get of a secret path", err, "secret")
	for _, h := range all {
		if h.Corpus != "notes" {
			_, err := e.Get(ctx, h.Path, nil)
			forbidden("get of "+h.Path, err, h.Corpus)
		}
	}
	if res, err := e.Get(ctx, filepath.Join(secretDir, "plan.md"), nil); err != nil || res.Status != cairn.StatusNotFound {
		t.Errorf("get of the secret file by its absolute path = %+v, %v; want not found", res, err)
	}
	if res, err := e.Get(ctx, "cairn://notes/open.md", nil); err != nil || !strings.Contains(res.Text, "walrus") {
		t.Errorf("get of a granted path = %+v, %v", res, err)
	}
	ms, err := e.Memories(bg, cairn.MemoryFilter{})
	if err != nil || len(ms) != 1 {
		t.Fatalf("memories = %v, %v", ms, err)
	}
	_, err = e.Memories(ctx, cairn.MemoryFilter{})
	forbidden("memories", err, "memories")
	_, err = e.Memory(ctx, ms[0].ID)
	forbidden("memory by id", err, "memories")
	_, err = e.MemoryLinks(ctx, ms[0].ID)
	forbidden("memory links", err, "memories")
	_, err = e.CountMemories(ctx)
	forbidden("memory counts", err, "memories")
	_, err = e.Explore(ctx, "zebraword", nil)
	forbidden("explore", err, "memories")
	_, err = e.Gather(ctx, "zebraword?", nil)
	forbidden("gather", err, "memories")
	_, _, err = e.Sessions(ctx, "sessions", cairn.SessionFilter{}, 10)
	forbidden("sessions", err, "sessions")
	_, err = e.Documents(ctx, "secret")
	forbidden("documents", err, "secret")
	_, err = e.TranscriptFailures(ctx, "sessions")
	forbidden("transcript failures", err, "sessions")

	// Tasks: the corpus condition is in the store query.
	for _, c := range []string{"notes", "secret"} {
		if _, err := e.store.PutMaintenanceTask(bg, cairn.MaintenanceTask{ID: "task-" + c, Type: cairn.TaskQualityReview, Corpus: c, Path: "p.md",
			Reason: "r", Fingerprint: c, Detail: "{}", CreatedAt: time.Now(), UpdatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	ts, err := e.ListTasks(ctx, cairn.TaskPending, 0)
	if err != nil || len(ts) != 1 || ts[0].Corpus != "notes" {
		t.Errorf("scoped tasks = %+v, %v; want the notes task alone", ts, err)
	}
	if _, err := e.UpdateTask(ctx, TaskUpdateRequest{TaskID: "task-secret", Action: "defer"}); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("update of the secret corpus's task: %v; want not found", err)
	}
	_, err = e.UpdateTask(ctx, TaskUpdateRequest{TaskID: "task-notes", Action: "defer"})
	if err == nil || !errors.Is(err, cairn.ErrForbidden) {
		t.Errorf("a read-only scope's task update: %v; want ErrForbidden", err)
	}

	// Writes: a scope that writes notes syncs notes alone and remembers
	// nothing.
	w := WithScope(bg, Scope{Grant: "docs", Read: []string{"notes", "memories"}, Write: []string{"notes"}})
	res, err := e.Sync(w, nil)
	if err != nil || len(res.Corpora) != 1 || res.Corpora[0].Name != "notes" {
		t.Errorf("scoped sync = %+v, %v; want notes alone", res, err)
	}
	_, err = e.Sync(w, &cairn.SyncOptions{Corpora: []string{"secret"}})
	if !errors.Is(err, cairn.ErrForbidden) {
		t.Errorf("scoped sync of secret: %v; want ErrForbidden", err)
	}
	if _, err := e.Remember(w, &cairn.RememberRequest{Kind: "fact", Title: "t", Summary: "s", Agent: "a"}); !errors.Is(err, cairn.ErrForbidden) {
		t.Errorf("remember without memories write: %v; want ErrForbidden", err)
	}
	if _, err := e.Memories(w, cairn.MemoryFilter{}); err != nil {
		t.Errorf("memories with memories granted: %v", err)
	}
}

func hitCorpora(hits []cairn.Hit) []string {
	var out []string
	for _, h := range hits {
		if !slices.Contains(out, h.Corpus) {
			out = append(out, h.Corpus)
		}
	}
	slices.Sort(out)
	return out
}
