package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	goldenfile "github.com/cairnmemory/cairn/internal/golden"
)

// TestToolSchemasGolden pins the advertised tools: names, descriptions,
// input and output schemas, annotations.
func TestToolSchemasGolden(t *testing.T) {
	f := newFixture(t, fixtureOpts{noSync: true})
	cs := connect(t, f.agent)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	want := []string{ToolAuditQuality, ToolDiagnostics, ToolExplore, ToolFetchCluster, ToolForget, ToolGather, ToolGet, ToolListClusters, ToolListTasks,
		ToolRecluster, ToolRemember, ToolReviewClaim, ToolReviewCluster, ToolSearch, ToolSyncSessions, ToolSyncStatus, ToolUpdateTask}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("tools %v, want %v", names, want)
	}
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "tools.golden.json", append(got, '\n'))
}

// golden checks got with testdata/name (-update rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

func TestSearchTool(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	cs := connect(t, f.agent)
	tests := []struct {
		name      string
		args      map[string]any
		wantPath  string // first hit; "" for no results
		wantCount int    // -1: any
	}{
		{"words", map[string]any{"query": "busy timeout"}, "cairn://notes/db.md", -1},
		{"identifier spelling", map[string]any{"query": "parse_config"}, "cairn://notes/sub/api.md", -1},
		{"corpus selected", map[string]any{"query": "billing service", "corpora": []string{"notes"}}, "cairn://notes/people.md", -1},
		{"corpus name case-insensitive", map[string]any{"query": "billing service", "corpora": []string{"NOTES"}}, "cairn://notes/people.md", -1},
		{"maxResults caps", map[string]any{"query": "routine entry weather", "maxResults": 2, "minScore": 0}, "", 2},
		{"minScore 1 keeps nothing but exact tops", map[string]any{"query": "zzzunmatched"}, "", 0},
		{"lexical mode", map[string]any{"query": "staging cluster", "mode": "lexical"}, "cairn://notes/deploy.md", -1},
		{"hybrid without embedder is BM25", map[string]any{"query": "staging cluster", "mode": "hybrid"}, "cairn://notes/deploy.md", -1},
		{"sessions filter, no match", map[string]any{"query": "busy timeout", "corpora": []string{"sessions"}, "sessionFilter": map[string]any{"provider": "nobody"}}, "", 0},
		// Spec C11: the filter narrows session hits; other corpora keep theirs.
		{"sessions filter keeps notes", map[string]any{"query": "busy timeout", "sessionFilter": map[string]any{"provider": "nobody"}}, "cairn://notes/db.md", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out SearchOut
			text := callOK(t, cs, ToolSearch, tt.args, &out)
			if strings.Contains(text, "\n") {
				t.Errorf("result is not compact JSON: %s", text)
			}
			if tt.wantCount >= 0 && len(out.Results) != tt.wantCount {
				t.Fatalf("%d results, want %d: %s", len(out.Results), tt.wantCount, text)
			}
			if tt.wantPath != "" && (len(out.Results) == 0 || out.Results[0].Path != tt.wantPath) {
				t.Fatalf("first hit not %s: %s", tt.wantPath, text)
			}
			for _, h := range out.Results {
				if h.Score != round2(h.Score) || h.Score < 0 || h.Score > 1 {
					t.Errorf("score %v not in 0..1 rounded to hundredths", h.Score)
				}
				if _, ok := h.Snippet.(string); !ok && h.Session == nil {
					t.Errorf("file hit snippet %T, want string", h.Snippet)
				}
			}
		})
	}
}

// TestSearchSessionHit checks the session shape of a hit: session metadata
// and a message-array snippet.
func TestSearchSessionHit(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	cs := connect(t, f.agent)
	var out SearchOut
	text := callOK(t, cs, ToolSearch, map[string]any{"query": "token TTL", "corpora": []string{"sessions"}, "minScore": 0,
		"sessionFilter": map[string]any{"source": "claude-code", "startedFrom": "2000-01-01T00:00:00Z"}}, &out)
	if len(out.Results) == 0 {
		t.Fatalf("no session hits: %s", text)
	}
	h := out.Results[0]
	if h.Session == nil || h.Session.SessionID == "" || h.Session.StartedAt == "" {
		t.Fatalf("session hit without session metadata: %s", text)
	}
	msgs, ok := h.Snippet.([]any)
	if !ok || len(msgs) == 0 {
		t.Fatalf("session snippet %T, want a message array: %s", h.Snippet, text)
	}
	if m, _ := msgs[0].(map[string]any); m["body"] == nil {
		t.Errorf("message without body: %v", msgs[0])
	}
}

