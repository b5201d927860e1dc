package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestSyncSummaryFormats: sync's summary writes counts and its duration as
// the progress lines do (3,215; 1m19s), and --json keeps plain numbers and
// seconds (before, the summary said "embedded 3215 chunks" and "done in
// 79.494s" under a progress line of "3,215" and "1m17s").
func TestSyncSummaryFormats(t *testing.T) {
	res := &cairn.SyncResult{Embedded: 3215, PendingEmbeddings: 1200, Seconds: 79.494,
		Corpora: []cairn.CorpusSyncResult{{Name: "notes", Scanned: 12345, Added: 1001, Unchanged: 11344, Chunks: 3215}}}
	var out bytes.Buffer
	e := newEnv(&out, &out)
	if err := e.printSync(res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"embedded 3,215 chunks, 1,200 waiting for vectors\n", "done in 1m19s\n", "12,345", "11,344", "1,001"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary %q lacks %q", out.String(), want)
		}
	}
	out.Reset()
	res.Seconds = 0.042 // a 5-file sync said "done in 0.0s"
	res.Embedded, res.PendingEmbeddings = 0, 0
	e.printSync(res)
	if !strings.HasSuffix(out.String(), "done in 42 ms\n") {
		t.Errorf("short sync summary %q, want it to end in done in 42 ms", out.String())
	}
	out.Reset()
	e.json = true
	res.Seconds = 79.494
	e.printSync(res)
	var j struct {
		Seconds  float64
		Embedded int
		Corpora  []struct{ Scanned int }
	}
	if err := json.Unmarshal(out.Bytes(), &j); err != nil || j.Seconds != 79.494 || j.Corpora[0].Scanned != 12345 {
		t.Errorf("--json: %+v, %v from %s", j, err, out.String())
	}
}
