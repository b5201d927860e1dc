package port

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// ImportOptions tune an import. A nil pointer means defaults.
type ImportOptions struct {
	// Replace deletes what the target agent holds first; without it a
	// target that holds anything is refused.
	Replace bool
	// Embedder is the identity key (cairn.EmbedderIdentity.Key) of the
	// embedder the target is configured with, "" for none: an export
	// whose vectors were all made by another provider and model is
	// refused (its vectors would be of no use and everything would be
	// embedded again), unless AnyModel is set.
	Embedder string
	// EmbedderAlso are identity keys the target accepts beside Embedder:
	// with [embedder] quantize = "auto" the same model under the other
	// quantization (an index without vectors takes the export's, and
	// keeps it after: cmd/cairn/embedder_auto.go).
	EmbedderAlso []string
	AnyModel     bool
	// Partial keeps what arrived when lines are broken, refused or
	// missing (the end line counts more than came). Without it any of
	// those fails the import and nothing is written. With it a document
	// whose text lost chunk rows is left out whole (its content, chunks,
	// vectors and document rows), so that the next sync indexes it again
	// from its file instead of keeping a document with a hole.
	Partial bool
	// Progress, as ExportOptions.Progress, counts rows read.
	Progress func(done, total int64)
	// FeatureVersion is the index feature version the target makes
	// (engine.FeatureVersion), "" for the store's own: ImportTo checks
	// the export against it before it opens the target.
	FeatureVersion string
	// Target names the target in messages ("agent default in /data/x"),
	// "" for the store's kind.
	Target string
	// SessionsDir is the folder the target agent keeps its session
	// copies in (engine.SessionsDir under its data directory), "" for
	// none: an import writes each imported session's document there, as
	// a sync projects it, so that a session whose transcript is gone
	// (moved to a new machine; Claude Code deletes them after 30 days)
	// is kept by the next sync instead of removed with its missing copy
	// (sessioncopies.go).
	SessionsDir string
}

// Problem is one line an import left out, and why.
type Problem struct {
	Line   int    `json:"line"`
	Table  string `json:"table,omitempty"`
	Reason string `json:"reason"`
}

// MaxProblems is how many problems a result lists; the rest are counted.
const MaxProblems = 100

// ImportResult is what an import did.
type ImportResult struct {
	Header   Header           `json:"header"`
	Counts   map[string]int64 `json:"counts"`   // rows written per table
	Rejected int              `json:"rejected"` // lines left out: broken, or refused by the store
	Problems []Problem        `json:"problems"` // the first MaxProblems of them
	// Missing counts, per table, the rows the end line counts that did
	// not arrive (lines deleted from the file, or broken ones).
	Missing map[string]int64 `json:"missing,omitempty"`
	// Dropped lists the documents (corpus/path) left out because their
	// text lost chunks (--partial only; the first MaxProblems of them);
	// DroppedCount counts them all. The next sync indexes them again.
	Dropped      []string `json:"dropped,omitempty"`
	DroppedCount int      `json:"dropped_count,omitempty"`
	// Corpora counts the documents written per corpus: what the target's
	// config must define, or its next sync removes them.
	Corpora map[string]int64 `json:"corpora"`
	// SessionCopies counts the session copies written (ImportOptions.
	// SessionsDir); CopyError says why the others were not, "" when all
	// were. The import stands either way: a sync re-projects a session
	// whose transcript is still there.
	SessionCopies int    `json:"session_copies,omitempty"`
	CopyError     string `json:"copy_error,omitempty"`
}

// Reader reads an export: the header at once, then rows (cairn.PortSource).
type Reader struct {
	Header Header
	lines  lineReader
	types  map[string][]cairn.PortType
	dims   map[string]int
	ended  bool
	res    *ImportResult
	prog   func(done, total int64)
	read   int64

	partial  bool
	lineRows map[string]int64 // rows read per table, as the end line counts them
	endLine  int
	brokenN  int64  // lines that were no row at all
	section  string // the table of the last row passed on
	cur      string // the content hash the next chunks belong to
	content  map[string]*contentRun
	chunked  bool         // a chunk row has come: contents from here on have chunks
	sessions []sessionRef // the sessions rows read, for their copies
}

// contentRun is what arrived of one content's chunks, to tell one that
// lost some (a seq skipped, a tail cut off, a broken line among them).
type contentRun struct {
	size    int64 // bytes of the text up to its trailing white space
	next    int64 // the seq the next chunk should have
	end     int64 // the furthest byte the chunks reach
	chunks  int64 // chunk rows passed on and not refused
	late    bool  // came after chunks began, so it had chunks
	written bool  // its content row went on to the store
	tainted bool
}

