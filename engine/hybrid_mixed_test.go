package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// topicEmbedder is a fake whose words map to topic buckets: "timeout"
// and "5000" share their buckets with "ttl", "expiry" and "token", so a
// session turn about a token's lifetime lands near the query "timeout
// 5000" without holding either word. Other words hash to buckets of their
// own.
type topicEmbedder struct{}

var topics = map[string]int{
	"timeout": 0, "ttl": 0, "expiry": 0, "expires": 0, "lifetime": 0,
	"5000": 1, "token": 1, "tokens": 1, "session": 1,
	"garden": 2, "tomatoes": 2, "compost": 2,
}

func (topicEmbedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "fake", Model: "topics", Dimension: 24, Normalized: true}
}

func (topicEmbedder) Embed(_ context.Context, _ string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = bagOfWords(t, topics, 24, true)
	}
	return out, nil
}

// mixedFixture is a notes corpus and a sessions corpus in one engine with
// topicEmbedder: notes/deploy.md is the one document holding "timeout"
// and "5000"; three sessions of several turns talk about a token's
// lifetime in words the embedder puts near them and the lexical lane
// does not match.
func mixedFixture(t *testing.T) *Engine {
	t.Helper()
	notes := t.TempDir()
	files := map[string]string{
		"deploy.md":  "# Deploy\n\nSet timeout 5000 in deploy.yaml before the rollout, then restart the web workers and watch the error logs for a while.\n",
		"garden.md":  "# Garden\n\nThe tomatoes need compost and water twice a week in summer.\n",
		"meeting.md": "# Meeting\n\nWe agreed to move the search service next quarter; Bob writes the plan.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(notes, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := Open(context.Background(), Options{Dir: t.TempDir(), Embedder: topicEmbedder{}, Corpora: []cairn.Corpus{
		{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob},
		{Name: "sessions", Kind: cairn.KindSessions},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	ctx := context.Background()
	at := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	var sessions []cairn.Session
	for i, turns := range [][]string{
		{"the token ttl expires too soon", "token lifetime: the ttl expiry is one second", "raise the token ttl to one minute"},
		{"session token expiry in the login test", "the token ttl and its expiry again", "tokens expire: ttl lifetime"},
		{"why does the session token expire", "the expiry of the token is its ttl", "a longer token lifetime"},
	} {
		s := cairn.Session{Source: cairn.SourceCodex, ID: fmt.Sprintf("s%d", i), StartedAt: at}
		for j, text := range turns {
			role := cairn.RoleUser
			if j%2 == 1 {
				role = cairn.RoleAssistant
			}
			s.Messages = append(s.Messages, cairn.Message{Role: role, Text: text, Time: at.Add(time.Duration(j) * time.Minute)})
		}
		sessions = append(sessions, s)
	}
	if _, err := eng.ImportSessions(ctx, "sessions", "fixture", sessions); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return eng
}

// TestHybridMixedLexicalFirst: over a notes corpus and a sessions corpus,
// the one note holding every word of the query comes first in hybrid mode
// whatever the limit, above session turns only the vector lane found and
// that the session lift and the neighbours' share lift (a new user's
// 'timeout 5000': three such turns at 0.99 above notes/deploy.md, and no
// results at all with --limit 1 to 3); a smaller limit gives the first hits
// of a larger one with the same scores; and no hit that holds none of the
// query's words has its score raised by a hit ranked below it.
func TestHybridMixedLexicalFirst(t *testing.T) {
	eng := mixedFixture(t)
	ctx := context.Background()
	search := func(query string, limit int) []cairn.Hit {
		t.Helper()
		hits, err := eng.Search(ctx, query, &cairn.SearchOptions{Limit: limit, Mode: cairn.ModeHybrid, MinScore: cairn.DefaultMinScore, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	show := func(hits []cairn.Hit) string {
		var b strings.Builder
		for _, h := range hits {
			fmt.Fprintf(&b, "\n  %.4f %s:%d %s", h.Score, h.Path, h.StartLine, strings.Join(h.Explain, " | "))
		}
		return b.String()
	}
	// The vector lane must find the turns, and rank them above the note,
	// for this test to test anything.
	vec, err := eng.Search(ctx, "timeout 5000", &cairn.SearchOptions{Limit: 10, Mode: cairn.ModeVector})
	if err != nil {
		t.Fatal(err)
	}
	if len(vec) < 2 || vec[0].Corpus != "sessions" {
		t.Fatalf("fixture: the vector lane's first hit is not a session turn:%s", show(vec))
	}
	all := search("timeout 5000", 10)
	if len(all) == 0 || all[0].Path != "cairn://notes/deploy.md" {
		t.Fatalf("limit 10: first hit is not notes/deploy.md:%s", show(all))
	}
	if !strings.Contains(strings.Join(all[0].Explain, " "), "a file, placed by its score before the session and neighbour lifts") {
		t.Errorf("limit 10: notes/deploy.md's explanation does not say it kept its place: %s", strings.Join(all[0].Explain, " | "))
	}
	for _, h := range all {
		lexical := h.TextScore != nil || h.Signals != nil && h.Signals.Held > 0
		for _, e := range h.Explain {
			if !lexical && strings.Contains(e, "raised from") {
				t.Errorf("limit 10: %s:%d holds no query word and was raised by a hit below: %s", h.Path, h.StartLine, e)
			}
		}
	}
	// A smaller limit: the first hits of limit 10, with their scores. The
	// other queries are ones whose order or scores moved with the lanes'
	// depth when the lanes were cut to the limit.
	for _, q := range []string{"timeout 5000", "session timeout", "the token", "lifetime of workers"} {
		all := search(q, 10)
		for limit := 1; limit <= 5; limit++ {
			got := search(q, limit)
			if len(got) == 0 {
				t.Errorf("%q limit %d: no results", q, limit)
				continue
			}
			for i, h := range got {
				if i >= len(all) || h.Path != all[i].Path || h.StartLine != all[i].StartLine || h.Score != all[i].Score {
					t.Errorf("%q limit %d: hits are not the first of limit 10's:%s\nlimit 10:%s", q, limit, show(got), show(all))
					break
				}
			}
		}
	}
}

// TestKeepFileSlots: the passes that lift turns alone reorder turns
// among turns; files keep the places their scores before those passes
// gave them; a list of turns alone, or of files alone, keeps its order.
func TestKeepFileSlots(t *testing.T) {
	// Sorted by final score; "s" paths are sessions (one unit a turn), "f"
	// paths files.
	unit := func(path string, line int, base, score float64) fused {
		return fused{hit: cairn.Hit{Path: path, StartLine: line}, base: base, score: score, file: strings.HasPrefix(path, "f")}
	}
	key := func(h cairn.Hit) string {
		if strings.HasPrefix(h.Path, "s") {
			return fmt.Sprintf("%s#%d", h.Path, h.StartLine)
		}
		return h.Path
	}
	order := func(us []fused) string {
		var b []string
		for _, u := range us {
			b = append(b, key(u.hit))
		}
		return strings.Join(b, " ")
	}
	mixed := []fused{
		unit("s1", 1, 0.4, 1.3), // lifted past the file
		unit("s1", 5, 0.3, 1.1),
		unit("f1", 1, 1.0, 1.0),
		unit("s2", 1, 0.5, 0.9),
		unit("f2", 1, 0.2, 0.2),
	}
	keepFileSlots(mixed)
	// Before the lifts: f1 1.0, s2 0.5, s1#1 0.4, s1#5 0.3, f2 0.2: the
	// places of files are 1 and 5; turns fill 2 to 4 in their lifted order.
	if got, want := order(mixed), "f1 s1#1 s1#5 s2#1 f2"; got != want {
		t.Errorf("mixed: %s, want %s", got, want)
	}
	for i, want := range []bool{true, true, true, false, false} {
		if mixed[i].moved != want {
			t.Errorf("mixed: %s moved %v, want %v", key(mixed[i].hit), mixed[i].moved, want)
		}
	}
	turns := []fused{unit("s1", 1, 0.1, 1.3), unit("s2", 1, 0.9, 1.0), unit("s1", 5, 0.5, 0.8)}
	keepFileSlots(turns)
	if got, want := order(turns), "s1#1 s2#1 s1#5"; got != want || turns[0].moved || turns[1].moved || turns[2].moved {
		t.Errorf("turns alone: %s, want %s, none moved", got, want)
	}
	files := []fused{unit("f1", 1, 0.1, 0.9), unit("f2", 1, 0.9, 0.5)}
	keepFileSlots(files)
	if got, want := order(files), "f1 f2"; got != want {
		t.Errorf("files alone: %s, want %s", got, want)
	}
}
