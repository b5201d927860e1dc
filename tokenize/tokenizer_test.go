package tokenize

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

func loadTestdata(t *testing.T, name string) *Tokenizer {
	t.Helper()
	tok, err := Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type encodeCase struct {
	text string
	want []int
}

func checkEncode(t *testing.T, tok *Tokenizer, tests []encodeCase) {
	t.Helper()
	for _, tt := range tests {
		if got := tok.Encode(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.want)
		}
		if got := tok.Count(tt.text); got != len(tt.want) {
			t.Errorf("Count(%q) = %d, want %d", tt.text, got, len(tt.want))
		}
	}
}

func TestWordPiece(t *testing.T) {
	tok := loadTestdata(t, "bert-wordpiece.json")
	if got := tok.Model(); got != "WordPiece" {
		t.Fatalf("Model() = %q", got)
	}
	checkEncode(t, tok, []encodeCase{
		{"", []int{2, 3}},
		{"The cat sat.", []int{2, 5, 6, 7, 12, 3}},
		{"Playing!", []int{2, 8, 9, 11, 3}},
		{"played,the", []int{2, 8, 10, 18, 5, 3}},
		{"unaffable", []int{2, 13, 14, 15, 3}},
		{"Café", []int{2, 16, 3}},                   // lowercase strips accents
		{"dog", []int{2, 1, 3}},                     // not in vocab
		{"catx", []int{2, 1, 3}},                    // no ##x: the whole word is unknown
		{"unaffables", []int{2, 13, 14, 15, 19, 3}}, // 10 characters: the limit
		{"unaffabless", []int{2, 1, 3}},             // 11 characters: over max_input_chars_per_word
		{"中文", []int{2, 17, 1, 3}},                  // CJK characters are words of their own
		{"the\tcat\x00\n", []int{2, 5, 6, 3}},       // clean_text
		{"[CLS] the [MASK]", []int{2, 2, 5, 4, 3}},  // added tokens match in raw text
	})
}

