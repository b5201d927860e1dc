package openclawdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
	goldenfile "github.com/cairnmemory/cairn/internal/golden"
	"github.com/cairnmemory/cairn/transcript"
	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"
)

const coldID = "019ea0c1-2b3c-7d4e-8f50-6a7b8c9d0e1f"

// coldArchive is the fixture archive compressed as OpenClaw writes it
// (zstd, fastest level, checksum on).
func coldArchive(t *testing.T) []byte {
	t.Helper()
	plain, err := os.ReadFile(filepath.Join(fixtures, "cold-archive.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	return enc.EncodeAll(plain, nil)
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// coldDB is the seed plus the cold window of cold.sql, its archive stored
// as storage says; name and hash may be overridden.
func coldDB(t *testing.T, storage, name, hash string) string {
	t.Helper()
	archive := coldArchive(t)
	if hash == "" {
		hash = sha(archive)
	}
	if name == "" {
		name = sha(archive) + ".jsonl.zst"
	}
	return seedDB(t, func(db *sql.DB) {
		script, err := os.ReadFile(filepath.Join(fixtures, "cold.sql"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(script)); err != nil {
			t.Fatal(err)
		}
		var blob []byte
		if storage == "sqlite" {
			blob = archive
		}
		_, err = db.Exec(`INSERT INTO session_transcript_cold_archives(session_id,generation,archive_name,archive_sha256,event_count,raw_bytes,archive_bytes,last_seq,archived_at,storage,archive_blob)
VALUES(?,1,?,?,6,0,?,9,1775200000000,?,?)`, coldID, name, hash, len(archive), storage, blob)
		if err != nil {
			t.Fatal(err)
		}
		if storage == "file" {
			var path string
			_ = db.QueryRow(`SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&path)
			dir := filepath.Join(filepath.Dir(filepath.Dir(path)), "sessions", "cold")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, sha(archive)+".jsonl.zst"), archive, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func coldSession(t *testing.T, ss []cairn.Session) cairn.Session {
	t.Helper()
	for _, s := range ss {
		if s.ID == coldID {
			return s
		}
	}
	t.Fatalf("cold window not read: %d sessions", len(ss))
	return cairn.Session{}
}

// TestOpenClawDBColdArchive reads a window moved to a file archive and one
// moved into archive_blob: the same session, its events in order, the
// tool's output only under the tool call, the malformed line counted.
func TestOpenClawDBColdArchive(t *testing.T) {
	var first cairn.Session
	for _, storage := range []string{"file", "sqlite"} {
		ss, err := ReadDB(context.Background(), coldDB(t, storage, "", ""), ingest.ParseOptions{})
		if err != nil {
			t.Fatalf("%s: %v", storage, err)
		}
		s := coldSession(t, ss)
		want := []string{"user: how much paint do we need for the shed?", "assistant: About 3 litres for two coats on 24 square metres."}
		if diff := cmp.Diff(want, texts(s)); diff != "" {
			t.Errorf("%s: messages (-want +got):\n%s", storage, diff)
		}
		if s.ChatType != "group" || s.Messages[0].Speaker != "Dana" || s.Stats.Skipped["malformed cold archive line"] != 1 {
			t.Errorf("%s: chat type %q speaker %q stats %+v", storage, s.ChatType, s.Messages[0].Speaker, s.Stats)
		}
		for _, m := range s.Messages {
			if m.Role == cairn.RoleUser && strings.Contains(m.Text, "only the tool saw this") {
				t.Errorf("%s: tool output projected as the person's words", storage)
			}
		}
		if storage == "file" {
			first = s
			golden(t, "cold.json", s)
			coldProjection(t, s)
		} else if diff := cmp.Diff(first, s); diff != "" {
			t.Errorf("archive_blob reads differently from the file (-file +blob):\n%s", diff)
		}
	}
}

// coldProjection compares the cold session's projection with its golden.
func coldProjection(t *testing.T, s cairn.Session) {
	t.Helper()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data")
	}
	p, ok := transcript.Project(&s, transcript.Options{Location: berlin})
	if !ok {
		t.Fatal("cold session projects nothing")
	}
	name := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(p.Path), ".md"), ":", "-") + ".md"
	path := filepath.Join("..", "..", "transcript", "testdata", "projections", "openclaw", name)
	got := p.Path + "\n\n" + p.Text
	goldenfile.Check(t, path, []byte(got))
}

// TestOpenClawDBColdRefused: an archive whose hash does not match, or whose
// name leads out of sessions/cold/, fails its session (the earlier
// projection stays) and the other sessions are still read.
func TestOpenClawDBColdRefused(t *testing.T) {
	for name, path := range map[string]string{
		"hash mismatch":   coldDB(t, "file", "", strings.Repeat("0", 64)),
		"name leads out":  coldDB(t, "file", "../../agent/openclaw-agent.sqlite", ""),
		"blob hash wrong": coldDB(t, "sqlite", "", strings.Repeat("0", 64)),
	} {
		ss, err := ReadDB(context.Background(), path, ingest.ParseOptions{})
		var failed *FailedSessions
		if !errors.As(err, &failed) || len(failed.Sessions) != 1 || failed.Sessions[0].SessionID != coldID ||
			!errors.Is(failed.Sessions[0].Err, errColdStorage) || len(ss) != 1 || ss[0].ID != seedID {
			t.Errorf("%s: %d sessions, %v", name, len(ss), err)
		}
	}
}

// FuzzColdArchive feeds archive text through the line reader and the
// OpenClaw projection: no panic, every event kept is JSON.
func FuzzColdArchive(f *testing.F) {
	plain, err := os.ReadFile(filepath.Join(fixtures, "cold-archive.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(plain)
	f.Add([]byte(`{"seq":-3,"event":{"type":"message","id":"x","parentId":"x"}}` + "\n" + `{"event":[1]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var stats cairn.ParseStats
		var events []ingest.OpenClawEvent
		_ = ingestLines(data, &stats, func(line []byte) {
			if seq, ev, ok := coldEvent(line); ok {
				events = append(events, ingest.OpenClawEvent{Seq: seq, JSON: ev})
			}
		})
		_, _ = ingest.OpenClawSession(cairn.Session{ID: "f"}, mergeCold(events, nil), nil)
	})
}