// NewReader reads and checks the header of an export, gzip compressed or
// not. An unknown format or version, or tables this binary reads with
// other columns, are errors matching cairn.ErrInvalid that name the field.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, cairn.Invalidf("read export: %v", err)
		}
		br = bufio.NewReaderSize(gz, 1<<20)
	}
	rd := &Reader{lines: lineReader{br: br}, types: map[string][]cairn.PortType{}, dims: map[string]int{},
		res:      &ImportResult{Counts: map[string]int64{}, Problems: []Problem{}, Corpora: map[string]int64{}},
		lineRows: map[string]int64{}, content: map[string]*contentRun{}}
	first, too, err := rd.lines.next()
	if errors.Is(err, io.EOF) {
		return nil, cairn.Invalidf("read export: the file is empty")
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, cairn.Invalidf("read export: the file ends at line 1 without its end line: it was cut short")
	}
	if err != nil {
		return nil, fmt.Errorf("read export: %w", err)
	}
	if too || json.Unmarshal(first, &rd.Header) != nil || rd.Header.Format != Format {
		return nil, cairn.Invalidf("format: line 1 is not a %s header", Format)
	}
	if rd.Header.Version != Version {
		return nil, cairn.Invalidf("version: the export is format version %d, this binary reads version %d", rd.Header.Version, Version)
	}
	if err := checkSpec(&rd.Header); err != nil {
		return nil, err
	}
	for _, t := range cairn.PortTables {
		for _, c := range t.Columns {
			rd.types[t.Name] = append(rd.types[t.Name], c.Type)
		}
	}
	for _, m := range rd.Header.Models {
		rd.dims[m.Identity] = m.Dimension
	}
	rd.res.Header = rd.Header
	return rd, nil
}

// Next returns the next row that reads as its table's columns; a line
// that does not is counted as a problem and skipped (without
// ImportOptions.Partial the first problem is an error instead, which
// rolls the import back). After the end line it returns io.EOF; a file
// that ends without one, gzip or not, is an error, and so is a line
// after the end line (two exports joined, say).
func (rd *Reader) Next() (cairn.PortRow, error) {
	for {
		if err := rd.strict(); err != nil {
			return cairn.PortRow{}, err
		}
		if rd.ended {
			return cairn.PortRow{}, io.EOF
		}
		b, too, err := rd.lines.next()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			// gzip says ErrUnexpectedEOF where a plain file just ends
			return cairn.PortRow{}, cairn.Invalidf("read export: the file ends at line %d without its end line: it was cut short", rd.lines.n)
		}
		if err != nil {
			return cairn.PortRow{}, fmt.Errorf("read export: %w", err)
		}
		n := rd.lines.n
		if too {
			rd.broken(n, "", fmt.Sprintf("line over %d MiB", MaxLine>>20))
			continue
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		r, err := rd.parse(b, n)
		if err != nil && rd.lines.cut {
			return cairn.PortRow{}, cairn.Invalidf("read export: the file ends at line %d without its end line: it was cut short", n)
		}
		if err != nil {
			if r.Values == nil {
				rd.broken(n, r.Table, err.Error())
			} else {
				rd.lineRows[r.Table]++
				rd.refuse(r, err.Error())
			}
			continue
		}
		if rd.ended {
			if err := rd.afterEnd(); err != nil {
				return cairn.PortRow{}, err
			}
			continue
		}
		rd.lineRows[r.Table]++
		if !rd.pass(r) {
			continue
		}
		rd.read++
		if rd.prog != nil && rd.read%ProgressEvery == 0 {
			rd.prog(rd.read, max(rd.Header.Rows(), rd.read))
		}
		return r, nil
	}
}

// afterEnd reads what follows the end line: blank lines only.
func (rd *Reader) afterEnd() error {
	for {
		b, _, err := rd.lines.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return cairn.Invalidf("read export: after the end line (line %d): %v", rd.endLine, err)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			return cairn.Invalidf("read export: line %d follows the end line (line %d): is it two exports joined together? import each file by itself", rd.lines.n, rd.endLine)
		}
	}
}

