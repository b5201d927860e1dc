package chunk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/internal/golden"
	"github.com/google/go-cmp/cmp"
)

// generated are test inputs built in code rather than committed: too large,
// or made of bytes an editor would mangle.
var generated = map[string]func() string{
	"enormous-paragraph": enormousParagraph,
	"non-utf8":           nonUTF8,
}

// enormousParagraph is about 200 KB of sentences with no newline at all,
// followed by a run of 5000 letters with no whitespace.
func enormousParagraph() string {
	var b strings.Builder
	for i := 0; b.Len() < 200<<10; i++ {
		fmt.Fprintf(&b, "Sentence %d talks about chunk boundaries and token budgets", i)
		b.WriteString([]string{". ", "! ", "? ", ", and "}[i%4])
	}
	b.WriteString(strings.Repeat("z", 5000))
	return b.String()
}

// nonUTF8 mixes invalid bytes, multi-byte characters and CJK, including
// whitespace-free runs long enough to force hard cuts.
func nonUTF8() string {
	var b strings.Builder
	b.WriteString("# Bad \xff bytes\n\nLatin-1 caf\xe9 and a stray \xc3 lead byte, then a valid café.\n\n")
	b.WriteString(strings.Repeat("é", 1500) + "\xff" + strings.Repeat("日本語", 200) + "\xfe\xfd\n\n")
	b.WriteString("Truncated sequence at the end: \xe6\x97")
	return b.String()
}

// inputs returns every golden input by name.
func inputs(t testing.TB) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("glob testdata: %v (%d files)", err, len(paths))
	}
	in := make(map[string]string)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		in[strings.TrimSuffix(filepath.Base(p), ".md")] = string(b)
	}
	for name, gen := range generated {
		in[name] = gen()
	}
	return in
}

// format renders chunks one a line for a golden file.
func format(text string, chunks []cairn.Chunk) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %d bytes, %d chunks (chunker version %d)\n", len(text), len(chunks), Version)
	for _, c := range chunks {
		s := text[c.Pos : c.Pos+c.Len]
		head := s
		if len(head) > 60 {
			n := 60
			for n > 56 && !utf8.RuneStart(head[n]) {
				n--
			}
			head = head[:n]
		}
		fmt.Fprintf(&b, "seq=%d pos=%d len=%d lines=%d-%d tokens=%d noise=%t text=%q\n",
			c.Seq, c.Pos, c.Len, c.StartLine, c.EndLine, c.Tokens, c.Noise, head)
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	for name, text := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			chunks := New().Chunk(text)
			checkInvariants(t, text, chunks, DefaultMaxTokens, DefaultMaxBytes)
			got := format(text, chunks)
			golden.Check(t, filepath.Join("testdata", name+".golden"), []byte(got))
		})
	}
}

// sizes are the chunker settings the invariant and fuzz tests run under.
var sizes = []Chunker{{}, {MinTokens: 5, MaxTokens: 20}, {MinTokens: 1, MaxTokens: 1}, {MinTokens: 50, MaxTokens: 10},
	{MinTokens: 5, MaxTokens: 20, MaxBytes: 64}, {MaxBytes: 1}}

func TestInvariants(t *testing.T) {
	for name, text := range inputs(t) {
		for _, c := range sizes {
			t.Run(fmt.Sprintf("%s/%d-%d-%d", name, c.MinTokens, c.MaxTokens, c.MaxBytes), func(t *testing.T) {
				_, hi, bytes := c.limits()
				checkInvariants(t, text, c.Chunk(text), hi, bytes)
				crlf := strings.ReplaceAll(text, "\n", "\r\n")
				checkInvariants(t, crlf, c.Chunk(crlf), hi, bytes)
			})
		}
	}
}

