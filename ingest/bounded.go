package ingest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/klauspost/compress/zstd"
)

// Bounded reading of transcripts (issue 13 item 5). A transcript is read
// from its file in one streaming pass that keeps memory bounded whatever the
// file holds:
//
//   - zstd input (Codex .jsonl.zst) is decoded as a stream, at most
//     MaxDecodedBytes of it, with a bounded decoder window;
//   - in JSON and JSONL, every string value longer than MaxStringBytes is cut
//     there (an image's base64, a file dumped by a tool, a runaway output) and
//     ends with "…"; the JSON stays valid. A cut that would fall inside a
//     word (a run of printable ASCII without blanks, quotes or backslashes)
//     is made at the word's end instead, at most CutSlackBytes later, so a
//     token straddling the budget reaches the redactor whole: cut first, a
//     ghp_ token's first half was kept, and no rule matches half a token
//     (ux F3);
//   - a JSONL line still longer than MaxLineBytes after that is skipped (a
//     blank line takes its place, so line numbers stay);
//   - what is kept stops at MaxTranscriptBytes, at the end of the last whole
//     line (JSONL, Markdown), so the start of a very long session is indexed
//     and later lines are left out. A single JSON document (Gemini's older
//     .json, a ChatGPT export) cannot be cut like that: over the budget it is
//     refused with ErrTranscriptTooLarge.
//
// Each cut is counted by reason in BoundedData.Cut, which the engine shows
// in the sync status ("truncated"), so nothing is dropped silently. Keeping
// the start rather than the end makes a session that grows past the budget
// stable: its projection, and the memories made from it, stop changing.
const (
	MaxStringBytes     = 32 << 10
	CutSlackBytes      = 1 << 10 // a cut moves to the end of a word at most this far
	MaxLineBytes       = 8 << 20
	MaxTranscriptBytes = 24 << 20
	MaxDecodedBytes    = 256 << 20
	maxZstdWindow      = 32 << 20
)

// Cut reasons, the keys of BoundedData.Cut: codes of the root package
// (cairn.ReasonText gives each one's sentence).
const (
	CutString     = cairn.CutStringCut
	CutLine       = cairn.CutLineOverLimit
	CutTranscript = cairn.CutOverBudget
	CutDecoded    = cairn.CutDecompressed
	CutMarkdown   = cairn.CutMarkdownLine
)

// ErrTranscriptTooLarge is the error of a single-document transcript over
// MaxTranscriptBytes after its long strings were cut.
var ErrTranscriptTooLarge = errors.New("transcript too large")

// BoundedData is a transcript as read: the bytes to parse, the sha256 of the
// file's bytes that were read, and what was cut.
type BoundedData struct {
	Data []byte
	Hash string
	Cut  map[string]int
}

func (b *BoundedData) cut(reason string, n int) {
	if n == 0 {
		return
	}
	if b.Cut == nil {
		b.Cut = map[string]int{}
	}
	b.Cut[reason] += n
}

// transcriptFormat tells how a transcript file is laid out: "json" (one
// document), "text" (Aider's Markdown) or "jsonl".
func transcriptFormat(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".zst")
	switch {
	case strings.HasSuffix(name, ".json"):
		return "json"
	case strings.HasSuffix(name, ".md"):
		return "text"
	}
	return "jsonl"
}

// ReadTranscript reads the transcript at path (for its format) from r under
// the bounds above.
func ReadTranscript(r io.Reader, path string) (BoundedData, error) {
	var out BoundedData
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(r, h), 64<<10)
	var src io.Reader = br
	if head, _ := br.Peek(len(codexZstdMagic)); bytes.Equal(head, codexZstdMagic) {
		dec, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(MaxDecodedBytes), zstd.WithDecoderMaxWindow(maxZstdWindow))
		if err != nil {
			return out, fmt.Errorf("decompress transcript: %w", err)
		}
		defer dec.Close()
		src = &capReader{r: dec, left: MaxDecodedBytes, out: &out}
	}
	var err error
	switch transcriptFormat(path) {
	case "text":
		err = readTextBounded(src, &out)
	default:
		err = readJSONBounded(src, transcriptFormat(path) == "jsonl", &out)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil // a stream cut short (a file still being written) yields what was decoded
	}
	if err != nil {
		return out, err
	}
	out.Hash = hex.EncodeToString(h.Sum(nil))
	return out, nil
}