func (rd *Reader) parse(b []byte, n int) (cairn.PortRow, error) {
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return cairn.PortRow{}, fmt.Errorf("not JSON: %v", err)
	}
	if l.End {
		rd.ended, rd.endLine = true, n
		rd.countMissing(l.Counts)
		return cairn.PortRow{}, nil
	}
	r := cairn.PortRow{Table: l.T, Line: n}
	types, ok := rd.types[l.T]
	if !ok {
		return r, fmt.Errorf("unknown table %q", l.T)
	}
	if len(l.V) != len(types) {
		return r, fmt.Errorf("%d values for the %d columns of %s", len(l.V), len(types), l.T)
	}
	t, _ := cairn.PortTableNamed(l.T)
	r.Values = make([]any, len(types))
	for i, raw := range l.V {
		v, err := decodeValue(types[i], raw)
		if err != nil {
			return cairn.PortRow{Table: l.T, Line: n}, fmt.Errorf("%s.%s: %v", l.T, t.Columns[i].Name, err)
		}
		r.Values[i] = v
	}
	return r, rd.check(r)
}

// check holds a row to what the tables accept: a vector of a model the
// header names, of its dimension; the enumerated values of curation.
func (rd *Reader) check(r cairn.PortRow) error {
	v := r.Values
	switch r.Table {
	case cairn.PortVectors:
		dim, ok := rd.dims[v[0].(string)]
		switch {
		case !ok:
			return fmt.Errorf("vector of model %q, which the header does not name", v[0])
		case len(v[3].([]float32)) != dim:
			return fmt.Errorf("vector of %d values, the model's dimension is %d", len(v[3].([]float32)), dim)
		}
		if err := checkVector(v[0].(string), v[3].([]float32)); err != nil {
			return err
		}
	case "maintenance_tasks":
		if !slices.Contains([]string{cairn.TaskAmbiguousEventTime, cairn.TaskExactDuplicate, cairn.TaskQualityReview}, v[1].(string)) {
			return fmt.Errorf("maintenance_tasks.type %q is not a task type", v[1])
		}
		if !slices.Contains([]string{cairn.TaskPending, cairn.TaskResolved, cairn.TaskDeferred, cairn.TaskIrrelevant}, v[8].(string)) {
			return fmt.Errorf("maintenance_tasks.status %q is not a task status", v[8])
		}
	case "memories":
		// The id and kind name the memory's document (kind/id.md): one
		// that could name a place outside the memories folder is a broken
		// row, like any other damage.
		if err := cairn.CheckMemoryPath(v[0].(string), v[1].(string)); err != nil {
			return err
		}
		if s := v[13].(string); s != "" && !cairn.ValidMemoryID(s) {
			return fmt.Errorf("memories.superseded_by %q is not a memory id", s)
		}
	case "documents", "sessions":
		if r.Table == "sessions" {
			rd.sessions = append(rd.sessions, sessionRef{v[0].(string), v[1].(string)})
		}
		// A document's path is its key for get, memory_get and the UI,
		// and a session's names its projection under the sessions
		// folder: an absolute one or one with "." or ".." segments is a
		// broken row (cairn export never writes one), as a memory id that
		// leaves the memories folder is.
		if err := checkDocPath(v[1].(string)); err != nil {
			return fmt.Errorf("%s.path: %w", r.Table, err)
		}
	case "temporal_annotations":
		if !slices.Contains([]string{cairn.BasisPath, cairn.BasisFrontmatter, cairn.BasisSession, cairn.BasisAgentVerified}, v[4].(string)) {
			return fmt.Errorf("temporal_annotations.basis %q is not a basis", v[4])
		}
	}
	return r.Check()
}

// checkDocPath says what is wrong with a document or projection path as
// an import reads it: it must be relative, in slash form, with no empty,
// "." or ".." segment (split at "/" and at "\\", which Windows also
// reads as a separator) and no NUL. A backslash elsewhere is kept: it is
// an ordinary character in a file name on Unix.
func checkDocPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("%q holds a NUL byte", p)
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, "\\") || driveLetter(p):
		return fmt.Errorf("%q is absolute; document paths are relative to their corpus", p)
	}
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == "." || seg == ".." {
			return fmt.Errorf("%q has a %q segment; document paths stay inside their corpus", p, seg)
		}
	}
	if strings.Contains(p, "//") || strings.HasSuffix(p, "/") {
		return fmt.Errorf("%q has an empty segment", p)
	}
	return nil
}

// driveLetter reports a Windows absolute path: "C:/..." or "C:\\...".
func driveLetter(p string) bool {
	return len(p) > 2 && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && p[1] == ':' && (p[2] == '/' || p[2] == '\\')
}

