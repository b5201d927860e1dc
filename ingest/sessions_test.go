package ingest

import (
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestForEachJSONLine(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		lines    []string
		partial  bool
		consumed int64
	}{
		{"complete", "{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}, false, 16},
		{"blank lines skipped", "\n{\"a\":1}\n\n", []string{`{"a":1}`}, false, 10},
		{"half-written last line left for later", "{\"a\":1}\n{\"b\":", []string{`{"a":1}`}, true, 8},
		{"complete last line without newline", "{\"a\":1}\n{\"b\":2}", []string{`{"a":1}`, `{"b":2}`}, false, 15},
		{"broken middle line is handed on", "{\"a\":1}\nnot json\n{\"c\":3}\n", []string{`{"a":1}`, "not json", `{"c":3}`}, false, 25},
		{"crlf trimmed", "{\"a\":1}\r\n", []string{`{"a":1}`}, false, 9},
		{"empty", "", nil, false, 0},
	}
	for _, tt := range tests {
		var st cairn.ParseStats
		var got []string
		err := forEachJSONLine([]byte(tt.data), &st, func(n int, line []byte) error {
			got = append(got, string(line))
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if strings.Join(got, "|") != strings.Join(tt.lines, "|") || st.PartialTail != tt.partial || st.ConsumedBytes != tt.consumed {
			t.Errorf("%s: lines %q partial %v consumed %d; want %q %v %d", tt.name, got, st.PartialTail, st.ConsumedBytes, tt.lines, tt.partial, tt.consumed)
		}
		if st.Lines != len(tt.lines) {
			t.Errorf("%s: Lines = %d, want %d", tt.name, st.Lines, len(tt.lines))
		}
	}
}

func TestReadersRegistered(t *testing.T) {
	for _, id := range cairn.Sources {
		if id == cairn.SourceCursor {
			continue // a SQLite store: its reader is ingest/cursordb's (cgo stays out of ingest)
		}
		r, ok := Reader(id)
		if !ok || r.Find == nil || (r.Parse == nil && r.ParseFile == nil) {
			t.Errorf("source %s: reader %+v registered %v", id, r, ok)
		}
	}
}
