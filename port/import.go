package port

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

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
	AnyModel bool
	// Progress, as ExportOptions.Progress, counts rows read.
	Progress func(done, total int64)
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
	Counts   map[string]int64 `json:"counts"`   // rows read per table, rejected ones included
	Rejected int              `json:"rejected"` // lines left out: broken, or refused by the store
	Problems []Problem        `json:"problems"` // the first MaxProblems of them
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
		res: &ImportResult{Counts: map[string]int64{}, Problems: []Problem{}}}
	first, too, err := rd.lines.next()
	if errors.Is(err, io.EOF) {
		return nil, cairn.Invalidf("read export: the file is empty")
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
// that does not is counted as a problem and skipped. After the end line
// it returns io.EOF; a file that ends without one is an error.
func (rd *Reader) Next() (cairn.PortRow, error) {
	for {
		if rd.ended {
			return cairn.PortRow{}, io.EOF
		}
		b, too, err := rd.lines.next()
		if errors.Is(err, io.EOF) {
			return cairn.PortRow{}, cairn.Invalidf("read export: the file ends at line %d without its end line: it was cut short", rd.lines.n)
		}
		if err != nil {
			return cairn.PortRow{}, fmt.Errorf("read export: %w", err)
		}
		n := rd.lines.n
		if too {
			rd.problem(n, "", fmt.Sprintf("line over %d MiB", MaxLine>>20))
			continue
		}
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		r, err := rd.parse(b, n)
		if err != nil {
			rd.problem(n, r.Table, err.Error())
			continue
		}
		if rd.ended {
			return cairn.PortRow{}, io.EOF
		}
		rd.res.Counts[r.Table]++
		rd.read++
		if rd.prog != nil && rd.read%ProgressEvery == 0 {
			rd.prog(rd.read, max(rd.Header.Rows(), rd.read))
		}
		return r, nil
	}
}

func (rd *Reader) parse(b []byte, n int) (cairn.PortRow, error) {
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return cairn.PortRow{}, fmt.Errorf("not JSON: %v", err)
	}
	if l.End {
		rd.ended = true
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
			return r, fmt.Errorf("%s.%s: %v", l.T, t.Columns[i].Name, err)
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
	case "maintenance_tasks":
		if !slices.Contains([]string{cairn.TaskAmbiguousEventTime, cairn.TaskExactDuplicate, cairn.TaskQualityReview}, v[1].(string)) {
			return fmt.Errorf("maintenance_tasks.type %q is not a task type", v[1])
		}
		if !slices.Contains([]string{cairn.TaskPending, cairn.TaskResolved, cairn.TaskDeferred, cairn.TaskIrrelevant}, v[8].(string)) {
			return fmt.Errorf("maintenance_tasks.status %q is not a task status", v[8])
		}
	case "temporal_annotations":
		if !slices.Contains([]string{cairn.BasisPath, cairn.BasisFrontmatter, cairn.BasisSession, cairn.BasisAgentVerified}, v[4].(string)) {
			return fmt.Errorf("temporal_annotations.basis %q is not a basis", v[4])
		}
	}
	return r.Check()
}

// Reject counts a row the store refused.
func (rd *Reader) Reject(r cairn.PortRow, reason string) { rd.problem(r.Line, r.Table, reason) }

func (rd *Reader) problem(line int, table, reason string) {
	rd.res.Rejected++
	if len(rd.res.Problems) < MaxProblems {
		rd.res.Problems = append(rd.res.Problems, Problem{Line: line, Table: table, Reason: reason})
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
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	info, err := p.PortInfo(ctx)
	if err != nil {
		return nil, err
	}
	h := &rd.Header
	if h.FeatureVersion != info.FeatureVersion && h.Rows() > 0 {
		return nil, cairn.Invalidf("feature_version: the export's chunks were made with %q, this binary makes %q; import with the cairn version that exported it, or sync the corpora again instead",
			h.FeatureVersion, info.FeatureVersion)
	}
	if err := checkModel(h, o); err != nil {
		return nil, err
	}
	rd.prog = o.Progress
	if err := p.Import(ctx, o.Replace, &ctxSource{ctx, rd}); err != nil {
		return nil, err
	}
	if o.Progress != nil {
		o.Progress(rd.read, rd.read)
	}
	return rd.res, nil
}

// checkModel refuses vectors no configured embedder can use.
func checkModel(h *Header, o *ImportOptions) error {
	if o.AnyModel || o.Embedder == "" || len(h.Models) == 0 {
		return nil
	}
	var have []string
	for _, m := range h.Models {
		if modelOf(m.Identity) == modelOf(o.Embedder) {
			return nil
		}
		have = append(have, m.Identity)
	}
	return cairn.Invalidf("models: the export's vectors were made by %s, the target's embedder is %s; configure that embedder, or pass --any-model to import them anyway (sync then embeds every chunk again)",
		strings.Join(have, ", "), o.Embedder)
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
