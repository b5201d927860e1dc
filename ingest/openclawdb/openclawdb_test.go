package openclawdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
	goldenfile "github.com/cairnmemory/cairn/internal/golden"
	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"
)

var updateGolden = goldenfile.Update // -update

const (
	fixtures   = "../testdata/transcripts/openclaw/sqlite"
	seedID     = "019e9a10-7c1e-7d4a-9b0e-2f1c3a4b5c6d"
	minimalNav = `{"version":1,"report":{"kind":"canonical"},"navigation":{},"reset":{},"model":{},"modelBytes":0,"modelWithoutCheckpointBytes":0,"withoutCustomDataBytes":0}`
)

// seedDB builds an agent store at agents/main/agent/openclaw-agent.sqlite
// under a temp dir from the trimmed schema and the seed, runs extra SQL on
// it, and returns its path.
func seedDB(t *testing.T, extra func(db *sql.DB)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agents", "main", "agent", ingest.OpenClawDBName)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_synchronous=OFF&_journal_mode=MEMORY")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, f := range []string{"schema.sql", "seed.sql"} {
		script, err := os.ReadFile(filepath.Join(fixtures, f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(script)); err != nil {
			t.Fatalf("apply %s: %v", f, err)
		}
	}
	if extra != nil {
		extra(db)
	}
	return path
}

func texts(s cairn.Session) []string {
	var out []string
	for _, m := range s.Messages {
		out = append(out, m.Role+": "+m.Text)
	}
	return out
}

// TestReadDBSeed asserts the expected results of spec §3.8 for the seed.
func TestOpenClawDBSeed(t *testing.T) {
	path := seedDB(t, nil)
	ss, err := ReadDB(context.Background(), path, ingest.ParseOptions{})
	if err != nil || len(ss) != 1 {
		t.Fatalf("ReadDB = %d sessions, %v", len(ss), err)
	}
	s := ss[0]
	got := []string{s.ID, s.AgentID, s.Provider, s.ChatType, s.AccountID, s.ConversationID, s.StartedAtRaw, s.Cwd}
	want := []string{seedID, "main", "telegram", "direct", "default", "5550001", "1777899940000", "/home/dana/.openclaw/workspace"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("metadata (-want +got):\n%s", d)
	}
	// session_transcript_active_events is empty: the parentId walk found both.
	wantTexts := []string{"user: remind me what we decided about the garden fence", "assistant: Cedar boards, 1.8 m high, installed in June."}
	if d := cmp.Diff(wantTexts, texts(s)); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	if s.Stats.Lines != 4 || s.Stats.Skipped["event model_change"] != 1 {
		t.Errorf("stats %+v", s.Stats)
	}
	golden(t, "seed.json", ss)

	r := Reader()
	files, err := r.Find(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(path)))))
	if err != nil || len(files) != 1 || files[0] != path {
		t.Errorf("Find = %q, %v", files, err)
	}
	if ss2, err := r.ParseFile(path, ingest.ParseOptions{}); err != nil || cmp.Diff(ss, ss2) != "" {
		t.Errorf("ParseFile differs from ReadDB: %v", err)
	}
}

func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("..", "testdata", "golden", "openclaw", name)
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, d)
	}
}

