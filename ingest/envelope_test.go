package ingest

import (
	"os"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

const ocEnvelopeFile = ocFixtureRoot + "/agents/main/sessions/8c2e4a6b-1d3f-4e5a-9b7c-0d1e2f3a4b5c.jsonl"

// TestOpenClawEnvelopes reads the envelope fixture: a file and a media
// attachment cleaned, a sub-agent's announce with trusted provenance
// unwrapped into a generated message, the same text pasted by the person,
// a code example, an unclosed file and an unknown task layout left intact.
func TestOpenClawEnvelopes(t *testing.T) {
	data, err := os.ReadFile(ocEnvelopeFile)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := ParseOpenClaw(data, ParseOptions{Path: ocEnvelopeFile})
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	ocGolden(t, "envelopes.json", s)
	want := cairn.EnvelopeCounts{InternalMessagesCleaned: 1, AttachmentsCleaned: 2}
	if s.Stats.Envelopes != want {
		t.Errorf("counts %+v, want %+v", s.Stats.Envelopes, want)
	}
	// Hidden-source rule: what only the file held is nowhere; the child's
	// result is a generated message, not the person's.
	for _, m := range s.Messages {
		if strings.Contains(m.Text, "rent,1200") || strings.Contains(m.Text, "streaming bundle,45") {
			t.Errorf("file contents projected in %s: %q", m.ID, m.Text)
		}
		if m.ID == "e0003" && (m.Kind != cairn.KindSummary || m.Speaker != "") {
			t.Errorf("task announce: kind %q speaker %q, want a generated summary", m.Kind, m.Speaker)
		}
	}
	if got := s.Messages[2].Text; got != "Task compare-energy-tariffs: completed successfully\nResult (untrusted content):\nTariff B is 8% cheaper for our usage; switching needs 30 days notice." {
		t.Errorf("unwrapped task %q", got)
	}
	if got := s.Messages[4].Text; !strings.Contains(got, taskBegin) || s.Messages[4].Kind != cairn.KindText {
		t.Errorf("pasted envelope without provenance changed: %q", got)
	}
}

func TestCleanInternalTask(t *testing.T) {
	trusted := Provenance{Kind: "inter_session", SourceTool: "subagent_announce"}
	full := taskHeader + "\ntask: t1\nstatus: failed\n" + taskResultLabel + "\n" + taskBegin + "\nboom\n" + taskEnd + "\nTell the user."
	tests := []struct {
		name string
		text string
		prov Provenance
		want string // "" means unchanged
		skip int
	}{
		{"trusted", full, trusted, "Task t1: failed\nResult (untrusted content):\nboom", 0},
		{"harness task", full, Provenance{Kind: "inter_session", SourceTool: "agent_harness_task"}, "Task t1: failed\nResult (untrusted content):\nboom", 0},
		{"no provenance", full, Provenance{}, "", 0},
		{"other tool", full, Provenance{Kind: "inter_session", SourceTool: "sessions_send"}, "", 0},
		{"other kind", full, Provenance{Kind: "user", SourceTool: "subagent_announce"}, "", 0},
		{"not closed", strings.Replace(full, taskEnd, "", 1), trusted, "", 0},
		{"nested", strings.Replace(full, "boom", taskBegin+"\nboom", 1), trusted, "", 0},
		{"no status", strings.Replace(full, "status: failed\n", "", 1), trusted, "", 0},
		{"unknown layout", taskHeader + "\nresult: fine", trusted, "", 0},
		{"over budget", full + strings.Repeat("x", envelopeMaxBytes), trusted, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c cairn.EnvelopeCounts
			got, ok := CleanInternalTask(tt.text, tt.prov, &c)
			want := tt.want
			if want == "" {
				want = tt.text
			}
			if got != want || ok != (tt.want != "") {
				t.Errorf("got %q, %v; want %q", got, ok, want)
			}
			if c.AttachmentBudgetSkipped != tt.skip || c.InternalMessagesCleaned != map[bool]int{true: 1}[ok] {
				t.Errorf("counts %+v", c)
			}
		})
	}
}

func TestCleanAttachments(t *testing.T) {
	file := func(body string) string { return "<file name=\"a.txt\" mime=\"text/plain\">\n" + body + "\n</file>" }
	const line = "[attachment: a.txt (text/plain); untrusted content not shown]"
	deep := "secret"
	for range envelopeMaxDepth {
		deep = file(deep)
	}
	many := strings.Repeat(file("x")+"\n", envelopeMaxCount+1)
	tests := []struct {
		name    string
		text    string
		want    string // "" means unchanged
		cleaned int
		skipped int
	}{
		{"file", "look:\n" + file("secret"), "look:\n" + line, 1, 0},
		{"windows path in media", `[media attached 1/2: C:\Users\d\scan.pdf (application/pdf)]`, "[attachment: scan.pdf (application/pdf); untrusted content not shown]", 1, 0},
		{"media without type", "[media attached: /tmp/x]", "[attachment: x; untrusted content not shown]", 1, 0},
		{"nested within budget", file(file("secret")), line, 1, 0},
		{"nested too deep", file(deep), "", 0, 1},
		{"code example", "```xml\n" + file("example") + "\n```", "", 0, 0},
		{"not closed", "<file name=\"a.txt\">\nsecret", "", 0, 0},
		{"unquoted attribute", "<file name=a.txt>\nsecret\n</file>", "", 0, 0},
		{"unknown tag", "<document name=\"a.txt\">\nsecret\n</document>", "", 0, 0},
		{"inline mention", "I wrote <file name=\"a\"> in the docs", "", 0, 0},
		{"too many", many, "", 0, 1},
		{"oversized", file(strings.Repeat("y", envelopeMaxBytes)), "", 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c cairn.EnvelopeCounts
			got := CleanAttachments(tt.text, &c)
			want := tt.want
			if want == "" {
				want = tt.text
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if c.AttachmentsCleaned != tt.cleaned || c.AttachmentBudgetSkipped != tt.skipped {
				t.Errorf("counts %+v, want %d cleaned, %d skipped", c, tt.cleaned, tt.skipped)
			}
		})
	}
}

// FuzzCleanEnvelopes checks that cleaning never panics, never adds lines,
// and is done in one pass (cleaning its output changes nothing).
func FuzzCleanEnvelopes(f *testing.F) {
	f.Add("<file name=\"a\" mime=\"b/c\">\nx\n</file>\ntail", false)
	f.Add("```\n<file name=\"a\">\n</file>\n```\n[media attached: /a/b.png (image/png) | u]", false)
	f.Add(taskHeader+"\ntask: t\nstatus: ok\n"+taskResultLabel+"\n"+taskBegin+"\nr\n"+taskEnd, true)
	f.Fuzz(func(t *testing.T, text string, trusted bool) {
		var c cairn.EnvelopeCounts
		p := Provenance{}
		if trusted {
			p = Provenance{Kind: "inter_session", SourceTool: "subagent_announce"}
		}
		if out, ok := CleanInternalTask(text, p, &c); ok && !trusted || !ok && out != text {
			t.Fatalf("task cleaned without provenance or changed when refused: %q", out)
		}
		out := CleanAttachments(text, &c)
		if strings.Count(out, "\n") > strings.Count(text, "\n") {
			t.Fatalf("lines added: %q -> %q", text, out)
		}
		if again := CleanAttachments(out, &c); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", text, out, again)
		}
	})
}
