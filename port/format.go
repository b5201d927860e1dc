// Package port is the file format of cairn export and cairn import: one
// agent's storage (cairn.Porter) as a stream of JSON Lines, gzip
// compressed or not (a reader tells by the first bytes).
//
// Line 1 is the header: the format and its version, the agent, the source
// backend and its schema versions, the feature version the chunks were
// made with, the vectors of each embedder identity (model key, dimension,
// count), the rows per table, and every table's columns as name:type.
// Each following line is one row, {"t": table, "v": [values in column
// order]}, tables in cairn.PortTables order (a content row before its
// chunks). Values: text as a JSON string; integers as JSON numbers (read
// back exactly, as int64); floats as Go writes them (the shortest form
// that reads back to the same float64); null for a missing value; bytes
// (a document's text) as a JSON string when they are valid UTF-8, else
// {"base64": "..."}, and a text value that is not valid UTF-8 the same
// way; a vector as the base64 of its float32 values, little endian. The
// last line is {"end": true, "counts": {...}}: a file without it was cut
// short, and its import fails.
//
// Both ways stream: an export holds one row at a time (PostgreSQL: one
// page of chunk rows), an import one row and one batch of statements, so
// memory does not grow with the agent's size.
package port

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
)

// Format names the file format in the header; Version is its version.
const (
	Format  = "cairn-export"
	Version = 1
)

// Header is the first line of an export.
type Header struct {
	Format         string            `json:"format"`
	Version        int               `json:"version"`
	Agent          string            `json:"agent"`
	CreatedAt      time.Time         `json:"created_at"`
	Backend        string            `json:"backend"`
	Schema         string            `json:"schema"`
	FeatureVersion string            `json:"feature_version"`
	Models         []cairn.PortModel `json:"models"`
	Counts         map[string]int64  `json:"counts"`
	Tables         []TableSpec       `json:"tables"`
}

// TableSpec is one table's columns in the header, each "name:type" (the
// types of cairn.PortType).
type TableSpec struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
}

// Rows is the number of rows the header counts.
func (h *Header) Rows() int64 {
	var n int64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

func specs() []TableSpec {
	out := make([]TableSpec, len(cairn.PortTables))
	for i, t := range cairn.PortTables {
		out[i].Name = t.Name
		for _, c := range t.Columns {
			out[i].Columns = append(out[i].Columns, c.Name+":"+string(c.Type))
		}
	}
	return out
}

type line struct {
	T      string            `json:"t,omitempty"`
	V      []json.RawMessage `json:"v,omitempty"`
	End    bool              `json:"end,omitempty"`
	Counts map[string]int64  `json:"counts,omitempty"`
}

type b64 struct {
	Base64 []byte `json:"base64"`
}

// encodeValue writes one value as the format says.
func encodeValue(buf *bytes.Buffer, typ cairn.PortType, v any) error {
	var out any
	switch x := v.(type) {
	case nil:
		out = nil
	case string:
		out = x
		if !utf8.ValidString(x) {
			out = b64{[]byte(x)}
		}
	case []byte:
		out = string(x)
		if !utf8.Valid(x) {
			out = b64{x}
		}
	case []float32:
		raw := make([]byte, 4*len(x))
		for i, f := range x {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f))
		}
		out = base64.StdEncoding.EncodeToString(raw)
	default:
		out = x
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // the encoder's newline
	return nil
}

// decodeValue reads one value of a column of type typ.
func decodeValue(typ cairn.PortType, raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if bytes.Equal(raw, []byte("null")) {
		if typ == cairn.PortNullInt {
			return nil, nil
		}
		return nil, errors.New("null where a value is required")
	}
	switch typ {
	case cairn.PortText, cairn.PortBytes:
		var b []byte
		if len(raw) > 0 && raw[0] == '{' {
			var o b64
			if err := json.Unmarshal(raw, &o); err != nil {
				return nil, err
			}
			b = o.Base64
		} else {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, err
			}
			b = []byte(s)
		}
		if typ == cairn.PortText {
			return string(b), nil
		}
		return b, nil
	case cairn.PortInt, cairn.PortNullInt:
		var n int64
		err := json.Unmarshal(raw, &n)
		return n, err
	case cairn.PortFloat:
		var f float64
		err := json.Unmarshal(raw, &f)
		return f, err
	case cairn.PortVector:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(b)%4 != 0 {
			return nil, fmt.Errorf("vector is not base64 of float32 values")
		}
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return v, nil
	}
	return nil, fmt.Errorf("unknown column type %c", typ)
}

// MaxLine is the longest line a reader takes (a document's text is one
// value); a longer one is skipped unread and counted, so it costs no
// memory. The longest row an export writes is a document's text: a file
// of at most cairn.DefaultMaxFileSize (10 MB), at most 3 bytes a byte once
// decoded (Windows-1252 to UTF-8), and JSON-escaped (a newline or tab: 2
// bytes), well under 64 MiB. It was 256 MiB: a 200 MB row was decoded,
// held about 7 times over (1.46 GB peak) and written before its hash
// refused it (ux F27).
const MaxLine = 64 << 20

// lineReader reads lines of any length up to MaxLine, counting them.
type lineReader struct {
	br *bufio.Reader
	n  int
	// cut is set when the last line read ended with the file, not a
	// newline: a file cut short in the middle of a line.
	cut bool
}

// next returns the next line without its newline; too is set (and the
// line dropped) when it was over MaxLine.
func (l *lineReader) next() (b []byte, too bool, err error) {
	var buf []byte
	for {
		part, err := l.br.ReadSlice('\n')
		if len(buf)+len(part) <= MaxLine {
			buf = append(buf, part...)
		} else {
			too = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && len(buf) == 0 && !too {
			return nil, false, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, false, err
		}
		l.n++
		l.cut = err == io.EOF
		if too {
			buf = nil
		}
		return bytes.TrimRight(buf, "\r\n"), too, nil
	}
}

// checkSpec compares the header's columns of each table with this
// binary's: a table this binary does not know, or columns that differ,
// make the file one this binary cannot import.
func checkSpec(h *Header) error {
	want := map[string]string{}
	for _, t := range specs() {
		want[t.Name] = strings.Join(t.Columns, " ")
	}
	for _, t := range h.Tables {
		w, ok := want[t.Name]
		if !ok {
			return cairn.Invalidf("tables: the export has table %q, which this binary does not know (format version %d); upgrade cairn", t.Name, h.Version)
		}
		if got := strings.Join(t.Columns, " "); got != w {
			return cairn.Invalidf("tables: columns of %s are %q in the export, %q in this binary", t.Name, got, w)
		}
	}
	return nil
}
