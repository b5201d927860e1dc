package tokenize

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// trieEntries lists every path of t that carries a payload.
func trieEntries(t *trie) map[string]int32 {
	out := map[string]int32{}
	var walk func(n int32, prefix string)
	walk = func(n int32, prefix string) {
		if v := t.nodes[n].value; v >= 0 {
			out[prefix] = v
		}
		nd := t.nodes[n]
		if !slices.IsSorted(t.labels[nd.start:nd.end]) {
			panic("edges out of order at " + prefix)
		}
		for e := nd.start; e < nd.end; e++ {
			walk(t.next[e], prefix+string(t.labels[e]))
		}
	}
	walk(0, "")
	return out
}

// sameUnigram fails unless LoadFast's model equals Load's: the maps,
// scores and settings, and the trie's paths, payloads and root table.
func sameUnigram(t *testing.T, slow, fast *Tokenizer) {
	t.Helper()
	a, ok1 := slow.model.(*unigram)
	b, ok2 := fast.model.(*unigram)
	if !ok1 || !ok2 {
		t.Fatalf("models %T and %T, want two Unigrams", slow.model, fast.model)
	}
	if !reflect.DeepEqual(a.ids, b.ids) || !reflect.DeepEqual(a.scores, b.scores) || a.unk != b.unk ||
		a.unkScore != b.unkScore || a.byteFallback != b.byteFallback {
		t.Fatalf("unigram differs:\n Load     %d ids, unk %d (%v), fallback %v\n LoadFast %d ids, unk %d (%v), fallback %v",
			len(a.ids), a.unk, a.unkScore, a.byteFallback, len(b.ids), b.unk, b.unkScore, b.byteFallback)
	}
	if ea, eb := trieEntries(a.trie), trieEntries(b.trie); !reflect.DeepEqual(ea, eb) {
		t.Fatalf("trie paths differ: %d against %d", len(ea), len(eb))
	}
	for c := range 256 {
		if (a.trie.root[c] == 0) != (b.trie.root[c] == 0) {
			t.Fatalf("root table differs at byte %d", c)
		}
	}
	if !reflect.DeepEqual(slow.post, fast.post) || !reflect.DeepEqual(slow.added, fast.added) {
		t.Fatalf("post-processor or added tokens differ")
	}
}

// USE-lite's tokenizer through LoadFast: the same model as Load's, and
// the same ids for the golden texts and every line of the package's
// sources (words, punctuation, code, non-ASCII).
func TestLoadFastUSELite(t *testing.T) {
	path := filepath.Join(sharedDir(t), "models/use-lite/tokenizer.json")
	slow := loadUSELite(t)
	fast, err := LoadFast(path)
	if err != nil {
		t.Fatal(err)
	}
	sameUnigram(t, slow, fast)
	texts := []string{"", " ", "mountain weather", "Ünïcödé ➜ 東京 déjà vu", strings.Repeat("ab", 300)}
	f, err := os.Open(filepath.Join(sharedDir(t), "models/use-lite/golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Text string `json:"text"`
		}
		json.Unmarshal(sc.Bytes(), &line)
		texts = append(texts, line.Text)
	}
	srcs, _ := filepath.Glob("*.go")
	for _, s := range srcs {
		raw, _ := os.ReadFile(s)
		texts = append(texts, strings.Split(string(raw), "\n")...)
	}
	if len(texts) < 1000 {
		t.Fatalf("only %d texts", len(texts))
	}
	for _, s := range texts {
		if a, b := slow.Encode(s), fast.Encode(s); !slices.Equal(a, b) {
			t.Fatalf("Encode(%q): Load %v, LoadFast %v", s, a, b)
		}
	}
}

// A Unigram vocabulary with what the hand scanner must read as
// encoding/json does (escapes, a piece repeated, the empty piece, a
// piece with a byte that is not UTF-8, exponents) and ones it must hand
// back to Parse (an entry of three, a string score, a bad unk_id):
// the same model, or the same error.
func TestLoadFastUnigramEdges(t *testing.T) {
	file := func(vocab string, unk string) string {
		return `{"version":"1.0","added_tokens":[],"normalizer":null,"pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true},` +
			`"post_processor":null,"decoder":null,"model":{"type":"Unigram","unk_id":` + unk + `,"vocab":` + vocab + `,"byte_fallback":false}}`
	}
	good := []string{
		`[["<unk>", 0.0], ["▁a", -1.5], ["b\"c", -2e-1], ["\u00e9t\u00e9", -3.25E+0], ["", -9], ["▁a", -0.5], ["x\\y", -4]]`,
		"[[\"<unk>\", 0], [\"\xff\xfe\", -1], [\"ok\", -2.0]]",
		`[ [ "<unk>" , 0 ] , [ "a" , -1 ] ]`,
		`[]`,
	}
	for _, v := range good {
		unk := "0"
		if v == `[]` {
			unk = "null"
		}
		data := []byte(file(v, unk))
		slow, err := Parse(data)
		if err != nil {
			t.Fatalf("Parse(%s): %v", v, err)
		}
		fast, err := parseFast(data)
		if err != nil {
			t.Fatalf("parseFast(%s): %v", v, err)
		}
		sameUnigram(t, slow, fast)
		if _, ok := parseUnigramFast(mustModel(t, data)); !ok {
			t.Errorf("vocab %s went the slow way", v)
		}
	}
	for _, c := range []struct{ vocab, unk string }{
		{`[["a", -1, 7]]`, "null"}, {`[["a", "-1"]]`, "null"}, {`[["a", -1]]`, "3"}, {`[["a", 1e400]]`, "null"}, {`[[null, -1]]`, "null"},
	} {
		data := []byte(file(c.vocab, c.unk))
		if _, ok := parseUnigramFast(mustModel(t, data)); ok {
			t.Errorf("vocab %s unk %s read by the scanner, want Parse's way", c.vocab, c.unk)
		}
		slow, serr := Parse(data)
		fast, ferr := parseFast(data)
		if (serr == nil) != (ferr == nil) || (serr != nil && serr.Error() != ferr.Error()) {
			t.Errorf("vocab %s: Parse error %v, parseFast error %v", c.vocab, serr, ferr)
		}
		if serr == nil {
			sameUnigram(t, slow, fast)
		}
	}
}

func mustModel(t *testing.T, data []byte) (json.RawMessage, *int, bool) {
	var f fastFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f.Model.Vocab, f.Model.UnkID, f.Model.ByteFallback
}

// The other model kinds go through Parse unchanged.
func TestLoadFastOtherModels(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) == 0 {
		t.Fatal("no testdata tokenizers")
	}
	for _, f := range files {
		slow, err1 := Load(f)
		fast, err2 := LoadFast(f)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v / %v", f, err1, err2)
		}
		for _, s := range []string{"Hello, world!", "unbelievable tokenization", "naïve café"} {
			if a, b := slow.Encode(s), fast.Encode(s); !slices.Equal(a, b) {
				t.Errorf("%s: Encode(%q) %v against %v", f, s, a, b)
			}
		}
	}
}

func BenchmarkLoadUSELite(b *testing.B) {
	path := filepath.Join(sharedDir(b), "models/use-lite/tokenizer.json")
	for _, c := range []struct {
		name string
		load func(string) (*Tokenizer, error)
	}{{"Load", Load}, {"LoadFast", LoadFast}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.load(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
