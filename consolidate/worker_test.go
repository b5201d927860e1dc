package consolidate_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/sqlite"
	"github.com/google/go-cmp/cmp"
)

// TestCrashBetweenWindows kills a consolidating process (a child test
// binary) while it waits for its second window's answer, then resumes:
// the first window's memories are there, the rest is pending, and the
// rerun completes without duplicates.
func TestCrashBetweenWindows(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	f := newFixture(t, shopSession(), longSession())
	proc := make(chan *os.Process, 1)
	killed := make(chan struct{})
	srv := newWireServer(t, "openai", nil)
	srv.setFault(func(n int, w http.ResponseWriter, r *http.Request) bool {
		if n == 2 { // window 1 (the shop's main window) is committed by now
			(<-proc).Kill()
			close(killed)
			<-r.Context().Done()
			return true
		}
		return false
	})
	child := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	child.Env = append(os.Environ(), "CAIRN_CRASH_DIR="+f.dir, "CAIRN_CRASH_URL="+srv.URL)
	var out strings.Builder
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	proc <- child.Process
	err := child.Wait()
	select {
	case <-killed:
	default:
		t.Fatalf("the child was not killed (%v):\n%s", err, out.String())
	}
	dry := f.run(nil, &cairn.ConsolidateOptions{DryRun: true})
	if dry.Pending != 4 || dry.Windows != 3 {
		t.Errorf("after the crash: %d pending in %d windows, want 4 records (the shop's observations pass and the long record) in 3 windows", dry.Pending, dry.Windows)
	}
	if n := len(f.memories()); n != 4 {
		t.Errorf("after the crash: %d memories, want the first window's 4", n)
	}
	good := newWireServer(t, "openai", nil)
	res := f.run(client("openai", good.URL, 10*time.Second), nil)
	if res.Windows != 3 || res.Pending != 0 {
		t.Errorf("resumed run: %+v", counts(res))
	}
	checkComplete(t, f)
}

// TestCrashChild is the process TestCrashBetweenWindows kills.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("CAIRN_CRASH_DIR")
	if dir == "" {
		t.Skip("run by TestCrashBetweenWindows")
	}
	f := &fixture{t: t, dir: dir}
	f.open()
	f.run(client("openai", os.Getenv("CAIRN_CRASH_URL"), time.Minute), nil)
	t.Log("finished without being killed")
}

// TestCancelBetweenWindows: a run cancelled after its first window keeps
// that window and nothing else; the next run finishes the rest.
func TestCancelBetweenWindows(t *testing.T) {
	f := newFixture(t, shopSession(), longSession())
	ctx, cancel := context.WithCancel(context.Background())
	model := &scripted{}
	model.fn = func(n int, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
		if n == 2 {
			cancel()
			return nil, ctx.Err()
		}
		return &cairn.LLMResponse{Text: script(req.System, req.Prompt)}, nil
	}
	_, err := f.eng.Consolidate(ctx, model, nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v, want context.Canceled", err)
	}
	if n := len(f.memories()); n != 4 {
		t.Errorf("%d memories after the cancel, want the first window's 4", n)
	}
	f.run(&scripted{}, nil)
	checkComplete(t, f)
}

// forgetful hides the checkpoint, so every window is consolidated again.
type forgetful struct{ cairn.MemoryStore }

func (forgetful) DoneRecords(context.Context, string, string, string) (map[string]cairn.DoneRecord, error) {
	return map[string]cairn.DoneRecord{}, nil
}

// TestSameWindowTwice: consolidating windows again stores no duplicate.
func TestSameWindowTwice(t *testing.T) {
	f := newFixture(t, shopSession(), longSession())
	f.run(&scripted{}, nil)
	before := f.memories()
	w := consolidate.New(&scripted{}, f.eng.Store(), forgetful{f.eng.Store()}, "sessions")
	res, err := w.Run(context.Background(), nil)
	if err != nil || res.Windows != 4 {
		t.Fatalf("second pass: %+v, %v", res, err)
	}
	after := f.memories()
	if len(after) != len(before) {
		t.Errorf("%d memories after consolidating the same windows again, want %d", len(after), len(before))
	}
	for i := range after {
		if after[i].ID != before[i].ID || !after[i].CreatedAt.Equal(before[i].CreatedAt) {
			t.Errorf("memory %d: %s created %v, was %s created %v", i, after[i].ID, after[i].CreatedAt, before[i].ID, before[i].CreatedAt)
		}
	}
}

// TestDryRunAndLimit: a dry run plans windows and calls no model; --limit
// caps the windows of a run and pending counts the rest.
func TestDryRunAndLimit(t *testing.T) {
	f := newFixture(t, shopSession(), longSession())
	model := &scripted{}
	dry := f.run(model, &cairn.ConsolidateOptions{DryRun: true})
	if len(model.reqs) != 0 {
		t.Errorf("a dry run called the model %d times", len(model.reqs))
	}
	var parts []int
	for _, w := range dry.Plan {
		if w.Chars <= 0 || w.Tokens <= 0 || w.Tokens >= w.Chars {
			t.Errorf("window %+v: want characters and a smaller token estimate", w)
		}
		parts = append(parts, w.Parts)
	}
	if d := cmp.Diff([]int{1, 1, 3, 12}, parts); d != "" || dry.Windows != 4 || dry.Pending != 4 || dry.Threads != 2 {
		t.Errorf("dry run %+v, parts (-want +got):\n%s", counts(dry), d)
	}
	for _, want := range []struct{ windows, pending int }{{1, 4}, {1, 1}, {1, 1}, {1, 0}, {0, 0}} {
		res := f.run(model, &cairn.ConsolidateOptions{Limit: 1})
		if res.Windows != want.windows || res.Pending != want.pending {
			t.Errorf("--limit 1: %d windows, %d pending; want %d, %d", res.Windows, res.Pending, want.windows, want.pending)
		}
	}
	checkComplete(t, f)
}