// TestToolErrors calls every tool with bad input: each is a tool error
// (isError) whose message names the field.
func TestToolErrors(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	cs := connect(t, f.agent)
	tests := []struct {
		tool string
		args any
		want []string
	}{
		{ToolSearch, map[string]any{}, []string{"query is blank"}},
		{ToolSearch, map[string]any{"query": "   "}, []string{"query is blank"}},
		{ToolSearch, map[string]any{"query": "x", "maxResults": 0}, []string{"maxResults 0 out of range", "1 to 20"}},
		{ToolSearch, map[string]any{"query": "x", "maxResults": 21}, []string{"maxResults 21 out of range"}},
		{ToolSearch, map[string]any{"query": "x", "maxResults": 2.5}, []string{"maxResults", "integer"}},
		{ToolSearch, map[string]any{"query": "x", "minScore": -0.1}, []string{"minScore -0.1 out of range", "0 to 1"}},
		{ToolSearch, map[string]any{"query": "x", "minScore": 1.5}, []string{"minScore 1.5 out of range"}},
		{ToolSearch, map[string]any{"query": "x", "minScore": "high"}, []string{"minScore", "want a number"}},
		{ToolSearch, map[string]any{"query": "x", "mode": "semantic"}, []string{`mode "semantic"`, "hybrid, lexical or vector"}},
		{ToolSearch, map[string]any{"query": "x", "mode": "vector"}, []string{`mode "vector" needs an embedder`}},
		{ToolSearch, map[string]any{"query": "x", "corpora": []string{"nope"}}, []string{"corpora", "unknown corpus: nope", "known: notes"}},
		{ToolSearch, map[string]any{"query": "x", "corpora": []string{}}, []string{"corpora", "unknown corpus: []", "known: notes"}},
		{ToolSearch, map[string]any{"query": "x", "corpora": []string{"all", "notes"}}, []string{"corpora", "all"}},
		{ToolSearch, map[string]any{"query": "x", "corpora": []string{""}}, []string{"corpora[0] is blank"}},
		{ToolSearch, map[string]any{"query": "x", "corpora": "notes"}, []string{"corpora", "want an array of strings"}},
		{ToolSearch, map[string]any{"query": "x", "limit": 3}, []string{`unknown field "limit"`, "maxResults"}},
		{ToolSearch, map[string]any{"query": "x", "sessionFilter": map[string]any{"user": "a"}}, []string{`unknown field "user"`, "sessionFilter.provider"}},
		{ToolSearch, map[string]any{"query": "x", "sessionFilter": map[string]any{"startedFrom": "yesterday"}}, []string{"sessionFilter.startedFrom", "ISO-8601"}},
		{ToolSearch, map[string]any{"query": "x", "sessionFilter": map[string]any{"startedTo": "2026-05-04"}}, []string{"sessionFilter.startedTo", "with an offset"}},
		{ToolSearch, map[string]any{"query": "x", "sessionFilter": map[string]any{"startedFrom": "2026-05-04T00:00:00Z", "startedTo": "2026-05-01T00:00:00Z"}},
			[]string{"sessionFilter.startedFrom", "is after sessionFilter.startedTo"}},
		{ToolSearch, map[string]any{"query": "x", "sessionFilter": map[string]any{"source": "vim"}}, []string{`sessionFilter.source "vim"`, "claude-code"}},
		{ToolSearch, map[string]any{"query": "the and of"}, []string{"common words"}},
		{ToolGet, map[string]any{}, []string{"path is blank"}},
		{ToolGet, map[string]any{"path": "  "}, []string{"path is blank"}},
		{ToolGet, map[string]any{"path": "cairn://notes/db.md", "from": 0}, []string{"from 0 out of range"}},
		{ToolGet, map[string]any{"path": "cairn://notes/db.md", "lines": 0}, []string{"lines 0 out of range", "1 to 1000"}},
		{ToolGet, map[string]any{"path": "cairn://notes/db.md", "lines": 1001}, []string{"lines 1001 out of range"}},
		{ToolGet, map[string]any{"path": 7}, []string{"path", "want a string"}},
		{ToolGet, map[string]any{"path": "cairn://notes/db.md", "offset": 1}, []string{`unknown field "offset"`, "path, from, lines"}},
		{ToolSyncSessions, map[string]any{"force": "yes"}, []string{"force", "true or false"}},
		{ToolSyncSessions, map[string]any{"corpus": "x"}, []string{`unknown field "corpus"`, "force"}},
		{ToolSyncStatus, map[string]any{"verbose": true}, []string{`unknown field "verbose"`, "takes no input"}},
		{ToolDiagnostics, map[string]any{"x": 1}, []string{`unknown field "x"`}},
	}
	for _, tt := range tests {
		b, _ := json.Marshal(tt.args)
		t.Run(tt.tool+" "+string(b), func(t *testing.T) {
			text, isErr := call(t, cs, tt.tool, tt.args)
			if !isErr {
				t.Fatalf("not a tool error: %s", text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("error %q does not contain %q", text, w)
				}
			}
		})
	}
}

