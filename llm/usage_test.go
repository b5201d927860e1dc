package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/llm/internal/llmtest"
	"github.com/cairnmemory/cairn/llm/internal/wire"
)

func TestCounting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent", UsageFile)
	u, err := OpenUsage(path)
	if err != nil {
		t.Fatal(err)
	}
	answers := []error{
		nil,
		&wire.Spent{Err: &cairn.InvalidOutputError{Reason: "cut", Raw: "{"}, TokensIn: 30, TokensOut: 40},
		&cairn.InvalidOutputError{Reason: "unreadable"},
		fmt.Errorf("complete chat: %w", cairn.ErrBusy),
		cairn.Invalidf("schema name %q", "x y"),
	}
	var i int
	model := Counting(fakeLLM(func(req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
		err := answers[i%len(answers)]
		i++
		if err != nil {
			return nil, err
		}
		return &cairn.LLMResponse{Text: "ok", TokensIn: 100, TokensOut: 10}, nil
	}), u)
	for _, purpose := range []string{cairn.PurposeConsolidate, cairn.PurposeConsolidate, cairn.PurposeConsolidate, cairn.PurposeConsolidate, cairn.PurposeConsolidate, cairn.PurposeFast, ""} {
		model.Complete(context.Background(), &cairn.LLMRequest{Purpose: purpose})
	}
	want := map[string]Totals{
		"consolidate": {Calls: 3, Invalid: 2, TokensIn: 130, TokensOut: 50},
		"fast":        {Calls: 1, TokensIn: 100, TokensOut: 10},
		"unspecified": {Calls: 1, Invalid: 1, TokensIn: 30, TokensOut: 40},
	}
	if d := cmp.Diff(want, u.Totals()); d != "" {
		t.Errorf("totals (-want +got):\n%s", d)
	}
	// Saved after every answer: a second process reading the file sees it all.
	other, err := OpenUsage(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, other.Totals()); d != "" {
		t.Errorf("file totals (-want +got):\n%s", d)
	}
	var file map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &file); err != nil || file["version"] != 1.0 || file["updated"] == "" {
		t.Errorf("file %s: %v", data, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
}

// Two Usage values on one file (two processes) add up instead of
// overwriting each other, also when saving concurrently.
func TestUsageMergesAcrossWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), UsageFile)
	a, _ := OpenUsage(path)
	b, _ := OpenUsage(path)
	var wg sync.WaitGroup
	for _, u := range []*Usage{a, b} {
		wg.Go(func() {
			for range 20 {
				u.Add(cairn.PurposeFast, Totals{Calls: 1, TokensIn: 2, TokensOut: 3})
				if err := u.Flush(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	c, err := OpenUsage(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]Totals{"fast": {Calls: 40, TokensIn: 80, TokensOut: 120}}, c.Totals()); d != "" {
		t.Errorf("totals (-want +got):\n%s", d)
	}
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left: %v", err)
	}
}

func TestUsageFileErrors(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"corrupt.json": `{"purposes":`, "future.json": `{"version":2,"purposes":{}}`} {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600)
		if _, err := OpenUsage(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A failed save keeps the counts pending for the next Flush.
	blocked := filepath.Join(dir, "blocked")
	u, _ := OpenUsage(filepath.Join(blocked, UsageFile))
	os.WriteFile(blocked, nil, 0o600) // a file where the folder should be
	u.Add("fast", Totals{Calls: 1})
	if err := u.Flush(); err == nil {
		t.Fatal("Flush into a file path succeeded")
	}
	os.Remove(blocked)
	if err := u.Flush(); err != nil {
		t.Fatal(err)
	}
	again, _ := OpenUsage(filepath.Join(blocked, UsageFile))
	if again.Totals()["fast"].Calls != 1 {
		t.Errorf("totals %+v", again.Totals())
	}
	// An empty path counts in memory only.
	mem, _ := OpenUsage("")
	mem.Add("fast", Totals{Calls: 1})
	if err := mem.Flush(); err != nil || mem.Totals()["fast"].Calls != 1 {
		t.Errorf("in memory: %v %+v", err, mem.Totals())
	}
}

// Counting a client from New counts under the table's purpose when the
// request names none.
func TestCountingNewClient(t *testing.T) {
	f := llmtest.New(t, llmtest.Step{Body: chatOK})
	model, err := New(config.LLM{API: "openai", BaseURL: f.URL, Model: "m"}, cairn.PurposeFast, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := OpenUsage("")
	if _, err := Counting(model, u).Complete(context.Background(), &cairn.LLMRequest{Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]Totals{"fast": {Calls: 1, TokensIn: 20, TokensOut: 5}}, u.Totals()); d != "" {
		t.Errorf("totals (-want +got):\n%s", d)
	}
}
