package tokenize

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/internal/testshared"
)

// sharedDir finds the shared folder with the tokenizer (testshared).
func sharedDir(t testing.TB) string {
	t.Helper()
	return testshared.Dir(t, testshared.Tokenizer)
}

func loadUSELite(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := Load(filepath.Join(sharedDir(t), "models/use-lite/tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestUSELiteGolden(t *testing.T) {
	tok := loadUSELite(t)
	if got := tok.Model(); got != "Unigram" {
		t.Fatalf("Model() = %q, want Unigram", got)
	}
	f, err := os.Open(filepath.Join(sharedDir(t), "models/use-lite/golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var line struct {
			Text string `json:"text"`
			IDs  []int  `json:"ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		n++
		if got := tok.Encode(line.Text); !slices.Equal(got, line.IDs) {
			t.Errorf("Encode(%q)\n got %v\nwant %v", line.Text, got, line.IDs)
		}
		if got := tok.Count(line.Text); got != len(line.IDs) {
			t.Errorf("Count(%q) = %d, want %d", line.Text, got, len(line.IDs))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 10 {
		t.Fatalf("read %d golden lines, want 10", n)
	}
}

func TestUSELiteEdges(t *testing.T) {
	tok := loadUSELite(t)
	piece := func(p string) int {
		id, ok := tok.model.tokenID(p)
		if !ok {
			t.Fatalf("piece %q not in vocab", p)
		}
		return id
	}
	sp := piece("▁")
	hello := tok.Encode("hello")
	tests := []struct {
		name, text string
		want       []int
	}{
		{"empty", "", nil},
		{"leading space gives ▁▁", " hello", append([]int{sp}, hello...)},
		{"nbsp is a space after NFKC", "\u00a0hello", append([]int{sp}, hello...)},
		{"ideographic space too", "\u3000hello", append([]int{sp}, hello...)},
		{"tab is unknown", "\t", []int{sp, 0}},
		{"unknowns merge", "\t\n日本", []int{sp, 0}},
		{"unknowns between words", "a\t\nb", []int{piece("▁a"), 0, piece("b")}},
		{"reserved pieces are not matched", "<s>", []int{piece("▁<"), piece("s"), piece(">")}},
		{"colon smiley", ":)", []int{658}},
		{"duplicate piece keeps last id", "”5", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tok.Encode(tt.text)
			if tt.name == "duplicate piece keeps last id" {
				if !slices.Contains(got, 4464) || slices.Contains(got, 230) || slices.Contains(got, 238) {
					t.Fatalf("Encode(%q) = %v, want 4464 and not 230 or 238", tt.text, got)
				}
				return
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Encode(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	tok := loadUSELite(b)
	texts := benchTexts()
	b.ResetTimer()
	bytes := 0
	for i := 0; b.Loop(); i++ {
		t := texts[i%len(texts)]
		bytes += len(t)
		tok.Encode(t)
	}
	b.SetBytes(int64(bytes / max(b.N, 1)))
}

// benchTexts returns chat-like texts of about 400 characters.
func benchTexts() []string {
	base := []string{
		"Hi Sam! Great to hear from you. How was the trip to Lisbon? I heard the weather was lovely ",
		"and that you finally tried the pastéis de nata at the old bakery near the river. ",
		"The user prefers dark mode in every editor, uses Go 1.26 and version 2.4.3 of the config library. ",
		"Meeting with Alice moved to Thursday at 3:30pm; bring the Q3 numbers and the draft roadmap. ",
		"Don't forget: the café on 5th street closes early (around 6pm) on Sundays — 日本語 menus too! ",
	}
	var out []string
	for i := range base {
		var sb strings.Builder
		for j := 0; sb.Len() < 400; j++ {
			sb.WriteString(base[(i+j)%len(base)])
		}
		out = append(out, sb.String()[:400])
	}
	return out
}