func TestGetTool(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	cs := connect(t, f.agent)
	var out GetOut
	callOK(t, cs, ToolGet, map[string]any{"path": " cairn://notes/db.md ", "from": 3, "lines": 1}, &out)
	want := "Set busy_timeout to 5000 ms so writers wait instead of failing.\n[continues at line 4: call memory_get with from=4]\n"
	if out.Status != "ok" || *out.Text != want || *out.From != 3 || *out.Lines != 1 {
		t.Fatalf("get db.md line 3: %+v text %q", out, *out.Text)
	}
	if out.NextFrom != 4 || out.Truncated {
		t.Errorf("nextFrom %d truncated %v, want 4 and false", out.NextFrom, out.Truncated)
	}
	// The default window is 120 lines; a long document goes on.
	out = GetOut{}
	callOK(t, cs, ToolGet, map[string]any{"path": "cairn://notes/long.md"}, &out)
	if *out.Lines != 120 || out.NextFrom != 121 || !strings.HasSuffix(*out.Text, "call memory_get with from=121]\n") {
		t.Errorf("long.md default window: lines %d nextFrom %d, text ends %q", *out.Lines, out.NextFrom, tail(*out.Text))
	}
	// 1,000 lines of 38 characters exceed 12,000 characters: truncated.
	out = GetOut{}
	callOK(t, cs, ToolGet, map[string]any{"path": "cairn://notes/long.md", "from": 10, "lines": 1000}, &out)
	if !out.Truncated || out.NextFrom != 10+*out.Lines || len(*out.Text) > 12000+100 {
		t.Errorf("long.md 1000 lines: truncated %v lines %d nextFrom %d len %d", out.Truncated, *out.Lines, out.NextFrom, len(*out.Text))
	}
}

func tail(s string) string { return s[max(0, len(s)-60):] }

// traversalPaths can only miss: Get reads indexed snapshots by exact path.
var traversalPaths = []string{
	"cairn://notes/../../../../etc/passwd",
	"cairn://notes/sub/../db.md",
	"cairn://notes/./db.md",
	"cairn://notes//db.md",
	"cairn://notes/%2e%2e/etc/passwd",
	"cairn://notes/..\\..\\etc\\passwd",
	"cairn://notes//etc/passwd",
	"cairn://notes/db.md\x00.md",
	"cairn://../notes/db.md",
	"cairn://sessions/../notes/db.md",
	"/etc/passwd",
	"file:///etc/passwd",
	"cairn://notes/missing.md",
	"cairn://other/db.md",
	"../notes/db.md",
}

func TestGetTraversalNotFound(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	cs := connect(t, f.agent)
	for _, p := range traversalPaths {
		var out GetOut
		callOK(t, cs, ToolGet, map[string]any{"path": p}, &out)
		if out.Status != "not_found" || out.Text == nil || *out.Text != "" || out.Path != p {
			t.Errorf("get %q: %+v, want status not_found, empty text", p, out)
		}
	}
}

func TestSyncSessionsTools(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true, noSync: true})
	cs := connect(t, f.agent)
	var st SyncStatusOut
	callOK(t, cs, ToolSyncStatus, map[string]any{}, &st)
	if st.Status != "idle" {
		t.Fatalf("status before any sync: %+v, want idle", st)
	}
	var started SyncSessionsOut
	callOK(t, cs, ToolSyncSessions, map[string]any{"force": true}, &started)
	if started.Status != "started" && started.Status != "already_running" || started.StartedAt == "" {
		t.Fatalf("sync sessions: %+v", started)
	}
	if err := f.agent.sessions.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	st = SyncStatusOut{}
	text := callOK(t, cs, ToolSyncStatus, nil, &st)
	if st.Status != "completed" || st.Scanned == nil || *st.Updated == 0 || st.CompletedAt == "" || st.LastSuccessfulSyncAt == "" {
		t.Fatalf("status after sync: %s", text)
	}
	// The sessions are searchable now.
	var res SearchOut
	callOK(t, cs, ToolSearch, map[string]any{"query": "token TTL", "corpora": []string{"sessions"}, "minScore": 0}, &res)
	if len(res.Results) == 0 {
		t.Errorf("no session hits after the sync")
	}
}