// TestObservationsApart: observations are read in small windows, each
// with the text just before it as context; what the model cites only from
// the context is dropped.
func TestObservationsApart(t *testing.T) {
	f := newFixture(t, shopSession())
	cite := regexp.MustCompile(`=== Record (\d+) ·`)
	model := &scripted{}
	model.fn = func(n int, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
		if !strings.HasPrefix(req.System, "You read one small window") {
			return &cairn.LLMResponse{Text: `{"segment_summary":"","episodes":[],"items":[]}`}, nil
		}
		_, records, _ := strings.Cut(req.Prompt, "--- End of context ---")
		if records == "" {
			records = req.Prompt
		}
		var num int
		fmt.Sscan(cite.FindStringSubmatch(records)[1], &num)
		return &cairn.LLMResponse{Text: mustJSON(map[string]any{"observations": []any{
			obsJSON(fmt.Sprintf("Observation from record %d of the shop thread.", num), "shop", "", "done", []int{num}, nil, nil),
			obsJSON(fmt.Sprintf("Observation from the context record %d of the shop thread.", num-1), "shop", "", "done", []int{num - 1}, nil, nil),
		}})}, nil
	}
	tune := &engine.ConsolidateOptions{Tune: func(w *consolidate.Worker) { w.ObservationWindowChars, w.ObservationPartChars = 520, 400 }}
	res, err := f.eng.Consolidate(context.Background(), model, nil, tune)
	if err != nil {
		t.Fatal(err)
	}
	var obs []*cairn.LLMRequest
	for _, r := range model.reqs {
		if r.SchemaName == "cairn_observations" {
			obs = append(obs, r)
			if r.MaxTokens != consolidate.DefaultObservationMaxTokens {
				t.Errorf("observations window budget %d, want %d", r.MaxTokens, consolidate.DefaultObservationMaxTokens)
			}
		}
	}
	if len(obs) != 3 {
		t.Fatalf("%d observations windows, want one per record", len(obs))
	}
	for i, r := range obs {
		if has := strings.Contains(r.Prompt, "--- Context:"); has != (i > 0) {
			t.Errorf("observations window %d: context %v", i+1, has)
		}
	}
	if res.Observations != 3 || res.Dropped[consolidate.DropObservationNoSource] != 3 {
		t.Errorf("%d observations kept, dropped %v; want 3 kept and the 3 citing context dropped", res.Observations, res.Dropped)
	}
}

// fakeSessions serves one thread whose text was never redacted.
type fakeSessions struct{ text string }

func (s fakeSessions) SessionsOf(context.Context, string, string) ([]cairn.SessionRecord, error) {
	return []cairn.SessionRecord{{Corpus: "sessions", Path: "x/raw.md", StartedAt: at(4, 9, 0),
		Info: cairn.SessionInfo{SessionID: "raw", Source: "codex", Title: "Raw"}}}, nil
}

func (s fakeSessions) DocumentText(context.Context, string, string) (string, error) {
	return s.text, nil
}

// TestPromptRedaction: whatever the store holds, a secret in a record
// never reaches the model.
func TestPromptRedaction(t *testing.T) {
	st := sqlite.New(filepath.Join(t.TempDir(), "index.db"), "test")
	if err := st.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	secret := "AKIA" + "Z7Q2K4M8N6P3R5T1"
	text := "# Transcript\n\n## User — Dana — 2026-05-04 09:00:00 UTC\n\nUse aws key " + secret + " for the upload.\n"
	model := &scripted{}
	w := consolidate.New(model, fakeSessions{text}, st, "sessions")
	if _, err := w.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if len(model.reqs) == 0 {
		t.Fatal("no request sent")
	}
	for _, r := range model.reqs {
		if strings.Contains(r.Prompt, secret) || !strings.Contains(r.Prompt, "[REDACTED:") {
			t.Errorf("prompt not redacted:\n%s", r.Prompt)
		}
	}
}

// TestLongRecordSecretAcrossParts: a private key block that straddles two
// parts of a long record is redacted whole, not half in each part.
func TestLongRecordSecretAcrossParts(t *testing.T) {
	st := sqlite.New(filepath.Join(t.TempDir(), "index.db"), "test")
	if err := st.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	body := strings.Repeat("MIIEowIBAAKCAQEA7bq9", 3)
	pem := "-----BEGIN " + "RSA PRIVATE KEY-----\n" + body + "\n" + body + "\n" + body + "\n-----END RSA PRIVATE KEY-----\n"
	head := "# Transcript\n\n## User — Dana — 2026-05-04 09:00:00 UTC\n\nKeep this key safe:\n"
	line := strings.Repeat("filler words for a long record ", 2) + "\n" // 63 characters
	var b strings.Builder
	b.WriteString(head)
	for b.Len() < consolidate.DefaultPartChars-len(head)/2 {
		b.WriteString(line)
	}
	b.WriteString(pem)
	for range 200 {
		b.WriteString(line)
	}
	model := &scripted{}
	w := consolidate.New(model, fakeSessions{b.String()}, st, "sessions")
	if _, err := w.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if len(model.reqs) < 2 {
		t.Fatalf("%d requests: the record should be read in parts", len(model.reqs))
	}
	for i, r := range model.reqs {
		if strings.Contains(r.Prompt, "MIIEowIBAAKCAQEA7bq9") || strings.Contains(r.Prompt, "END RSA PRIVATE KEY") {
			t.Errorf("request %d carries part of the key", i+1)
		}
	}
}
