package openclawdb

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
)

// Cold archives (spec transcript-formats §3.7; issue 22 item 6). With
// session.maintenance.coldStorage on, OpenClaw moves whole windows out of
// transcript_events and records each move in
// session_transcript_cold_archives: storage 'file' puts the events in
// agents/<agentId>/sessions/cold/<archive_name> (a .jsonl.zst), storage
// 'sqlite' in the row's archive_blob. The spec leaves the line format
// unconfirmed; Cairn reads each line as one event, either the event object
// itself (what transcript_events.event_json holds) or a {"seq": n,
// "event": {...}} wrapper, and otherwise skips and counts it.
//
// Rules:
//
//   - A window's cold events come before its live ones; a seq both hold is
//     read from the live row. Without a seq, a cold line takes the next
//     one after the previous archive line, starting past the window's
//     previous archive's last_seq.
//   - An archive is read whole under the transcript bounds (ingest.
//     ReadTranscript: zstd decoded up to 256 MiB, 24 MiB kept) and, when
//     the row records archive_sha256, only if the stored bytes hash to it;
//     once a window's archives hold 24 MiB, later ones are not read
//     (counted as transcript_over_budget).
//   - A file archive is opened inside the agent's sessions/cold/ folder
//     only (a name with a path separator or "..", or a link leading out,
//     is refused).
//   - An archive that is missing, refused, unreadable or whose hash does
//     not match fails its session (errColdStorage): the engine keeps the
//     session's earlier projection, Cairn's own copy, rather than drop the
//     history it no longer sees.

// coldRow is one session_transcript_cold_archives row.
type coldRow struct {
	generation    int64
	name, storage string
	sha           sql.NullString
	lastSeq       sql.NullInt64
	blob          []byte
}

// coldColumns are read when present (older trimmed schemas lack some).
var coldColumns = []string{"archive_sha256", "archive_blob", "last_seq"}

func (r *reader) coldRows(sessionID string) ([]coldRow, error) {
	if !r.has["session_transcript_cold_archives"] {
		return nil, nil
	}
	sel := []string{"generation", "archive_name", "storage"}
	for _, c := range coldColumns {
		if r.coldHas[c] {
			sel = append(sel, c)
		} else {
			sel = append(sel, "NULL")
		}
	}
	rows, err := r.tx.QueryContext(r.ctx, `SELECT `+strings.Join(sel, ", ")+` FROM session_transcript_cold_archives
WHERE session_id = ? ORDER BY generation`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("read openclaw cold archives %s: %w", r.path, err)
	}
	defer rows.Close()
	var out []coldRow
	for rows.Next() {
		var c coldRow
		if err := rows.Scan(&c.generation, &c.name, &c.storage, &c.sha, &c.blob, &c.lastSeq); err != nil {
			return nil, fmt.Errorf("read openclaw cold archives %s: %w", r.path, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// coldEvents reads a window's cold archives into events, in order.
func (r *reader) coldEvents(sessionID string, stats *cairn.ParseStats) ([]ingest.OpenClawEvent, error) {
	rows, err := r.coldRows(sessionID)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	var out []ingest.OpenClawEvent
	var next int64 = 1
	kept := 0
	for _, c := range rows {
		if kept >= ingest.MaxTranscriptBytes {
			// like a transcript past its budget: the newer archives are not read
			if stats.Truncated == nil {
				stats.Truncated = map[string]int{}
			}
			stats.Truncated[cairn.CutOverBudget]++
			break
		}
		data, err := r.coldArchive(c)
		if err != nil {
			return nil, fmt.Errorf("%w: archive %d (%s): %v", errColdStorage, c.generation, c.name, err)
		}
		kept += len(data)
		_ = ingestLines(data, stats, func(line []byte) {
			seq, ev, ok := coldEvent(line)
			if !ok {
				stats.Skip("malformed cold archive line")
				return
			}
			if seq <= 0 {
				seq = next
			}
			next = seq + 1
			out = append(out, ingest.OpenClawEvent{Seq: seq, JSON: ev})
		})
		if c.lastSeq.Valid && c.lastSeq.Int64 >= next {
			next = c.lastSeq.Int64 + 1
		}
	}
	return out, nil
}

// coldArchive returns an archive's decoded JSONL. The archive streams
// through the bounded reader, which hashes what it reads: a file is never
// held whole in memory.
func (r *reader) coldArchive(c coldRow) ([]byte, error) {
	var src io.Reader
	switch c.storage {
	case "sqlite":
		if c.blob == nil {
			return nil, errors.New("archive_blob is empty")
		}
		src = bytes.NewReader(c.blob)
	case "file":
		if c.name == "" || c.name != filepath.Base(c.name) || c.name == "." || c.name == ".." || strings.ContainsAny(c.name, `/\`) {
			return nil, fmt.Errorf("archive name %q is not a file name", c.name)
		}
		dir := filepath.Join(filepath.Dir(filepath.Dir(r.path)), "sessions", "cold")
		f, _, err := ingest.OpenTranscript(dir, filepath.Join(dir, c.name))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		src = f
	default:
		return nil, fmt.Errorf("unknown storage %q", c.storage)
	}
	bd, err := ingest.ReadTranscript(src, "cold.jsonl.zst")
	if err != nil {
		return nil, err
	}
	if c.sha.Valid && c.sha.String != "" && !strings.EqualFold(bd.Hash, c.sha.String) {
		return nil, errors.New("archive_sha256 does not match the archive")
	}
	return bd.Data, nil
}

// coldEvent reads one archive line: an event, or {"seq", "event"}.
func coldEvent(line []byte) (int64, []byte, bool) {
	var w struct {
		Type  string          `json:"type"`
		Seq   *int64          `json:"seq"`
		Event json.RawMessage `json:"event"`
	}
	if json.Unmarshal(line, &w) != nil {
		return 0, nil, false
	}
	if w.Type == "" && len(w.Event) > 0 && w.Event[0] == '{' {
		var seq int64
		if w.Seq != nil {
			seq = *w.Seq
		}
		return seq, w.Event, true
	}
	if w.Type == "" {
		return 0, nil, false
	}
	return 0, line, true
}

// ingestLines calls fn with each non-blank line; the last one is read
// even without a newline (an archive is written whole).
func ingestLines(data []byte, stats *cairn.ParseStats, fn func([]byte)) error {
	for _, line := range bytes.Split(data, []byte("\n")) {
		if line = bytes.TrimSpace(line); len(line) > 0 {
			stats.Lines++
			fn(line)
		}
	}
	return nil
}

// mergeCold puts a window's cold events before its live ones; a seq held
// by both is read from the live row.
func mergeCold(cold, live []ingest.OpenClawEvent) []ingest.OpenClawEvent {
	if len(cold) == 0 {
		return live
	}
	have := make(map[int64]bool, len(live))
	for _, ev := range live {
		have[ev.Seq] = true
	}
	out := make([]ingest.OpenClawEvent, 0, len(cold)+len(live))
	for _, ev := range cold {
		if !have[ev.Seq] {
			out = append(out, ev)
		}
	}
	return append(out, live...)
}
