package whisper

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/local"
	wt "github.com/cairnmemory/cairn/whisper/whispertest"
)

// TestSearchLanes: judged search takes candidates from both lanes (the
// vector lane brings a passage the keywords miss), merges a passage both
// lanes bring into one judgment, skips a chunk over 1,200 characters
// (never cut), embeds the query once, and ranks by the judged score.
func TestSearchLanes(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"fence.md":  "# Fence\n\nWe settled on cedar boards for the garden fence.\n",
		"posts.md":  "# Posts\n\nThe fence posts stand in concrete footings two metres apart.\n",
		"long.md":   "# Long\n\n" + strings.Repeat("cedar fence boards stained grey again ", 40) + "\n",
		"lunch.md":  "# Lunch\n\nSoup on Mondays.\n",
		"backup.md": "# Backup\n\nNightly backups are kept for thirty days.\n",
	}
	for name, text := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600)
	}
	emb := &wt.WordEmbedder{}
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir(), Embedder: emb,
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{dir}, Glob: cairn.DefaultGlob}}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	fj := wt.NewJudge(t, func(c wt.Call) wt.Verdict {
		switch ex := wt.Excerpt(c); {
		case strings.Contains(ex, "cedar"):
			return wt.Verdict{P: 0.9}
		case strings.Contains(ex, "concrete"):
			return wt.Verdict{P: 0.75}
		}
		return wt.Verdict{P: 0.1}
	})
	j, err := judge.FromConfig(config.Judge{LLM: config.LLM{API: "openai", BaseURL: fj.URL, Model: "judge-m"}, From: "llm.judge"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Cache = nil
	before := emb.QueryCount()
	res, err := Search(ctx, EngineRetriever{Engine: eng}, j, &SearchRequest{BM25Query: `"cedar boards"`,
		VectorQuery: "fence posts concrete footings", MinUsefulness: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	if n := emb.QueryCount() - before; n != 1 {
		t.Errorf("%d query embeddings, want 1", n)
	}
	var paths []string
	for _, r := range res.Results {
		paths = append(paths, r.Path)
	}
	if strings.Join(paths, ",") != "cairn://notes/fence.md,cairn://notes/posts.md" {
		t.Errorf("results %v, want fence (0.9) then posts (0.75, the vector lane's)", paths)
	}
	judged := map[string]int{}
	for _, c := range fj.ByRubric(judge.MemoryUsefulness.ID) {
		cands := c.State["candidates"].([]any)
		judged[cands[0].(map[string]any)["sourcePath"].(string)]++
	}
	for p, n := range judged {
		if n != 1 {
			t.Errorf("%s judged %d times, want once", p, n)
		}
	}
	if judged["cairn://notes/long.md"] != 0 {
		t.Error("a passage over 1,200 characters was judged")
	}
	if res.Eligible != len(judged) || res.Candidates <= res.Eligible-1 {
		t.Errorf("candidates %d eligible %d judged %d", res.Candidates, res.Eligible, len(judged))
	}
}

// TestSearchMemoriesNotYet: a whisperer configured with the memories
// corpus searches the others while the engine has no memories corpus yet.
func TestSearchMemoriesNotYet(t *testing.T) {
	eng := newEngine(t)
	lex, _, err := EngineRetriever{Engine: eng}.Lanes(context.Background(), LaneQuery{Lex: "busy_timeout", Corpora: []string{cairn.MemoriesCorpus, "notes"}, Limit: 10})
	if err != nil || len(lex) == 0 || lex[0].Path != "cairn://notes/db.md" {
		t.Fatalf("lanes %v, %v", lex, err)
	}
	lex, _, err = EngineRetriever{Engine: eng}.Lanes(context.Background(), LaneQuery{Lex: "busy_timeout", Corpora: []string{cairn.MemoriesCorpus}, Limit: 10})
	if err != nil || len(lex) != 0 {
		t.Fatalf("memories alone: %v, %v", lex, err)
	}
}
