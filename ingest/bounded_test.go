package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

func readBounded(t *testing.T, data []byte, path string) BoundedData {
	t.Helper()
	bd, err := ReadTranscript(bytes.NewReader(data), path)
	if err != nil {
		t.Fatalf("ReadTranscript: %v", err)
	}
	return bd
}

// TestReadTranscriptCutsLongStrings: a string over MaxStringBytes is cut
// there, wherever the cut falls (inside an escape, a \u sequence or a UTF-8
// character), and every line stays valid JSON whose text starts like the
// original; short lines pass unchanged.
func TestReadTranscriptCutsLongStrings(t *testing.T) {
	short := `{"type":"user","message":{"content":"short \"quoted\" text é"}}`
	for k := range 12 {
		long := strings.Repeat("a", MaxStringBytes-k) + `\u00e9\"é€` + strings.Repeat(`x\\y`, 20000)
		line := `{"type":"user","message":{"content":"` + long + `"},"n":1}`
		bd := readBounded(t, []byte(short+"\n"+line+"\n"+short+"\n"), "s.jsonl")
		lines := strings.Split(strings.TrimSuffix(string(bd.Data), "\n"), "\n")
		if len(lines) != 3 || lines[0] != short || lines[2] != short {
			t.Fatalf("k=%d: lines %q", k, lines)
		}
		var got, want struct {
			Message struct{ Content string }
			N       int
		}
		if err := json.Unmarshal([]byte(lines[1]), &got); err != nil {
			t.Fatalf("k=%d: cut line is not valid JSON: %v", k, err)
		}
		json.Unmarshal([]byte(line), &want)
		body := strings.TrimSuffix(got.Message.Content, "…")
		if got.N != 1 || !strings.HasPrefix(want.Message.Content, body) || len(body) < MaxStringBytes-8 || len(lines[1]) > MaxStringBytes+100 {
			t.Errorf("k=%d: kept %d bytes of the string (n=%d), want its first %d", k, len(body), got.N, MaxStringBytes)
		}
		if bd.Cut[CutString] != 1 || len(bd.Cut) != 1 {
			t.Errorf("k=%d: cut %v, want one string", k, bd.Cut)
		}
	}
}

// TestReadTranscriptLines: an overlong line is skipped and the next read; a
// half-written last line stays as it is for the parser; the total stops at
// MaxTranscriptBytes on a line boundary.
func TestReadTranscriptLines(t *testing.T) {
	huge := `{"a":[` + strings.Repeat(`"0123456789",`, MaxLineBytes/13+10) + `"end"]}`
	bd := readBounded(t, []byte(`{"n":1}`+"\n"+huge+"\n"+`{"n":2}`+"\n"+`{"n":3,"half`), "s.jsonl")
	if string(bd.Data) != `{"n":1}`+"\n\n"+`{"n":2}`+"\n"+`{"n":3,"half` || bd.Cut[CutLine] != 1 {
		t.Errorf("data %q, cut %v; want the huge line skipped and the tail kept", bd.Data, bd.Cut)
	}
	line := `{"text":"` + strings.Repeat("z", 1000) + `"}` + "\n"
	many := strings.Repeat(line, MaxTranscriptBytes/len(line)+100)
	bd = readBounded(t, []byte(many), "s.jsonl")
	if len(bd.Data) > MaxTranscriptBytes || len(bd.Data)%len(line) != 0 || len(bd.Data) < MaxTranscriptBytes-len(line) || bd.Cut[CutTranscript] != 1 {
		t.Errorf("kept %d bytes (cut %v), want whole lines up to %d", len(bd.Data), bd.Cut, MaxTranscriptBytes)
	}
	// A single JSON document cannot be cut at a line: it is refused.
	doc := "[" + strings.TrimSuffix(strings.ReplaceAll(many, "\n", ",\n"), ",\n") + "]"
	if _, err := ReadTranscript(strings.NewReader(doc), "conversations.json"); !errors.Is(err, ErrTranscriptTooLarge) {
		t.Errorf("JSON document over the budget: err %v, want ErrTranscriptTooLarge", err)
	}
	// Markdown lines are cut, not parsed as JSON.
	md := "# aider chat started at 2026-05-04 09:00:00\n\n#### \"quote " + strings.Repeat("é", MaxStringBytes) + "\nnext line\n"
	bd = readBounded(t, []byte(md), ".aider.chat.history.md")
	if !strings.HasSuffix(string(bd.Data), "…\nnext line\n") || bd.Cut[CutMarkdown] != 1 || len(bd.Data) > MaxStringBytes+200 {
		t.Errorf("markdown: %d bytes, cut %v", len(bd.Data), bd.Cut)
	}
}