// capReader stops a decoded stream at a byte budget and records the cut.
type capReader struct {
	r    io.Reader
	left int64
	out  *BoundedData
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		c.out.cut(CutDecoded, 1)
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// errBudget stops a read once the transcript budget is spent.
var errBudget = errors.New("transcript budget spent")

// readJSONBounded copies JSON or JSONL from r into out.Data, cutting long
// strings (jsonCutter); for JSONL it also skips overlong lines and stops at
// the budget on a line boundary.
func readJSONBounded(r io.Reader, lines bool, out *BoundedData) error {
	c := jsonCutter{out: out, lines: lines, maxString: MaxStringBytes}
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if berr := c.write(buf[:n]); berr != nil {
				return c.finish(berr)
			}
		}
		if err == io.EOF {
			return c.finish(nil)
		}
		if err != nil {
			return c.finish(err)
		}
	}
}

// jsonCutter is a byte-level JSON scanner that copies its input and cuts
// every string value at MaxStringBytes. It never cuts inside an escape
// sequence or a UTF-8 character, so valid JSON stays valid. A raw newline
// ends a line (JSON strings cannot hold one) and resets the scanner, so a
// malformed line cannot disturb the next.
type jsonCutter struct {
	out       *BoundedData
	lines     bool
	maxString int // MaxStringBytes; smaller in the fuzz test
	inStr     bool
	esc       bool // the previous byte was a backslash
	hex       int  // \u digits still to come
	uval      int  // the \u escape's value so far
	high      bool // the last escape was a high surrogate: no cut before its pair
	strLen    int  // bytes of the current string kept
	cutting   bool // the current string is past its budget
	lineStart int  // offset in out.Data of the current line
	skipLine  bool // the current line is over MaxLineBytes
	lineCut   int  // strings cut in the current line
	inWord    bool // the last byte kept is a word byte of the string (wordByte), not of an escape
}

// wordByte reports a byte of a word a cut is not made inside: printable
// ASCII other than the blank, a quote and a backslash.
func wordByte(b byte) bool { return b > ' ' && b < 0x7f && b != '"' && b != '\\' && b != '\'' }

func (c *jsonCutter) write(p []byte) error {
	for i := 0; i < len(p); i++ {
		if c.inStr && c.cutting && !c.esc && c.hex == 0 {
			i += skipCut(p[i:]) // the rest of a cut string is dropped unread
			if i == len(p) {
				return nil
			}
		}
		b := p[i]
		if b == '\n' {
			if err := c.endLine(); err != nil {
				return err
			}
			continue
		}
		if c.skipLine {
			continue
		}
		if !c.inStr {
			if b == '"' {
				c.inStr, c.strLen, c.cutting, c.high, c.inWord = true, 0, false, false, false
			}
			c.emit(b)
		} else {
			c.strByte(b)
		}
		if c.lines && len(c.out.Data)-c.lineStart > MaxLineBytes {
			c.out.Data, c.skipLine = c.out.Data[:c.lineStart], true
		}
		if !c.lines && len(c.out.Data) > MaxTranscriptBytes {
			return fmt.Errorf("read transcript: %w: over %d MiB after cutting long strings", ErrTranscriptTooLarge, MaxTranscriptBytes>>20)
		}
	}
	return nil
}

func (c *jsonCutter) emit(b byte) { c.out.Data = append(c.out.Data, b) }

func hexDigit(b byte) int {
	switch {
	case b >= '0' && b <= '9':
		return int(b - '0')
	case b >= 'a' && b <= 'f':
		return int(b-'a') + 10
	case b >= 'A' && b <= 'F':
		return int(b-'A') + 10
	}
	return 0
}

// skipCut returns how many bytes of p hold no quote, backslash or newline:
// the bytes a cut string drops without looking at them one by one. It looks
// at most 4 KiB ahead, so a string dense with escapes stays linear.
func skipCut(p []byte) int {
	w := p[:min(len(p), 4<<10)]
	n := len(w)
	for _, c := range []byte{'"', '\\', '\n'} {
		if j := bytes.IndexByte(w[:n], c); j >= 0 {
			n = j
		}
	}
	return n
}