// checkInvariants checks what every chunking must satisfy: exact contiguous
// coverage, Seq, line numbers, token counts, cuts only at code point starts,
// the byte ceiling, and the token ceiling except for chunks holding code or
// a table.
func checkInvariants(t *testing.T, text string, chunks []cairn.Chunk, maxTokens, maxBytes int) {
	t.Helper()
	if text == "" {
		if len(chunks) != 0 {
			t.Fatalf("empty text: got %d chunks", len(chunks))
		}
		return
	}
	if len(chunks) == 0 {
		t.Fatalf("no chunks for %d bytes", len(text))
	}
	starts := make([]bool, len(text)+1)
	for i := 0; i < len(text); {
		starts[i] = true
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	starts[len(text)] = true
	// Where atoms that may pass the token ceiling (code, tables and their
	// pieces) start.
	whole := map[int]bool{}
	for a := range scan(text, maxBytes) {
		if !a.splittable() {
			whole[a.pos] = true
		}
	}
	pos, line := 0, 1
	for i, c := range chunks {
		if c.Seq != i || c.Pos != pos || c.Len <= 0 || c.Pos+c.Len > len(text) {
			t.Fatalf("chunk %d: seq %d pos %d len %d, want seq %d pos %d, len > 0 within %d",
				i, c.Seq, c.Pos, c.Len, i, pos, len(text))
		}
		s := text[c.Pos : c.Pos+c.Len]
		if !starts[c.Pos+c.Len] {
			t.Fatalf("chunk %d ends at %d, inside a UTF-8 sequence", i, c.Pos+c.Len)
		}
		nl := strings.Count(s, "\n")
		end := line + nl
		if strings.HasSuffix(s, "\n") {
			end--
		}
		if c.StartLine != line || c.EndLine != end {
			t.Fatalf("chunk %d: lines %d-%d, want %d-%d", i, c.StartLine, c.EndLine, line, end)
		}
		if want := EstimateTokens(s); c.Tokens != want {
			t.Fatalf("chunk %d: tokens %d, want %d", i, c.Tokens, want)
		}
		if c.Len > maxBytes {
			t.Fatalf("chunk %d: %d bytes over the ceiling %d: %.80q", i, c.Len, maxBytes, s)
		}
		if c.Tokens > maxTokens && !holdsWhole(whole, c.Pos, c.Pos+c.Len) {
			t.Fatalf("chunk %d: %d tokens over the ceiling %d without code or table: %.80q", i, c.Tokens, maxTokens, s)
		}
		pos, line = c.Pos+c.Len, line+nl
	}
	if pos != len(text) {
		t.Fatalf("chunks end at %d, text at %d", pos, len(text))
	}
}

// holdsWhole reports whether an atom in whole starts in [lo, hi).
func holdsWhole(whole map[int]bool, lo, hi int) bool {
	for p := range whole {
		if p >= lo && p < hi {
			return true
		}
	}
	return false
}

// TestHardBoundaries checks that every heading, rule and marker line of
// hard-boundaries.md starts a chunk, and that prose lines that only look
// like markers do not.
func TestHardBoundaries(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "hard-boundaries.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	starts := map[int]bool{}
	for _, c := range New().Chunk(text) {
		starts[c.Pos] = true
	}
	pos := 0
	for _, l := range strings.SplitAfter(text, "\n") {
		content := strings.TrimSuffix(l, "\n")
		want := headingLevel(content) > 0 || isRule(content) || isMarker(content)
		if starts[pos] != want {
			t.Errorf("line %q: starts chunk %t, want %t", content, starts[pos], want)
		}
		pos += len(l)
	}
}

func TestChunkCases(t *testing.T) {
	type span struct {
		Text  string
		Noise bool
	}
	tests := []struct {
		name string
		text string
		want []span
	}{
		{"empty", "", nil},
		{"whitespace", " \n\t\n\n", []span{{" \n\t\n\n", true}}},
		{"one line", "hello", []span{{"hello", false}}},
		{"rule only", "---\n", []span{{"---\n", true}}},
		{"orphan fence", "text\n\n---\n```\n", []span{{"text\n\n", false}, {"---\n```\n", true}}},
		{"markers", "# Title\n\n##\n\nText.\n\n---\n- \n> \n|--|\n", []span{{"# Title\n\n##\n\nText.\n\n", false}, {"---\n- \n> \n|--|\n", true}}},
		{"comment", "Body.\n\nTask: x\n\n# H\n<!-- generated -->\n", []span{
			{"Body.\n\n", false}, {"Task: x\n\n", false}, {"# H\n<!-- generated -->\n", false}}},
		{"lone comment", "Body.\n\n---\n<!-- backfill -->\n", []span{{"Body.\n\n", false}, {"---\n<!-- backfill -->\n", true}}},
		{"bare marker", "Body.\n\nSession 3:\n\n[10:30]\n", []span{{"Body.\n\n", false}, {"Session 3:\n\n[10:30]\n", true}}},
		{"marker with text", "Decision: yes\n", []span{{"Decision: yes\n", false}}},
		{"heading too big to carry", "# A\n## " + strings.Repeat("b ", 297) + "\n", []span{{"# A\n", false}, {"## " + strings.Repeat("b ", 297) + "\n", false}}},
		{"title carries", "# A\n## B\ntext\n", []span{{"# A\n## B\ntext\n", false}}},
		{"same level splits", "## A\n## B\ntext\n", []span{{"## A\n", false}, {"## B\ntext\n", false}}},
		{"speaker labels", "Alice: hi\nBob: hello\n", []span{{"Alice: hi\nBob: hello\n", false}}},
		{"bom heading", "\ufeff# T\nbody\n", []span{{"\ufeff# T\nbody\n", false}}},
		{"leading blanks", "\n\n# T\n", []span{{"\n\n", true}, {"# T\n", false}}},
		{"crlf", "a\r\n\r\n# H\r\nb", []span{{"a\r\n\r\n", false}, {"# H\r\nb", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks := New().Chunk(tt.text)
			checkInvariants(t, tt.text, chunks, DefaultMaxTokens, DefaultMaxBytes)
			var got []span
			for _, c := range chunks {
				got = append(got, span{tt.text[c.Pos : c.Pos+c.Len], c.Noise})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Chunk(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestOversized(t *testing.T) {
	fence := "```\n" + strings.Repeat("x = f(y)\n", 200) + "```\n"
	table := strings.Repeat("| a | b |\n", 200)
	prose := strings.Repeat("Word word word word. ", 400)
	tests := []struct {
		name       string
		text       string
		wantChunks int
		wantFirst  string // prefix of the first chunk
	}{
		{"fence stays whole with its heading", "## Code\n\n" + fence + "after\n", 2, "## Code\n\n```"},
		{"table stays whole with its heading", "## Data\n" + table + "\nafter\n", 2, "## Data\n| a |"},
		{"fitting fence after text is not merged", "intro\n\n" + fence, 2, "intro\n\n"},
		{"prose splits after its heading", "## Prose\n\n" + prose, 7, "## Prose\n\nWord"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks := New().Chunk(tt.text)
			checkInvariants(t, tt.text, chunks, DefaultMaxTokens, DefaultMaxBytes)
			if len(chunks) != tt.wantChunks {
				t.Fatalf("got %d chunks, want %d:\n%s", len(chunks), tt.wantChunks, format(tt.text, chunks))
			}
			if first := tt.text[:chunks[0].Len]; !strings.HasPrefix(first, tt.wantFirst) {
				t.Fatalf("first chunk %.40q, want prefix %q", first, tt.wantFirst)
			}
		})
	}
}

func FuzzChunk(f *testing.F) {
	// Seeds are capped: the fuzzer minimizes every new interesting input,
	// which takes minutes on a 200 KB one.
	for _, text := range inputs(f) {
		f.Add(text[:min(len(text), 4<<10)])
	}
	f.Add("")
	f.Add("a\r\n\r\n```\r\nx\r\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range sizes {
			_, hi, bytes := c.limits()
			checkInvariants(t, text, c.Chunk(text), hi, bytes)
		}
	})
}

// benchDoc is a generated Markdown document of about n bytes mixing every
// kind of atom.
func benchDoc(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "## Section %d\n\n", i)
		for j := 0; j < 3; j++ {
			b.WriteString("The chunker cuts Markdown into atoms and packs them between hard boundaries. ")
			b.WriteString("Each chunk is an exact slice, so reads stay faithful; tokens are estimated cheaply!\n")
			b.WriteString("Another line of the same paragraph follows, with café, naïve and 日本語 text.\n\n")
		}
		fmt.Fprintf(&b, "- item %d one\n- item two\n  continued\n\n", i)
		b.WriteString("```go\nfunc f() int {\n\treturn 42\n}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n")
		if i%5 == 0 {
			fmt.Fprintf(&b, "Decision: item %d decided.\n2024-05-01 10:%02d log line\n\n", i, i%60)
		}
	}
	return b.String()
}

func BenchmarkChunk(b *testing.B) {
	text := benchDoc(1 << 20)
	c := New()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		c.Chunk(text)
	}
}

func BenchmarkChunkEnormousParagraph(b *testing.B) {
	text := enormousParagraph()
	c := New()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		c.Chunk(text)
	}
}

func BenchmarkEstimateTokens(b *testing.B) {
	text := benchDoc(1 << 20)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		EstimateTokens(text)
	}
}