// TestReadTranscriptZstdBomb: a small zstd file that expands past
// MaxDecodedBytes is read up to that bound with little memory kept.
func TestReadTranscriptZstdBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 256 MiB")
	}
	var buf bytes.Buffer
	enc, _ := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	body := strings.Repeat("bomb ", 1<<20/5)
	for i := 0; i < MaxDecodedBytes>>20+20; i++ {
		fmt.Fprintf(enc, `{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":%q}]}}`+"\n", body)
	}
	enc.Close()
	if buf.Len() > 1<<20 {
		t.Fatalf("bomb is %d bytes compressed", buf.Len())
	}
	bd := readBounded(t, buf.Bytes(), "rollout-x.jsonl.zst")
	if bd.Cut[CutDecoded] != 1 || bd.Cut[CutString] < 250 || len(bd.Data) > 16<<20 {
		t.Errorf("kept %d bytes, cut %v; want the decoded stream stopped at %d MiB", len(bd.Data), bd.Cut, MaxDecodedBytes>>20)
	}
	// A stream cut short yields what was decoded.
	bd = readBounded(t, buf.Bytes()[:buf.Len()/2], "rollout-x.jsonl.zst")
	if len(bd.Data) == 0 {
		t.Error("a truncated zstd stream yielded nothing")
	}
}

// withTimeout runs fn and fails the test (rather than hanging it) when fn
// blocks.
func withTimeout(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		panic(what + " blocked for 10 s")
	}
}