// Reject counts a row the store refused: not written.
func (rd *Reader) Reject(r cairn.PortRow, reason string) {
	rd.res.Counts[r.Table]--
	if r.Table == "documents" {
		rd.res.Corpora[r.Values[0].(string)]--
	}
	if r.Table == cairn.PortChunks {
		if c := rd.content[r.Values[0].(string)]; c != nil {
			c.chunks--
		}
	}
	rd.refuse(r, reason)
}

func (rd *Reader) problem(line int, table, reason string) {
	rd.res.Rejected++
	if len(rd.res.Problems) < MaxProblems {
		rd.res.Problems = append(rd.res.Problems, Problem{Line: line, Table: table, Reason: reason})
	}
}

// Done fails the import on any problem unless it is partial; a partial
// import drops the contents that lost chunks (cairn.PortSource).
func (rd *Reader) Done() ([]string, error) {
	if err := rd.strict(); err != nil {
		return nil, err
	}
	var drop []string
	for h, c := range rd.content {
		if !c.tainted {
			continue
		}
		drop = append(drop, h)
		if c.written {
			rd.res.Counts[cairn.PortContent]--
		}
		rd.res.Counts[cairn.PortChunks] -= c.chunks
	}
	slices.Sort(drop)
	for _, m := range []map[string]int64{rd.res.Counts, rd.res.Corpora} {
		for k, n := range m {
			if n == 0 {
				delete(m, k)
			}
		}
	}
	return drop, nil
}

// strict is the error that ends an import that is not partial: the
// first line left out, or rows the end line counts that did not come.
func (rd *Reader) strict() error {
	if rd.partial {
		return nil
	}
	const hint = "nothing was imported; pass --partial to import the rest (documents that lost chunks are left for the next sync to index again)"
	if len(rd.res.Problems) > 0 {
		p := rd.res.Problems[0]
		return cairn.Invalidf("import: line %d: %s; %s", p.Line, p.Reason, hint)
	}
	if len(rd.res.Missing) > 0 {
		return cairn.Invalidf("import: the end line (line %d) counts rows that did not arrive (%s): the file lost lines; %s", rd.endLine, missingList(rd.res.Missing), hint)
	}
	return nil
}

func missingList(m map[string]int64) string {
	var out []string
	for _, t := range slices.Sorted(maps.Keys(m)) {
		out = append(out, fmt.Sprintf("%d %s", m[t], t))
	}
	return strings.Join(out, ", ")
}

// countMissing compares the end line's counts with the rows that came.
// Rows the broken lines account for are not missing: only when more are
// short than lines were broken were lines taken out of the file.
func (rd *Reader) countMissing(want map[string]int64) {
	short, all := map[string]int64{}, int64(0)
	for t, n := range want {
		if got := rd.lineRows[t]; got < n {
			short[t] = n - got
			all += n - got
		}
	}
	if all > rd.brokenN {
		rd.res.Missing = short
	}
}

// broken counts a line that is no row at all: a broken line among a
// content's chunks may have been one of them, unless it still names
// another table.
func (rd *Reader) broken(line int, table, reason string) {
	_, known := cairn.PortTableNamed(table)
	other := known && table != cairn.PortContent && table != cairn.PortChunks
	if c := rd.content[rd.cur]; c != nil && !other && (rd.section == cairn.PortContent || rd.section == cairn.PortChunks) {
		c.tainted = true
	}
	rd.brokenN++
	rd.problem(line, table, reason)
}

// refuse counts a row left out; a content or chunk row taints its text.
func (rd *Reader) refuse(r cairn.PortRow, reason string) {
	if (r.Table == cairn.PortChunks || r.Table == cairn.PortContent) && len(r.Values) > 0 {
		if h, ok := r.Values[0].(string); ok {
			rd.run(h).tainted = true
		}
	}
	rd.problem(r.Line, r.Table, reason)
}

func (rd *Reader) run(h string) *contentRun {
	c := rd.content[h]
	if c == nil {
		c = &contentRun{late: rd.chunked}
		rd.content[h] = c
	}
	return c
}