// TestHostileNotes chunks the shapes of ux U8's notes (2 MB each here, 10
// MB there): a chunk for each empty heading (4.95M chunks of 2 bytes for
// 9.9 MB), one chunk of a whole one-line table, unclosed fence or
// indentation-heavy list. Every chunk stays within the byte ceiling, a run
// of noise lines is one chunk while it fits, and lines stay exact.
func TestHostileNotes(t *testing.T) {
	const size = 2 << 20
	rep := func(s string) string { return strings.Repeat(s, size/len(s)) }
	var deep strings.Builder
	for i := 0; deep.Len() < size; i++ {
		deep.WriteString(strings.Repeat("  ", i%3000) + "- x\n")
	}
	// full is the count of chunks of up to the token ceiling, packed
	// nine tenths full at least.
	full := func(s string) int { return EstimateTokens(s)*10/9/DefaultMaxTokens + 2 }
	tests := []struct {
		name      string
		text      string
		maxChunks int
	}{
		{"empty headings", rep("#\n"), full(rep("#\n"))},
		{"empty headings crlf", rep("## \r\n"), full(rep("## \r\n"))},
		{"rules and headings", rep("---\n#\n"), full(rep("---\n#\n"))},
		{"one-line table", rep("|a") + "|\n", size/DefaultMaxBytes + 2},
		{"unclosed fence", "```\n" + rep("code line here\n"), size/DefaultMaxBytes + 2},
		{"long fence line", "```\n" + rep("x") + "\n```\n", size/DefaultMaxBytes + 3},
		{"deep list", deep.String(), deep.Len()/(DefaultMaxBytes/2) + full(deep.String())},
		{"one word", rep("a"), full(rep("a"))},
		{"cjk line", rep("日本語"), full(rep("日本語"))},
		{"blank lines", "# T\n" + rep("\n"), size/DefaultMaxBytes + 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks := New().Chunk(tt.text)
			checkInvariants(t, tt.text, chunks, DefaultMaxTokens, DefaultMaxBytes)
			if len(chunks) > tt.maxChunks {
				t.Fatalf("%d chunks, want at most %d", len(chunks), tt.maxChunks)
			}
		})
	}
}

