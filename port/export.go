package port

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/cairnmemory/cairn"
)

// ExportOptions tune an export. A nil pointer means defaults.
type ExportOptions struct {
	Agent string // written in the header
	Gzip  bool   // compress the stream
	// Progress, when set, hears the rows written so far and the rows the
	// header counts, every ProgressEvery rows and at the end.
	Progress func(done, total int64)
	Now      func() time.Time // the header's time (time.Now when nil)
}

// ProgressEvery is how many rows pass between progress calls.
const ProgressEvery = 1000

// ExportResult is what an export wrote.
type ExportResult struct {
	Header Header
	Counts map[string]int64 // rows written per table
	Rows   int64
}

// Export writes p's rows to w in the format of the package doc.
func Export(ctx context.Context, p cairn.Porter, w io.Writer, o *ExportOptions) (*ExportResult, error) {
	if o == nil {
		o = &ExportOptions{}
	}
	info, err := p.PortInfo(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	h := Header{Format: Format, Version: Version, Agent: o.Agent, CreatedAt: now().UTC().Truncate(time.Second),
		Backend: info.Backend, Schema: info.Schema, FeatureVersion: info.FeatureVersion,
		Models: info.Models, Counts: info.Counts, Tables: specs()}
	if h.Models == nil {
		h.Models = []cairn.PortModel{}
	}
	var gz *gzip.Writer
	out := w
	if o.Gzip {
		gz = gzip.NewWriter(w)
		out = gz
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	res := &ExportResult{Header: h, Counts: map[string]int64{}}
	if err := writeJSON(bw, h); err != nil {
		return nil, err
	}
	total := h.Rows()
	types := map[string][]cairn.PortType{}
	for _, t := range cairn.PortTables {
		for _, c := range t.Columns {
			types[t.Name] = append(types[t.Name], c.Type)
		}
	}
	var buf bytes.Buffer
	err = p.Export(ctx, func(r cairn.PortRow) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf.Reset()
		buf.WriteString(`{"t":`)
		tb, _ := json.Marshal(r.Table)
		buf.Write(tb)
		buf.WriteString(`,"v":[`)
		for i, v := range r.Values {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encodeValue(&buf, types[r.Table][i], v); err != nil {
				return fmt.Errorf("write %s row: %w", r.Table, err)
			}
		}
		buf.WriteString("]}\n")
		if _, err := bw.Write(buf.Bytes()); err != nil {
			return fmt.Errorf("write export: %w", err)
		}
		res.Counts[r.Table]++
		res.Rows++
		if o.Progress != nil && res.Rows%ProgressEvery == 0 {
			o.Progress(res.Rows, max(total, res.Rows))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := writeJSON(bw, line{End: true, Counts: res.Counts}); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("write export: %w", err)
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			return nil, fmt.Errorf("write export: %w", err)
		}
	}
	if o.Progress != nil {
		o.Progress(res.Rows, res.Rows)
	}
	return res, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write export: %w", err)
	}
	return nil
}