// strByte handles one byte inside a string.
func (c *jsonCutter) strByte(b byte) {
	plain := !c.esc && c.hex == 0
	safe := plain && (b < 0x80 || b >= 0xC0) // a character starts here
	if safe && c.high {
		safe, c.high = false, false // the low half of a surrogate pair follows
	}
	switch {
	case c.esc:
		c.esc = false
		if b == 'u' {
			c.hex, c.uval = 4, 0
		}
	case c.hex > 0:
		c.hex--
		c.uval = c.uval<<4 | hexDigit(b)
		c.high = c.hex == 0 && c.uval >= 0xD800 && c.uval <= 0xDBFF
	case b == '\\':
		c.esc = true
	case b == '"':
		if c.cutting {
			c.out.Data = append(c.out.Data, "…"...)
		}
		c.inStr = false
		c.emit(b)
		return
	}
	if safe && !c.cutting && c.strLen >= c.maxString &&
		!(c.inWord && wordByte(b) && c.strLen < c.maxString+CutSlackBytes) {
		c.cutting = true
		c.lineCut++
	}
	if !c.cutting {
		c.emit(b)
		c.strLen++
		c.inWord = plain && wordByte(b)
	}
}

// endLine closes a line: JSONL lines are kept, skipped or end the read at
// the budget; in a document the newline is kept as it is.
func (c *jsonCutter) endLine() error {
	c.inStr, c.esc, c.hex, c.cutting, c.high = false, false, 0, false, false
	if !c.lines {
		c.emit('\n')
		return nil
	}
	if c.skipLine {
		// a blank line in its place keeps the numbers of the lines after it
		// (some parsers derive message ids from them)
		c.out.cut(CutLine, 1)
		c.skipLine = false
		c.out.Data = append(c.out.Data[:c.lineStart], '\n')
		c.lineStart = len(c.out.Data)
		c.lineCut = 0
		return nil
	}
	c.emit('\n')
	if len(c.out.Data) > MaxTranscriptBytes {
		c.out.Data = c.out.Data[:c.lineStart]
		c.out.cut(CutTranscript, 1)
		return errBudget
	}
	c.out.cut(CutString, c.lineCut)
	c.lineCut = 0
	c.lineStart = len(c.out.Data)
	return nil
}

// finish handles the end of input: a last line without a newline stays as
// it is (the parsers leave a half-written record for the next read).
func (c *jsonCutter) finish(err error) error {
	if errors.Is(err, errBudget) {
		return nil
	}
	if c.skipLine {
		c.out.cut(CutLine, 1)
		c.out.Data = c.out.Data[:c.lineStart]
	} else {
		c.out.cut(CutString, c.lineCut)
	}
	if c.lines && len(c.out.Data) > MaxTranscriptBytes {
		c.out.Data = c.out.Data[:c.lineStart]
		c.out.cut(CutTranscript, 1)
	}
	return err
}

// readTextBounded copies Markdown from r into out.Data line by line, cutting
// lines at MaxStringBytes and stopping at the budget on a line boundary.
func readTextBounded(r io.Reader, out *BoundedData) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		over := errors.Is(err, bufio.ErrBufferFull)
		kept := line
		if n := MaxStringBytes; len(kept) > n {
			for n < len(kept) && n < MaxStringBytes+CutSlackBytes && wordByte(kept[n-1]) && wordByte(kept[n]) {
				n++ // not inside a word: a token straddling the cut is kept whole
			}
			kept = kept[:n]
			for len(kept) > 0 && kept[len(kept)-1]&0xC0 == 0x80 {
				kept = kept[:len(kept)-1]
			}
		}
		for over { // the rest of an overlong line is dropped
			_, err = br.ReadSlice('\n')
			over = errors.Is(err, bufio.ErrBufferFull)
		}
		if len(kept) < len(line) {
			out.cut(CutMarkdown, 1)
			kept = append(append([]byte(nil), kept...), "…\n"...)
		}
		if len(out.Data)+len(kept) > MaxTranscriptBytes {
			out.cut(CutTranscript, 1)
			return nil
		}
		out.Data = append(out.Data, kept...)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
