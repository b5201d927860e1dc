package consolidate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/redact"
	"github.com/cairnmemory/cairn/transcript"
)

// Record is one person request with everything that followed it until the
// next request, as projected: its messages' text and lines.
type Record struct {
	UID       string // stable: derived from the thread, the position, the time and the request's text
	Text      string // the projection's text of its messages, headings included
	StartLine int
	EndLine   int
	Stamp     string    // the first message's timestamp as projected
	Time      time.Time // zero when the stamp cannot be read
	// Last is the time of its latest message (zero when none can be read):
	// the thread's last record is held back while it is recent.
	Last time.Time
	// Hash is the hash of Text: the checkpoint keeps it, so a record that
	// grows or is edited after it was read is read again.
	Hash string
}

// Thread is one session read for consolidation.
type Thread struct {
	Corpus     string
	Path       string // projection path
	Info       cairn.SessionInfo
	Transcript string
	StartedAt  time.Time
	Records    []Record
}

// Key names the thread in memories: corpus/path.
func (t *Thread) Key() string { return t.Corpus + "/" + t.Path }

// threadOf splits a projection into records. A record starts at each user
// message (a person's request or command); generated summaries and agent
// messages belong to the record they follow. Messages before the first
// request form a record of their own.
func threadOf(rec cairn.SessionRecord, text string, loc *time.Location) *Thread {
	th := &Thread{Corpus: rec.Corpus, Path: rec.Path, Info: rec.Info, Transcript: rec.Transcript, StartedAt: rec.StartedAt}
	spans := spansOf(rec, text)
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		first, last := spans[start], spans[end-1]
		// Projections are redacted when written; a record is redacted
		// again whole, before any split into parts or context tails could
		// cut a secret (a private key block) in two.
		clean, _ := redact.Redact(strings.TrimRight(text[first.Start:last.End], "\n"))
		r := Record{
			Text:      clean,
			StartLine: first.StartLine,
			EndLine:   last.EndLine,
			Stamp:     first.Timestamp,
			Time:      parseStamp(first.Timestamp, loc),
		}
		if r.Time.IsZero() {
			r.Time = rec.StartedAt
		}
		for _, sp := range spans[start:end] {
			if t := parseStamp(sp.Timestamp, loc); t.After(r.Last) {
				r.Last = t
			}
		}
		r.Hash = shortHash(r.Text)
		body := first.Body(text)
		r.UID = recordUID(th.Key(), len(th.Records), first.Timestamp, body)
		th.Records = append(th.Records, r)
	}
	for i, sp := range spans {
		if sp.Type == "user" && i > 0 {
			flush(i)
			start = i
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(spans))
	return th
}

// spansOf uses the stored spans when the text is the projection they were
// computed for, else parses the headings again.
func spansOf(rec cairn.SessionRecord, text string) []transcript.Span {
	var spans []transcript.Span
	if rec.ProjectionHash == sha256Hex(text) && json.Unmarshal([]byte(rec.Spans), &spans) == nil && valid(spans, text) {
		return spans
	}
	return transcript.Messages(text)
}

func valid(spans []transcript.Span, text string) bool {
	for _, sp := range spans {
		if sp.Start < 0 || sp.End > len(text) || sp.Start > sp.End || sp.BodyStart > sp.End {
			return false
		}
	}
	return true
}

func recordUID(thread string, n int, stamp, body string) string {
	return shortHash(thread, strconv.Itoa(n), stamp, body)
}

func shortHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// parseStamp reads a projected timestamp ("2026-05-04 09:15:06 CEST") as a
// wall time in loc, the zone the projection was written in.
func parseStamp(s string, loc *time.Location) time.Time {
	if len(s) < 19 {
		return time.Time{}
	}
	if loc == nil {
		loc = time.UTC
	}
	t, err := time.ParseInLocation("2006-01-02 15:04:05", s[:19], loc)
	if err != nil {
		return time.Time{}
	}
	return t
}
