package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestSyncStatusSkipReasons: sessions left out by chatTypes are named with
// their reason by sync and by sync status, and a sync of a source with no
// transcript counts no failure (issue 14 item 12).
func TestSyncStatusSkipReasons(t *testing.T) {
	c := newCLI(t)
	root := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openclaw")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openclaw", "--root", "openclaw="+root)
	f, err := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("chatTypes = [\"group\"]\n")
	f.Close()
	const want = "openclaw: 1 sessions skipped: direct chats not selected"
	if out := c.ok("sync"); !strings.Contains(out, want) || strings.Contains(out, "failed:") {
		t.Errorf("sync output lacks %q or reports a failure:\n%s", want, out)
	}
	out := c.ok("sync", "status")
	if !strings.Contains(out, want) || !strings.Contains(out, ", 0 failed") {
		t.Errorf("sync status lacks %q or counts a failure:\n%s", want, out)
	}
	// JSON keys the reason by its code; the sentence is for people.
	var st struct {
		Sources []struct {
			SkipReasons map[string]int `json:"skipReasons"`
		} `json:"sources"`
	}
	if out := c.ok("sync", "status", "--json"); json.Unmarshal([]byte(out), &st) != nil || len(st.Sources) != 1 ||
		st.Sources[0].SkipReasons["direct_chats_not_selected"] != 1 {
		t.Errorf("sync status --json lacks the skip reason code:\n%s", out)
	}
	// Nothing changed: the reason stays, and the status says nothing was indexed.
	c.ok("sync")
	if out := c.ok("sync", "status"); !strings.Contains(out, want) || !strings.Contains(out, "nothing indexed: no_changes") {
		t.Errorf("second sync status:\n%s", out)
	}
	// skipped agrees with the reasons kept, and the text says the row's
	// other counts are this run's reads (ux F11: "skipped 0" beside a
	// reason counting 1).
	var again struct {
		Sources []struct {
			Skipped     int            `json:"skipped"`
			SkipReasons map[string]int `json:"skipReasons"`
		} `json:"sources"`
	}
	if out := c.ok("sync", "status", "--json"); json.Unmarshal([]byte(out), &again) != nil || len(again.Sources) != 1 ||
		again.Sources[0].Skipped != 1 || again.Sources[0].SkipReasons["direct_chats_not_selected"] != 1 {
		t.Errorf("second sync status --json: skipped and skipReasons disagree:\n%s", out)
	}
	if out := c.ok("sync", "status"); !strings.Contains(out, "no transcript changed since its last read (openclaw): skipped and its reasons are kept") ||
		!regexpLine(out, `^\s+openclaw\s+\d+\s+0\s+0\s+0\s+0\s+1\s+0\s+0$`) {
		t.Errorf("second sync status text:\n%s", out)
	}
}

// TestUnreadSourceLine: one line names the sources that read nothing
// again and show kept skip reasons; none for a source without such
// reasons (every no-op sync printed one 150-character line per source),
// or whose files all failed to open (never read; ux's re-checks of
// 2f338b6).
func TestUnreadSourceLine(t *testing.T) {
	fail := []cairn.FileFailure{{Path: "/r/conversations.jsonl", Reason: "not read: open transcript: symbolic link leads outside the source root"}}
	kept := map[string]int{"direct_chats_not_selected": 1}
	for _, c := range []struct {
		s    []cairn.SourceSyncStats
		want string
	}{
		{[]cairn.SourceSyncStats{{Source: "openai-chat", Files: 1, Failed: 1, Failures: fail, Skipped: 1, SkipReasons: kept}}, ""},
		{[]cairn.SourceSyncStats{{Source: "openai-chat", Files: 2, Failed: 1, Failures: fail, Skipped: 1, SkipReasons: kept}}, "(openai-chat)"},
		{[]cairn.SourceSyncStats{{Source: "codex", Files: 2}, {Source: "aider", Files: 1}}, ""},
		{[]cairn.SourceSyncStats{{Source: "codex", Files: 2}, {Source: "openclaw", Files: 1, Skipped: 1, SkipReasons: kept},
			{Source: "gemini", Files: 3, Skipped: 2, SkipReasons: map[string]int{"empty_session": 2}}}, "(openclaw, gemini)"},
		{[]cairn.SourceSyncStats{{Source: "openclaw", Files: 2, FilesChanged: 1, Skipped: 1, SkipReasons: kept}}, ""},
		{[]cairn.SourceSyncStats{{Source: "openai-chat"}}, ""},
	} {
		var out bytes.Buffer
		printSources(&env{stdout: &out, stderr: &out}, c.s)
		n := strings.Count(out.String(), "no transcript changed since its last read")
		if c.want == "" && n != 0 || c.want != "" && (n != 1 || !strings.Contains(out.String(), "no transcript changed since its last read "+c.want+":")) {
			t.Errorf("%+v: %d lines, want %q:\n%s", c.s, n, c.want, out.String())
		}
	}
}