// TestNoiseRuns: consecutive noise lines that are hard boundaries (empty
// headings, rules, bare markers) share a chunk; a heading with text after
// them starts its own, as before.
func TestNoiseRuns(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"#\n#\n#\n", []string{"#\n#\n#\n"}},
		{"text\n\n---\n\n#\n\n[10:30]\n# Real\nbody\n", []string{"text\n\n", "---\n\n#\n\n[10:30]\n", "# Real\nbody\n"}},
		{"##\n## B\ntext\n", []string{"##\n", "## B\ntext\n"}},
		{"---\n- \n> \n---\n", []string{"---\n- \n> \n---\n"}},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range New().Chunk(tt.text) {
			got = append(got, tt.text[c.Pos:c.Pos+c.Len])
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Chunk(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

// TestDenseNotes: a note of thousands of tiny sections (ux U8's p18:
// 500,000 one-word sections) is packed to about MinTokens a chunk, hard
// boundaries aside; one just above the density bound, or with fewer
// chunks, keeps a chunk per section.
func TestDenseNotes(t *testing.T) {
	section := func(n int, body string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "# h%d\r\n\r\n%s\r\n", i, body)
		}
		return b.String()
	}
	tests := []struct {
		name      string
		text      string
		maxChunks int
		wantEach  bool // one chunk a section
	}{
		{"dense", section(5000, "text"), 5000 * 4 / DefaultMinTokens, false},
		{"few", section(denseChunks, "text"), denseChunks, true},
		{"not dense", section(5000, "a sentence of some length."), 5000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks := New().Chunk(tt.text)
			checkInvariants(t, tt.text, chunks, DefaultMaxTokens, DefaultMaxBytes)
			if tt.wantEach && strings.Count(tt.text, "# h") != len(chunks) || !tt.wantEach && len(chunks) > tt.maxChunks {
				t.Fatalf("%d chunks for %d sections (want each %t, at most %d)", len(chunks), strings.Count(tt.text, "# h"), tt.wantEach, tt.maxChunks)
			}
		})
	}
}