// withPost returns the file with its post_processor replaced.
func withPost(t *testing.T, name, post string) *Tokenizer {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["post_processor"] = json.RawMessage(post)
	data, _ = json.Marshal(m)
	tok, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestPostProcessors(t *testing.T) {
	tests := []struct {
		name, post string
		want       []int
	}{
		{"none", `null`, []int{5, 6}},
		{"bert", `{"type":"BertProcessing","sep":["[SEP]",3],"cls":["[CLS]",2]}`, []int{2, 5, 6, 3}},
		{"roberta", `{"type":"RobertaProcessing","sep":["[SEP]",3],"cls":["[CLS]",2],"trim_offsets":true,"add_prefix_space":true}`, []int{2, 5, 6, 3}},
		{"template before only", `{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"special_tokens":{"[CLS]":{"id":"[CLS]","ids":[2],"tokens":["[CLS]"]}}}`, []int{2, 5, 6}},
		{"sequence", `{"type":"Sequence","processors":[{"type":"ByteLevel"},{"type":"BertProcessing","sep":["[SEP]",3],"cls":["[CLS]",2]}]}`, []int{2, 5, 6, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := withPost(t, "bert-wordpiece.json", tt.post)
			if got := tok.Encode("the cat"); !slices.Equal(got, tt.want) {
				t.Fatalf("Encode = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestByteLevelBPE(t *testing.T) {
	tok := loadTestdata(t, "bytelevel-bpe.json")
	if got := tok.Model(); got != "BPE" {
		t.Fatalf("Model() = %q", got)
	}
	checkEncode(t, tok, []encodeCase{
		{"", nil},
		{"hello", []int{14}},
		{"hello world", []int{14, 19}},
		{"hello world!", []int{14, 19, 9}},
		{"world", []int{6, 16, 3, 8}},      // no "w or" merge without the space
		{"he's", []int{11, 21}},            // contraction split
		{"héllo", []int{1, 26, 12, 4}},     // é is the bytes C3 A9: "Ã" "©", merged
		{"hello\n", []int{14, 23}},         // newline byte maps to "Ċ"
		{"12", []int{27, 28}},              // digits, no merges
		{"hello  world", []int{14, 5, 19}}, // \s+(?!\S) leaves the last space to the word
		{"zz", nil},                        // not in vocab and no unk_token: dropped
		{"hello<|endoftext|>", []int{14, 0}},
	})
	pre := withPreTokenizer(t, "bytelevel-bpe.json", `{"type":"ByteLevel","add_prefix_space":true,"use_regex":true}`)
	checkEncode(t, pre, []encodeCase{
		{"hello", []int{5, 14}}, // "Ġhello": no "Ġ h" merge
		{"world", []int{19}},
	})
}

func withPreTokenizer(t *testing.T, name, pre string) *Tokenizer {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["pre_tokenizer"] = json.RawMessage(pre)
	data, _ = json.Marshal(m)
	tok, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestBPESuffixAndPrefix(t *testing.T) {
	checkEncode(t, loadTestdata(t, "bpe-suffix.json"), []encodeCase{
		{"low", []int{9}},
		{"LOWER low", []int{11, 9}}, // "e r</w>" (rank 2) before "lo w" (rank 3)
		{"lxxw", []int{0, 12, 5}},   // unknowns fused
		{"lo", []int{0, 12}},        // "o</w>" is not in vocab
	})
	checkEncode(t, loadTestdata(t, "bpe-prefix.json"), []encodeCase{
		{"abc", []int{5, 4, 6}},                       // a ##b -> ab, ab ##c -> abc
		{"abc acb, a", []int{5, 4, 0, 2, 1, 7, 0, 6}}, // RobertaProcessing wraps; "," is unknown
	})
}

// preSplit runs a pre-tokenizer from its JSON on text.
func preSplit(t *testing.T, js, text string) []string {
	t.Helper()
	p, err := parsePreTokenizer(json.RawMessage(js))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range p.split(nil, []word{{s: text, first: true}}) {
		out = append(out, w.s)
	}
	return out
}

func TestPreTokenizers(t *testing.T) {
	tests := []struct {
		name, js, text string
		want           []string
	}{
		{"whitespace", `{"type":"Whitespace"}`, "Hey  friend!! é_1 ?", []string{"Hey", "friend", "!!", "é_1", "?"}},
		{"whitespace split", `{"type":"WhitespaceSplit"}`, " a\tb!  c ", []string{"a", "b!", "c"}},
		{"bert", `{"type":"BertPreTokenizer"}`, "Hey, you!!", []string{"Hey", ",", "you", "!", "!"}},
		{"punctuation isolated", `{"type":"Punctuation"}`, "a,,b", []string{"a", ",", ",", "b"}},
		{"punctuation contiguous", `{"type":"Punctuation","behavior":"Contiguous"}`, "a,,b", []string{"a", ",,", "b"}},
		{"punctuation merged with previous", `{"type":"Punctuation","behavior":"MergedWithPrevious"}`, "a,,b", []string{"a,", ",", "b"}},
		{"punctuation merged with next", `{"type":"Punctuation","behavior":"MergedWithNext"}`, "a,,b", []string{"a", ",", ",b"}},
		{"digits", `{"type":"Digits","individual_digits":false}`, "ab123c4", []string{"ab", "123", "c", "4"}},
		{"digits individual", `{"type":"Digits","individual_digits":true}`, "ab12", []string{"ab", "1", "2"}},
		{"split removed", `{"type":"Split","pattern":{"String":"--"},"behavior":"Removed","invert":false}`, "a--b----c", []string{"a", "b", "c"}},
		{"split isolated", `{"type":"Split","pattern":{"String":"-"},"behavior":"Isolated","invert":false}`, "a-b", []string{"a", "-", "b"}},
		{"split regex", `{"type":"Split","pattern":{"Regex":"\\d+"},"behavior":"Isolated","invert":false}`, "a12b", []string{"a", "12", "b"}},
		{"split gpt2", `{"type":"Split","pattern":{"Regex":"` + strings.ReplaceAll(gpt2Pattern, `\`, `\\`) + `"},"behavior":"Isolated","invert":false}`, "I'll go  now", []string{"I", "'ll", " go", " ", " now"}},
		{"metaspace always", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true}`, "hi  you", []string{"▁hi", "▁", "▁you"}},
		{"metaspace never no split", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"never","split":false}`, "hi you", []string{"hi▁you"}},
		{"metaspace legacy add_prefix_space", `{"type":"Metaspace","replacement":"▁","add_prefix_space":true}`, "hi", []string{"▁hi"}},
		{"sequence", `{"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},{"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":true}]}`, "a b", []string{"▁a", "b"}},
		{"byte level no regex", `{"type":"ByteLevel","add_prefix_space":false,"use_regex":false}`, "a b", []string{"aĠb"}},
		{"gpt2 trailing spaces", `{"type":"ByteLevel","add_prefix_space":false}`, "a  \n", []string{"a", "ĠĠĊ"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := preSplit(t, tt.js, tt.text); !slices.Equal(got, tt.want) {
				t.Fatalf("split(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestNormalizers(t *testing.T) {
	tests := []struct {
		name, js, text, want string
	}{
		{"nfkc", `{"type":"NFKC"}`, "ﬁ\u00a0①", "fi 1"},
		{"nfd strip accents", `{"type":"Sequence","normalizers":[{"type":"NFD"},{"type":"StripAccents"}]}`, "Café", "Cafe"},
		{"nfc", `{"type":"NFC"}`, "Cafe\u0301", "Café"},
		{"nfkd", `{"type":"NFKD"}`, "ﬁ", "fi"},
		{"lowercase", `{"type":"Lowercase"}`, "ÀB", "àb"},
		{"strip", `{"type":"Strip","strip_left":true,"strip_right":false}`, "  a  ", "a  "},
		{"prepend", `{"type":"Prepend","prepend":"▁"}`, "a", "▁a"},
		{"prepend empty", `{"type":"Prepend","prepend":"▁"}`, "", ""},
		{"replace", `{"type":"Replace","pattern":{"String":"''"},"content":"\""}`, "''hi''", `"hi"`},
		{"replace regex", `{"type":"Replace","pattern":{"Regex":" {2,}"},"content":" "}`, "a   b", "a b"},
		{"precompiled is nfkc", `{"type":"Precompiled","precompiled_charsmap":"AAAA"}`, "ｈｉ", "hi"},
		{"bert keep accents", `{"type":"BertNormalizer","lowercase":true,"strip_accents":false}`, "Café\t日", "café  日 "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := parseNormalizer(json.RawMessage(tt.js))
			if err != nil {
				t.Fatal(err)
			}
			if got := n.normalize(tt.text); got != tt.want {
				t.Fatalf("normalize(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	const model = `{"type":"WordLevel","vocab":{"a":0,"[UNK]":1},"unk_token":"[UNK]"}`
	tests := []struct {
		name, json, wantMsg string
		unsupported         bool
	}{
		{"malformed", `{"model": `, "parse tokenizer json", false},
		{"no model", `{"normalizer": null}`, "no model", false},
		{"unknown model", `{"model":{"type":"Fancy","vocab":{}}}`, `model type "Fancy" (supported: Unigram, WordPiece, BPE, WordLevel)`, true},
		{"unknown normalizer", `{"normalizer":{"type":"Magic"},"model":` + model + `}`, `normalizer type "Magic" (supported: NFC,`, true},
		{"unknown nested normalizer", `{"normalizer":{"type":"Sequence","normalizers":[{"type":"Magic"}]},"model":` + model + `}`, `normalizer type "Magic"`, true},
		{"unknown pre-tokenizer", `{"pre_tokenizer":{"type":"UnicodeScripts"},"model":` + model + `}`, `pre_tokenizer type "UnicodeScripts" (supported: Metaspace,`, true},
		{"unknown post-processor", `{"post_processor":{"type":"Magic"},"model":` + model + `}`, `post_processor type "Magic"`, true},
		{"lookahead regex", `{"pre_tokenizer":{"type":"Split","pattern":{"Regex":"a(?!b)"},"behavior":"Isolated"},"model":` + model + `}`, "Split pattern", true},
		{"bad behavior", `{"pre_tokenizer":{"type":"Split","pattern":{"String":"a"},"behavior":"Sideways"},"model":` + model + `}`, `split behavior "Sideways"`, false},
		{"missing unk", `{"model":{"type":"WordPiece","vocab":{"a":0}}}`, `token "[UNK]" not in vocab`, false},
		{"bad merge", `{"model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":["a b"]}}`, `token "ab" not in vocab`, false},
		{"unk_id out of range", `{"model":{"type":"Unigram","vocab":[["a",-1.0]],"unk_id":3}}`, "unk_id 3", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.json))
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
			if !errors.Is(err, cairn.ErrInvalid) {
				t.Errorf("error %q does not match cairn.ErrInvalid", err)
			}
			if got := errors.Is(err, ErrUnsupported); got != tt.unsupported {
				t.Errorf("errors.Is(%q, ErrUnsupported) = %v, want %v", err, got, tt.unsupported)
			}
		})
	}
	if _, err := Load(filepath.Join("testdata", "missing.json")); err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
}

func TestUntaggedModel(t *testing.T) {
	tok, err := Parse([]byte(`{"model":{"vocab":[["▁a",-1.0],["<unk>",0.0]],"unk_id":1},` +
		`"pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if tok.Model() != "Unigram" {
		t.Fatalf("Model() = %q, want Unigram", tok.Model())
	}
	if got, want := tok.Encode("a bc"), []int{0, 1}; !slices.Equal(got, want) {
		t.Fatalf("Encode = %v, want %v", got, want)
	}
}