// pass follows the contents and their chunks and says whether r goes
// on to the store: a repeated content row goes on but is not counted
// again; a document or vector of a text that lost chunks does not go.
func (rd *Reader) pass(r cairn.PortRow) bool {
	if r.Table != cairn.PortContent && r.Table != cairn.PortChunks && (rd.section == cairn.PortContent || rd.section == cairn.PortChunks) {
		rd.endChunks()
	}
	rd.section = r.Table
	v := r.Values
	switch r.Table {
	case cairn.PortContent:
		h := v[0].(string)
		rd.cur = h
		if _, again := rd.content[h]; again {
			return true
		}
		c := rd.run(h)
		c.size, c.written = int64(len(bytes.TrimRight(v[2].([]byte), " \t\r\n"))), true
	case cairn.PortChunks:
		h, seq, end := v[0].(string), v[1].(int64), v[2].(int64)+v[3].(int64)
		rd.chunked = true
		c := rd.run(h)
		if h != rd.cur || seq != c.next {
			c.tainted = true
		}
		c.next, c.end, c.chunks = seq+1, max(c.end, end), c.chunks+1
	case "documents":
		if c := rd.content[v[2].(string)]; c != nil && c.tainted {
			rd.res.DroppedCount++
			if len(rd.res.Dropped) < MaxProblems {
				rd.res.Dropped = append(rd.res.Dropped, v[0].(string)+"/"+v[1].(string))
			}
			return false
		}
		rd.res.Corpora[v[0].(string)]++
	case cairn.PortVectors:
		if c := rd.content[v[1].(string)]; c != nil && c.tainted {
			return false
		}
	}
	rd.res.Counts[r.Table]++
	return true
}

// endChunks looks at every content once the chunks are over: one that
// has chunks, or came among the chunks (so it had some), but whose
// chunks stop short of its text's end lost its last ones. The chunker
// covers a text to its last byte but for trailing white space.
func (rd *Reader) endChunks() {
	for _, c := range rd.content {
		if (c.late || c.next > 0) && c.end < c.size {
			c.tainted = true
		}
	}
}

// Import reads an export from r into p: the header is checked against
// the target (the feature version its chunks need, the embedder it is
// configured with), then every row goes to p.Import in one transaction.
// Broken lines and rows the store refuses are counted in the result,
// with their line, and the rest is imported.
func Import(ctx context.Context, p cairn.Porter, r io.Reader, o *ImportOptions) (*ImportResult, error) {
	if o == nil {
		o = &ImportOptions{}
	}
	rd, err := checkHeader(r, o)
	if err != nil {
		return nil, refuse(ctx, p, err)
	}
	return importRead(ctx, p, rd, o)
}

// Target is where ImportTo writes: how to open it, and the folder that
// opening may create (a SQLite data directory; PostgreSQL's caches).
type Target struct {
	Dir  string
	Open func(ctx context.Context) (cairn.Storage, error)
}

// ImportTo reads an export into the store t opens, as Import does, and
// leaves nothing behind when the import is refused or fails: the header,
// the format and feature versions and the models are checked before the
// store is opened, a store that opening created is removed again (the
// folder Dir, when it was not there or empty before; PostgreSQL's agent
// row, by the store's own Import), and one that held anything is left as
// it was.
func ImportTo(ctx context.Context, t Target, r io.Reader, o *ImportOptions) (*ImportResult, error) {
	if o == nil {
		o = &ImportOptions{}
	}
	rd, err := checkHeader(r, o)
	if err != nil {
		return nil, err
	}
	fresh := emptyDir(t.Dir)
	st, err := t.Open(ctx)
	if err != nil {
		if fresh {
			removeMade(t.Dir)
		}
		return nil, err
	}
	p, ok := st.(cairn.Porter)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("import: this store cannot be imported into")
	}
	res, err := importRead(ctx, p, rd, o)
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close store after import: %w", cerr)
	}
	if err != nil && fresh {
		removeMade(t.Dir)
	}
	return res, err
}

// emptyDir reports whether dir is missing or holds nothing.
func emptyDir(dir string) bool {
	if dir == "" {
		return false
	}
	entries, err := os.ReadDir(dir)
	return errors.Is(err, fs.ErrNotExist) || err == nil && len(entries) == 0
}

// removeMade removes a folder a failed import's open made, with what the
// store wrote in it.
func removeMade(dir string) { os.RemoveAll(dir) }

// checkHeader reads the header and checks what needs no store: format,
// version, columns, models, and the feature version when o names it.
func checkHeader(r io.Reader, o *ImportOptions) (*Reader, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	if err := checkFeature(&rd.Header, o.FeatureVersion); err != nil {
		return nil, err
	}
	if err := checkModel(&rd.Header, o); err != nil {
		return nil, err
	}
	return rd, nil
}

