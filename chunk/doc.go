// Package chunk is Cairn's structural Markdown chunker: it cuts a document
// into chunks that are exact, contiguous slices of its text, sized for
// search and embedding, without any model.
//
// Quick start:
//
//	c := chunk.New() // 100 to 300 estimated tokens a chunk
//	for _, ch := range c.Chunk(text) {
//		fmt.Println(ch.StartLine, ch.EndLine, text[ch.Pos:ch.Pos+ch.Len])
//	}
//
// # Atoms
//
// The text is first cut, line by line, into atoms that keep their exact byte
// offsets. Each atom ends at a line end (or the end of the text) and takes
// the blank lines after it along:
//
//   - front matter: a YAML block between "---" lines at the very start;
//   - heading: an ATX line (` {0,3}#{1,6}(\s|$)`) or a one-line setext
//     heading (a line underlined with "===" or "---");
//   - rule: a thematic break ("---", "***", "___");
//   - fenced code: ``` or ~~~ up to the matching closer, or to the end of
//     the text when unclosed;
//   - table: lines starting with '|', or a line with a '|' followed by a
//     delimiter row, and the non-blank lines with a '|' after them;
//   - list item: a top-level item with its indented continuation lines,
//     nested items, fences and lazy continuation lines;
//   - paragraph: prose lines up to a blank line or a line that starts
//     another block;
//   - blank: blank lines at the start of the text.
//
// # Hard boundaries
//
// A chunk never spans the start of a heading, a rule, or a line (in column
// 0, outside code, tables and list items) starting with "Decision:",
// "Preference:", "Task:", "Outcome:", "Observation:", a session header
// ("Session:", "Session 3:", "Session ID: x", "Conversation #2") or a
// timestamp ("2024-05-01 10:30", "2024-05-01T10:30:00Z", "[10:30]",
// "[10:30:15]"). Such a line starts its own atom and a new chunk. Speaker
// labels ("Alice:") and file names ("2024-05-01 10:30.md") are not
// boundaries. Two exceptions: a chunk holding only headings stays open
// across a deeper heading, so "# Guide" travels with "## Install" and its
// text instead of standing alone; and a chunk holding only noise lines
// (see Output) stays open across a boundary that is noise too, so a run of
// empty headings, rules or bare markers is one chunk while it fits, not
// one chunk each (a note of 4.95M "#" lines made 4.95M chunks).
//
// # Packing
//
// Between hard boundaries atoms are packed greedily: the next atom joins the
// open chunk while the chunk stays within MaxTokens, so a chunk below
// MinTokens absorbs what follows whenever that fits. When an atom does not
// fit, the chunk is emitted and the atom opens the next one, with these
// exceptions that keep a heading with the content after it:
//
//   - a fenced code block or table is not split by tokens; larger than
//     MaxTokens it becomes one oversized chunk, together with a heading-only
//     chunk before it;
//   - a prose atom (paragraph, list item, front matter, long heading) larger
//     than MaxTokens, or one that does not fit after a heading-only chunk, is
//     split. The first piece fills the open chunk when that is heading-only or
//     below MinTokens; later pieces hold up to MaxTokens; the last piece stays
//     open for the atoms after it. A piece ends after a sentence end ('.', '!'
//     or '?' and whitespace), else a line end, else whitespace, preferring the
//     last such boundary that leaves it at least half full, and only when
//     there is no whitespace at all is it cut hard, between code points.
//
// A note of more than 1,024 chunks averaging under 32 bytes (thousands of
// one-word sections: generated, not written) is packed again with hard
// boundaries open while a chunk is below MinTokens, so it makes chunks of
// about MinTokens instead of one a section.
//
// # Byte ceiling
//
// No chunk is longer than MaxBytes (32 KiB by default), code and tables
// included, so what one chunk costs to store, show and embed is bounded
// whatever a note holds (a 9.9 MB one-line table was one chunk and took
// 0.93 GB to embed). An atom longer than that is cut into pieces at line
// ends; a longer line after its last whitespace when that leaves the piece
// at least half full, else between code points. A piece cut inside a word
// starts a chunk of its own (token estimates add up only across
// whitespace); a piece of code or a table stays code or table. Ordinary
// Markdown never reaches the ceiling: the largest chunk of the 561 files
// of the issue 19 docs corpus is 12 KB.
//
// # Output
//
// Chunks cover the text exactly: the first starts at 0, each starts where the
// previous ends, the last ends at len(text). Seq counts from 0, StartLine and
// EndLine are 1-based and inclusive (a chunk ending in '\n' ends on the line
// that newline terminates), and Tokens is EstimateTokens of the slice. CRLF
// line ends count as one line break and stay in the slice; a byte that is not
// valid UTF-8 is a unit of its own, and no cut falls inside a multi-byte
// character. A chunk
// whose lines are all blank, Markdown markers, rules, bare fences or lone
// HTML comments is flagged Noise: it is stored for exact reads, not indexed.
//
// Changing any of this for ordinary Markdown changes Version, which makes
// stores re-index (see Version for the one change that did not).
package chunk