// TestOpenTranscript: regular files inside the root are opened, through a
// symbolic link that stays inside and under a root that is itself a link;
// a FIFO, a directory, and links leaving the root (to /dev/zero, to a file
// elsewhere) are refused with a reason and without blocking.
func TestOpenTranscript(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	os.MkdirAll(filepath.Join(root, "p"), 0o755)
	good := filepath.Join(root, "p", "good.jsonl")
	os.WriteFile(good, []byte(`{"n":1}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(base, "outside.jsonl"), []byte("{}\n"), 0o644)
	os.Symlink("good.jsonl", filepath.Join(root, "p", "inside.jsonl"))
	os.Symlink("/dev/zero", filepath.Join(root, "p", "zero.jsonl"))
	os.Symlink("../../outside.jsonl", filepath.Join(root, "p", "out.jsonl"))
	os.Mkdir(filepath.Join(root, "p", "dir.jsonl"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(root, "p", "fifo.jsonl"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	linkRoot := filepath.Join(base, "linkroot")
	os.Symlink(root, linkRoot)
	for _, tc := range []struct {
		root, name, want string // want "" opens
	}{
		{root, "p/good.jsonl", ""},
		{root, "p/inside.jsonl", ""},
		{linkRoot, "p/good.jsonl", ""},
		{root, "p/zero.jsonl", "outside the source root"},
		{root, "p/out.jsonl", "outside the source root"},
		{root, "p/fifo.jsonl", "not a regular file (a FIFO)"},
		{root, "p/dir.jsonl", "not a regular file (a directory)"},
		{root, "../outside.jsonl", "outside its source root"},
	} {
		withTimeout(t, "OpenTranscript "+tc.name, func() {
			f, fi, err := OpenTranscript(tc.root, filepath.Join(tc.root, tc.name))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s: %v, want it opened", tc.name, err)
			case tc.want == "" && fi.Size() != 8:
				t.Errorf("%s: size %d", tc.name, fi.Size())
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
			}
			if f != nil {
				f.Close()
			}
		})
	}
	withTimeout(t, "readSibling of a FIFO", func() {
		if _, err := readSibling(filepath.Join(root, "p", "fifo.jsonl")); !errors.Is(err, ErrNotRegular) {
			t.Errorf("readSibling(FIFO) = %v, want ErrNotRegular", err)
		}
		if _, err := readSibling(filepath.Join(root, "p", "zero.jsonl")); err == nil {
			t.Error("readSibling followed a link to /dev/zero")
		}
	})
}

// FuzzJSONCutter: with strings cut at a few bytes, every input line that is
// valid JSON comes out valid JSON, holding the same value with each string
// shortened to a prefix of itself.
func FuzzJSONCutter(f *testing.F) {
	for _, s := range []string{`{"a":"héllo \"w\" \u00e9\\x"}`, `["\ud83d\ude00 smile", 1, {"k":"vvvvvvvv"}]`, `"\\\\\\\\\\"`, `{"é€😀":"€€€€"}`} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, line []byte, max int) {
		if !json.Valid(line) || bytes.IndexByte(line, '\n') >= 0 || max < 0 || max > 64 {
			return
		}
		var out BoundedData
		c := jsonCutter{out: &out, lines: true, maxString: max}
		if err := c.write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
		c.finish(nil)
		got := bytes.TrimSuffix(out.Data, []byte("\n"))
		decode := func(data []byte) (any, error) {
			d := json.NewDecoder(bytes.NewReader(data))
			d.UseNumber()
			var v any
			return v, d.Decode(&v)
		}
		b, err := decode(got)
		if err != nil {
			t.Fatalf("cut %q to %q: %v", line, got, err)
		}
		a, _ := decode(line)
		if !prefixOf(b, a) {
			t.Fatalf("cut %q to %q: not a prefix", line, got)
		}
	})
}

// prefixOf reports whether cut is orig with strings shortened (a cut string
// ends with "…"; object keys may be cut too).
func prefixOf(cut, orig any) bool {
	switch o := orig.(type) {
	case string:
		c, ok := cut.(string)
		return ok && (c == o || strings.HasSuffix(c, "…") && strings.HasPrefix(o, strings.TrimSuffix(c, "…")) ||
			strings.HasPrefix(strings.ToValidUTF8(o, "\uFFFD"), strings.TrimSuffix(c, "…")))
	case []any:
		c, ok := cut.([]any)
		if !ok || len(c) != len(o) {
			return false
		}
		for i := range o {
			if !prefixOf(c[i], o[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		c, ok := cut.(map[string]any)
		return ok && len(c) <= len(o) // keys may be cut (and so merge)
	default:
		return fmt.Sprint(cut) == fmt.Sprint(orig)
	}
}

// TestReadTranscriptCutNotInsideToken: a token that straddles the string
// or Markdown line budget is kept whole (the cut moves to its end), so the
// redactor sees all of it; a word longer than CutSlackBytes is still cut,
// and a cut after a blank stays where it was (ux F3).
func TestReadTranscriptCutNotInsideToken(t *testing.T) {
	tok := "ghp_CuT32k" + strings.Repeat("2C3d", 8) + "Q7"
	for _, k := range []int{1, 5, 20, 40} {
		text := strings.Repeat("y", MaxStringBytes-k-1) + " " + tok + " end" + strings.Repeat(" z", 100)
		line := `{"type":"user","message":{"content":"` + text + `"}}`
		bd := readBounded(t, []byte(line+"\n"), "s.jsonl")
		var got struct{ Message struct{ Content string } }
		if err := json.Unmarshal(bytes.TrimSpace(bd.Data), &got); err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		body := got.Message.Content
		if !strings.HasSuffix(body, " "+tok+"…") || bd.Cut[CutString] != 1 {
			t.Errorf("k=%d: string ends %q (cut %v), want the whole token then the cut", k, body[max(0, len(body)-60):], bd.Cut)
		}
		md := readBounded(t, []byte("# chat\n"+text+"\nnext\n"), "x.md")
		if !strings.Contains(string(md.Data), " "+tok+"…\nnext\n") {
			t.Errorf("k=%d: Markdown line cut inside the token: %q", k, string(md.Data)[7+MaxStringBytes-60:])
		}
	}
	// a blob longer than the slack is cut at the budget plus the slack
	blob := strings.Repeat("Ab1+", (MaxStringBytes+4*CutSlackBytes)/4)
	bd := readBounded(t, []byte(`{"c":"`+blob+`"}`+"\n"), "b.jsonl")
	var got struct{ C string }
	if err := json.Unmarshal(bytes.TrimSpace(bd.Data), &got); err != nil {
		t.Fatal(err)
	}
	if n := len(strings.TrimSuffix(got.C, "…")); n != MaxStringBytes+CutSlackBytes {
		t.Errorf("blob kept %d bytes, want %d", n, MaxStringBytes+CutSlackBytes)
	}
	// a cut right after a blank is not moved
	text := strings.Repeat("y", MaxStringBytes-1) + " " + tok
	bd = readBounded(t, []byte(`{"c":"`+text+`"}`+"\n"), "c.jsonl")
	if err := json.Unmarshal(bytes.TrimSpace(bd.Data), &got); err != nil {
		t.Fatal(err)
	}
	if got.C != strings.Repeat("y", MaxStringBytes-1)+" …" {
		t.Errorf("cut after a blank moved: ends %q", got.C[len(got.C)-20:])
	}
}