// compress encodes as OpenClaw's writer does: zstd level 1, checksum on.
func compress(t *testing.T, data []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

func longEvent(id, parent string) ([]byte, string) {
	text := "Fence notes: " + strings.Repeat("cedar boards, 1.8 m, June install; ", 40)
	ev, _ := json.Marshal(map[string]any{"type": "message", "id": id, "parentId": parent, "timestamp": "2026-05-04T13:07:00.000Z",
		"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}, "model": "claude-sonnet-4-6"}})
	return ev, text
}

func TestOpenClawDBCompressed(t *testing.T) {
	ev, text := longEvent("e4", "e3")
	if len(ev) < 1024 {
		t.Fatalf("event is %d bytes, want >= 1024", len(ev))
	}
	blob := compress(t, ev)
	bad, _ := longEvent("x2", "x1")
	path := seedDB(t, func(db *sql.DB) {
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.Exec(q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		exec(`INSERT INTO transcript_events(session_id,seq,event_json,event_zstd,event_utf8_bytes,navigation_json,created_at) VALUES(?,5,NULL,?,?,?,1777900020000)`,
			seedID, blob, len(ev), minimalNav)
		// The store's CHECK refuses a compressed row without navigation_json.
		if _, err := db.Exec(`INSERT INTO transcript_events(session_id,seq,event_zstd,event_utf8_bytes,created_at) VALUES(?,6,?,?,1)`, seedID, blob, len(ev)); err == nil {
			t.Error("compressed row without navigation_json was accepted")
		}
		// A second window whose compressed event's length is recorded wrong.
		exec(`INSERT INTO session_windows(session_id,session_key,created_at,updated_at,started_at,chat_type,channel) VALUES('w2','agent:main:cron:1',1777990000000,1777990000000,1777990000000,'direct','cron')`)
		exec(`INSERT INTO transcript_events(session_id,seq,event_json,created_at) VALUES('w2',1,'{"type":"session","version":4,"id":"w2"}',1)`)
		exec(`INSERT INTO transcript_events(session_id,seq,event_zstd,event_utf8_bytes,navigation_json,created_at) VALUES('w2',2,?,?,?,2)`,
			compress(t, bad), len(bad)+1, minimalNav)
	})
	// The event whose length is recorded wrong is skipped and counted; its
	// window is read like the others (issue 13 item 7).
	ss, err := ReadDB(context.Background(), path, ingest.ParseOptions{})
	if err != nil || len(ss) != 2 {
		t.Fatalf("ReadDB = %d sessions, %v; want both windows read", len(ss), err)
	}
	if len(ss[0].Messages) != 3 || ss[0].Messages[2].Text != text || ss[0].Messages[2].ID != "e4" {
		t.Fatalf("sessions = %v, want the seed session with the compressed message last", ss)
	}
	if ss[1].ID != "w2" || ss[1].Stats.Skipped["undecodable event"] != 1 {
		t.Errorf("window w2: id %q, stats %+v; want its bad event counted", ss[1].ID, ss[1].Stats)
	}
}

func TestOpenClawDBActiveEvents(t *testing.T) {
	path := seedDB(t, func(db *sql.DB) {
		for pos, seq := range []int{2, 3} {
			if _, err := db.Exec(`INSERT INTO session_transcript_active_events(session_id,active_position,event_seq) VALUES(?,?,?)`, seedID, pos, seq); err != nil {
				t.Fatal(err)
			}
		}
	})
	ss, err := ReadDB(context.Background(), path, ingest.ParseOptions{})
	if err != nil || len(ss) != 1 {
		t.Fatalf("ReadDB = %v, %v", ss, err)
	}
	if d := cmp.Diff([]string{"user: remind me what we decided about the garden fence"}, texts(ss[0])); d != "" {
		t.Errorf("materialized branch (-want +got):\n%s", d)
	}
}

func TestOpenClawDBSchema(t *testing.T) {
	for _, tc := range []struct{ name, sql, want string }{
		{"missing column", `ALTER TABLE conversations DROP COLUMN peer_id`, "no column peer_id"},
		{"missing table", `DROP TABLE transcript_events`, "missing table transcript_events"},
		{"state db", `INSERT INTO schema_meta VALUES('primary','global',23,NULL)`, "not an agent store"},
		{"optional table changed", `ALTER TABLE session_transcript_active_events RENAME COLUMN event_seq TO seq`, "no column event_seq"},
	} {
		path := seedDB(t, func(db *sql.DB) {
			if _, err := db.Exec(tc.sql); err != nil {
				t.Fatal(err)
			}
		})
		_, err := ReadDB(context.Background(), path, ingest.ParseOptions{})
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrInvalid naming %q", tc.name, err, tc.want)
		}
	}
	path := seedDB(t, func(db *sql.DB) {
		if _, err := db.Exec(`INSERT INTO schema_meta VALUES('primary','agent',23,'work')`); err != nil {
			t.Fatal(err)
		}
	})
	if ss, err := ReadDB(context.Background(), path, ingest.ParseOptions{}); err != nil || ss[0].AgentID != "work" {
		t.Errorf("schema_meta agent: %v, %v", ss, err)
	}
	if _, err := ReadDB(context.Background(), filepath.Join(t.TempDir(), "none.sqlite"), ingest.ParseOptions{}); err == nil {
		t.Error("missing store: no error")
	}
}

// TestOpenClawDBColdWindow: a window whose cold archive is missing fails
// (its earlier projection is kept); a window with no events at all is
// left out.
func TestOpenClawDBColdWindow(t *testing.T) {
	path := seedDB(t, func(db *sql.DB) {
		for _, q := range []string{
			`INSERT INTO session_windows(session_id,session_key,created_at,updated_at) VALUES('cold1','k',1,1)`,
			`INSERT INTO session_windows(session_id,session_key,created_at,updated_at) VALUES('empty1','k2',1,1)`,
			`INSERT INTO session_transcript_cold_archives(session_id,generation,archive_name,event_count,last_seq,archived_at,storage) VALUES('cold1',1,'abc.jsonl.zst',3,3,5,'file')`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	})
	ss, err := ReadDB(context.Background(), path, ingest.ParseOptions{})
	var failed *FailedSessions
	if !errors.As(err, &failed) || len(failed.Sessions) != 1 || failed.Sessions[0].SessionID != "cold1" || len(ss) != 1 {
		t.Errorf("cold window: %d sessions, %v", len(ss), err)
	}
}
