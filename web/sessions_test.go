package web

import (
	"context"
	"fmt"
	"html"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/mcpserver"
	"github.com/cairnmemory/cairn/redact/redacttest"
)

// TestSessionTimelineAndSecrets: the sessions page lists an OpenAI chat
// export's sessions by source, filtered by date, and a session opens as
// its projection with message headings and its secret as the placeholder.
func TestSessionTimelineAndSecrets(t *testing.T) {
	var secret redacttest.Sample
	for _, s := range redacttest.Samples() {
		if s.Kind == "github-token" {
			secret = s
		}
	}
	root := t.TempDir()
	line := fmt.Sprintf(secret.Line, secret.Secret)
	writeFile(t, filepath.Join(root, "conversations.jsonl"),
		`{"id":"c1","created_at":"2026-05-04T09:00:00Z","messages":[{"role":"user","content":"my token is `+line+`"},{"role":"assistant","content":"Do not paste tokens."}]}`+"\n"+
			`{"id":"c2","created_at":"2026-05-06T09:00:00Z","messages":[{"role":"user","content":"what is a fence post"},{"role":"assistant","content":"A post."}]}`+"\n")
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir(), Corpora: []cairn.Corpus{{Name: "sessions", Kind: cairn.KindSessions,
		Sources: []cairn.SourceSpec{{ID: cairn.SourceOpenAIChat, Roots: []string{root}}}, ChatTypes: []string{"direct", "group", "channel"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	agent := mcpserver.NewAgent("default", eng)
	defer agent.Close(ctx)
	pages, err := New(Options{Agent: agent})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := mcpserver.NewHandler(mcpserver.HTTPOptions{Agents: []*mcpserver.Agent{agent}, UI: pages})
	srv := httptest.NewServer(h)
	defer srv.Close()
	s := &server{Server: srv}

	_, _, all := s.get(t, "/ui/sessions")
	_, _, day := s.get(t, "/ui/sessions?from=2026-05-04&to=2026-05-04")
	if strings.Count(all, "<time>") != 2 || strings.Count(day, "<time>") != 1 || !strings.Contains(day, "2026-05-04 09:00 UTC") || !strings.Contains(all, "<h2>openai-chat") {
		t.Fatalf("sessions: all\n%s\n2026-05-04\n%s", all, day)
	}
	link := regexp.MustCompile(`<a href="(/ui/doc\?[^"]+)">`).FindStringSubmatch(day)
	if link == nil {
		t.Fatalf("no session link:\n%s", day)
	}
	_, _, doc := s.get(t, html.UnescapeString(link[1]))
	if strings.Contains(doc, secret.Secret) || !strings.Contains(doc, "[REDACTED:github-token]") {
		t.Errorf("session view shows the secret or no placeholder:\n%s", doc)
	}
	if !strings.Contains(doc, `class="line heading"`) {
		t.Errorf("session view without message headings:\n%s", doc)
	}
}
