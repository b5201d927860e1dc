package ingest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// Legacy Loggie JSON envelopes: one object per file, or an array of them
// (a recorder that kept every delivery):
//
//	{"loggie": 1, "account": "acme", "workspace": "eng", "meeting": "m-42",
//	 "transcript": "t-1", "seq": 1, "complete": true, "title": "Weekly standup",
//	 "started": "2026-05-07T09:00:00Z", "summary": "…",
//	 "segments": [{"speaker": "Dana", "offset": 12, "text": "Morning."}]}
//
// An envelope is complete when it decodes, says "loggie": 1 and has at
// least one segment with text; it is then read like a Markdown revision
// (offset in seconds from started). Anything else (malformed or truncated
// JSON, another shape) keeps the file's original text as one unattributed
// message.

type loggieEnvelope struct {
	Loggie     json.RawMessage `json:"loggie"`
	Account    string          `json:"account"`
	Workspace  string          `json:"workspace"`
	Meeting    string          `json:"meeting"`
	Transcript string          `json:"transcript"`
	Seq        *int            `json:"seq"`
	Complete   bool            `json:"complete"`
	Title      string          `json:"title"`
	Started    string          `json:"started"`
	Summary    string          `json:"summary"`
	Segments   []struct {
		Speaker string   `json:"speaker"`
		Offset  *float64 `json:"offset"`
		Text    string   `json:"text"`
	} `json:"segments"`
}

func loggieJSON(data []byte, stats *cairn.ParseStats) []*loggieRev {
	raw := func(reason string) []*loggieRev {
		stats.Skip(reason)
		if strings.TrimSpace(string(data)) == "" {
			return nil
		}
		return []*loggieRev{loggieRaw(string(data))}
	}
	d := bytes.TrimSpace(data)
	if !json.Valid(d) {
		return raw("malformed payload")
	}
	var envs []loggieEnvelope
	if len(d) > 0 && d[0] == '[' {
		if json.Unmarshal(d, &envs) != nil {
			return raw("unrecognised payload")
		}
	} else {
		var e loggieEnvelope
		if json.Unmarshal(d, &e) != nil {
			return raw("unrecognised payload")
		}
		envs = []loggieEnvelope{e}
	}
	var revs []*loggieRev
	for _, e := range envs {
		stats.Lines++
		r, ok := e.rev()
		if !ok {
			stats.Skip("unrecognised payload")
			b, _ := json.Marshal(e)
			revs = append(revs, loggieRaw(string(b)))
			continue
		}
		revs = append(revs, r)
	}
	return revs
}

// rev normalizes a complete envelope into a revision.
func (e loggieEnvelope) rev() (*loggieRev, bool) {
	if strings.TrimSpace(string(e.Loggie)) != "1" {
		return nil, false
	}
	r := &loggieRev{key: loggieKey{e.Account, e.Workspace, e.Meeting, e.Transcript}, complete: e.Complete,
		title: strings.TrimSpace(e.Title), summary: strings.TrimSpace(e.Summary)}
	if e.Seq != nil && *e.Seq >= 0 {
		r.seq, r.hasSeq = *e.Seq, true
	}
	if t, err := time.Parse(time.RFC3339Nano, e.Started); err == nil {
		r.started, r.startRaw = t.UTC(), e.Started
	}
	for _, sg := range e.Segments {
		text := strings.Join(strings.Fields(sg.Text), " ")
		if text == "" {
			continue
		}
		u := loggieUtt{speaker: strings.TrimSpace(sg.Speaker), text: text}
		if sg.Offset != nil && *sg.Offset >= 0 && *sg.Offset < 1e7 {
			off := time.Duration(*sg.Offset * float64(time.Second)).Truncate(time.Second)
			u.stamp = loggieClock(off)
			if !r.started.IsZero() {
				u.at = r.started.Add(off)
			}
		}
		r.utts = append(r.utts, u)
	}
	if len(r.utts) == 0 {
		return nil, false
	}
	r.hash = loggieHash(r)
	return r, true
}

// loggieClock writes an offset as HH:MM:SS.
func loggieClock(d time.Duration) string {
	s := int(d / time.Second)
	two := func(n int) string {
		if n < 10 {
			return "0" + strconv.Itoa(n)
		}
		return strconv.Itoa(n)
	}
	return two(s/3600) + ":" + two(s/60%60) + ":" + two(s%60)
}