// checkFeature refuses chunks made by another chunker or tokenizer than
// the target's (want, "" for unknown).
func checkFeature(h *Header, want string) error {
	if want == "" || h.FeatureVersion == want || h.Rows() == 0 {
		return nil
	}
	return cairn.Invalidf("feature_version: the export's chunks were made with %q, this binary makes %q; import with the cairn version that exported it, or sync the corpora again instead",
		h.FeatureVersion, want)
}

// importRead checks the export against the opened store (its feature
// version; a store that holds anything without Replace is refused naming
// the target) and imports it. A refusal goes through the store's Import
// (refuse) so the store undoes what opening it did.
func importRead(ctx context.Context, p cairn.Porter, rd *Reader, o *ImportOptions) (*ImportResult, error) {
	info, err := p.PortInfo(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkFeature(&rd.Header, info.FeatureVersion); err != nil {
		return nil, refuse(ctx, p, err)
	}
	if held := heldRows(info.Counts); held != "" && !o.Replace && o.Target != "" {
		// without a Target the store refuses, naming its agent or file
		return nil, cairn.Invalidf("import into %s: it is not empty (%s); pass --replace to delete what it holds first, or import into another agent (--agent NAME)", o.Target, held)
	}
	rd.prog, rd.partial = o.Progress, o.Partial
	if err := p.Import(ctx, o.Replace, &ctxSource{ctx, rd}); err != nil {
		return nil, err
	}
	if o.SessionsDir != "" {
		var err error
		if rd.res.SessionCopies, err = writeSessionCopies(ctx, p, o.SessionsDir, rd.sessions); err != nil {
			rd.res.CopyError = err.Error()
		}
	}
	if o.Progress != nil {
		o.Progress(rd.read, rd.read)
	}
	return rd.res, nil
}

// heldRows lists the tables of counts that hold rows ("" for none).
func heldRows(counts map[string]int64) string {
	var held []string
	for _, t := range slices.Sorted(maps.Keys(counts)) {
		if counts[t] > 0 {
			held = append(held, fmt.Sprintf("%s %d", t, counts[t]))
		}
	}
	return strings.Join(held, ", ")
}

// refuse returns err, a refusal decided before anything was written,
// after passing it through the store's Import as a source that fails at
// once: the store rolls its transaction back and undoes what opening it
// did for this import (PostgreSQL deletes an agent row that opening
// registered), as for any failed import. Without a store (nil) err comes
// back as it is.
func refuse(ctx context.Context, p cairn.Porter, err error) error {
	if p != nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = p.Import(ctx, false, refusal{err})
	}
	return err
}

// refusal is a cairn.PortSource whose first row is its error.
type refusal struct{ err error }

func (r refusal) Next() (cairn.PortRow, error) { return cairn.PortRow{}, r.err }
func (r refusal) Reject(cairn.PortRow, string) {}
func (r refusal) Done() ([]string, error)      { return nil, r.err }

// checkModel refuses vectors no configured embedder can use.
func checkModel(h *Header, o *ImportOptions) error {
	if o.AnyModel || o.Embedder == "" || len(h.Models) == 0 {
		return nil
	}
	var have []string
	for _, m := range h.Models {
		for _, k := range append([]string{o.Embedder}, o.EmbedderAlso...) {
			if modelOf(m.Identity) == modelOf(k) {
				return nil
			}
		}
		have = append(have, m.Identity)
	}
	return cairn.Invalidf("models: the export's vectors were made by %s, the target's embedder is %s; configure that embedder, or pass --any-model to import them anyway (sync then embeds every chunk again)",
		strings.Join(have, ", "), strings.Join(append([]string{o.Embedder}, o.EmbedderAlso...), " or "))
}

// modelOf is the provider and model of an identity key ("onnx|name|384|..."):
// an embedder that learns its dimension from its first answer (OpenAI)
// has none before, so the rest of the key is not compared.
func modelOf(key string) string {
	parts := strings.SplitN(key, "|", 3)
	return strings.Join(parts[:min(2, len(parts))], "|")
}

// ctxSource stops an import when its context ends.
type ctxSource struct {
	ctx context.Context
	*Reader
}

func (c *ctxSource) Next() (cairn.PortRow, error) {
	if err := c.ctx.Err(); err != nil {
		return cairn.PortRow{}, err
	}
	return c.Reader.Next()
}
