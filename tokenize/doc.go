// Package tokenize loads Hugging Face tokenizer.json files and turns text
// into token ids, without Python, Rust or cgo. It covers the pipelines of the
// sentence-embedding models people run locally: a normalizer, a
// pre-tokenizer, one of the Unigram, WordPiece, BPE or WordLevel models and
// an optional post-processor that adds special tokens such as [CLS] and
// [SEP].
//
// Quick start:
//
//	tok, err := tokenize.Load("models/use-lite/tokenizer.json")
//	if err != nil {
//		return err
//	}
//	ids := tok.Encode("Meeting with Alice moved to Thursday at 3pm.")
//	n := tok.Count("another text") // len(tok.Encode(...)) without keeping the ids
//
// A Tokenizer is immutable after Load or Parse and safe for concurrent use.
//
// Supported components (anything else fails to load with an error that
// matches ErrUnsupported and cairn.ErrInvalid and lists the supported types):
//
//   - normalizers: NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip,
//     Prepend, Replace (String pattern, or a Regex pattern that Go's regexp
//     accepts), BertNormalizer, Precompiled, Sequence;
//   - pre-tokenizers: Metaspace, Whitespace, WhitespaceSplit,
//     BertPreTokenizer, ByteLevel, Punctuation, Digits, CharDelimiterSplit,
//     Split (String pattern, or a Regex that Go's regexp accepts), Sequence;
//   - models: Unigram, WordPiece, BPE, WordLevel;
//   - post-processors: TemplateProcessing (single-sequence template),
//     BertProcessing, RobertaProcessing, ByteLevel (no effect on ids),
//     Sequence.
//
// Approximations, on purpose:
//
//   - Precompiled (the SentencePiece character map embedded in T5, XLM-R and
//     similar files) is applied as NFKC. The real maps are NFKC plus a few
//     NMT rules (control characters dropped, some spaces unified), so texts
//     with control characters or unusual spaces can differ.
//   - Added tokens (the file's added_tokens) are matched in the raw text by
//     exact content, honoring lstrip and rstrip; single_word and the
//     normalized flag are not honored.
//   - Truncation, padding and the decoder are ignored: Encode returns every
//     id. BPE dropout is ignored (encoding is deterministic).
//   - Unicode tables are Go's, which can differ from Rust's in the newest
//     code points.
package tokenize