func TestSyncSessionsAlreadyRunning(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true, noSync: true})
	// A run this process started that the engine has not begun (it waits
	// for another sync of the index) is queued.
	cs := connect(t, f.agent)
	f.agent.sessions.mu.Lock()
	f.agent.sessions.running, f.agent.sessions.startedAt = true, "2026-01-01T00:00:00Z"
	f.agent.sessions.mu.Unlock()
	var out SyncSessionsOut
	callOK(t, cs, ToolSyncSessions, nil, &out)
	if out.Status != "already_running" || out.StartedAt != "2026-01-01T00:00:00Z" {
		t.Errorf("second sync: %+v, want already_running with the first start", out)
	}
	var st SyncStatusOut
	callOK(t, cs, ToolSyncStatus, nil, &st)
	if st.Status != "running" || st.Phase != "queued" || st.StartedAt != "2026-01-01T00:00:00Z" {
		t.Errorf("status while queued: %+v", st)
	}
	f.agent.sessions.mu.Lock()
	f.agent.sessions.running = false
	f.agent.sessions.mu.Unlock()
}

func TestSyncSessionsUnavailable(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	cs := connect(t, f.agent)
	var out SyncSessionsOut
	callOK(t, cs, ToolSyncSessions, map[string]any{}, &out)
	if out.Status != "unavailable" || !strings.Contains(out.Error, "no sessions corpus") {
		t.Errorf("sync without a sessions corpus: %+v", out)
	}
}

func TestDiagnosticsTool(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	cs := connect(t, f.agent)
	for _, q := range []string{"busy timeout", "zzzunmatched"} {
		var res SearchOut
		callOK(t, cs, ToolSearch, map[string]any{"query": q}, &res)
	}
	// A new transcript waits for the next sync.
	src := filepath.Join(f.sessRoot, "projects", "-home-dev-acme-api")
	data, err := os.ReadFile(filepath.Join(src, "7f3c2a1e-4b5d-4c6e-8f90-1a2b3c4d5e6f.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(src, "00000000-4b5d-4c6e-8f90-1a2b3c4d5e6f.jsonl"), string(data))
	var out DiagnosticsOut
	text := callOK(t, cs, ToolDiagnostics, map[string]any{}, &out)
	if out.Status != "ok" || out.Credential != "disabled" || out.Enabled.Memory {
		t.Errorf("diagnostics header: %s", text)
	}
	ix := out.Index
	if ix.Status != "" || ix.ProjectorVersion == 0 || ix.Retrieval.Mode != "lexical" || ix.Retrieval.Documents == 0 ||
		ix.SessionsNeedingProjection != 1 || ix.EmbeddingReady || ix.SemanticChunkingVersion != nil {
		t.Errorf("index: %+v", ix)
	}
	if strings.Join(ix.Scope.Corpora, ",") != "notes,sessions" || ix.Scope.Agent != "default" {
		t.Errorf("scope: %+v", ix.Scope)
	}
	ms := out.Whisperers.Telemetry["memorySearch"]
	if ms.Calls != 2 || ms.Outcomes["ok"] != 1 || ms.Outcomes["empty"] != 1 || ms.Measurements["elapsedMs"].Samples != 2 {
		t.Errorf("memorySearch telemetry: %+v", ms)
	}
	if strings.Contains(text, "busy") {
		t.Errorf("diagnostics leak query text: %s", text)
	}
}

// In lexical mode textScore is the lane's own measure, the BM25 score as
// s/(1+s), while score is the calibrated probability: the two differ.
func TestLexicalTextScoreIsTheLanes(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	cs := connect(t, f.agent)
	var out SearchOut
	callOK(t, cs, ToolSearch, map[string]any{"query": "staging cluster", "mode": "lexical", "minScore": 0}, &out)
	hits, err := f.eng.Search(context.Background(), "staging cluster", &cairn.SearchOptions{Mode: cairn.ModeLexical, Limit: DefaultMaxResults})
	if err != nil || len(hits) == 0 || len(out.Results) == 0 {
		t.Fatalf("search: %v, %d engine hits, %d tool hits", err, len(hits), len(out.Results))
	}
	sig := hits[0].Signals
	if sig == nil {
		t.Fatal("engine hit without signals")
	}
	got := out.Results[0].TextScore
	if want := round2(sig.BM25 / (1 + sig.BM25)); got == nil || *got != want {
		t.Errorf("textScore = %v, want the lane's %v (score %v)", got, want, out.Results[0].Score)
	}
}
