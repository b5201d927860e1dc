package engine

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// cursorDB builds Cursor's chat store (User/globalStorage/state.vscdb)
// under root from the fixture SQL.
func cursorDB(t *testing.T, root string) {
	t.Helper()
	execInto(t, filepath.Join(root, "User", "globalStorage", "state.vscdb"), "seed.sql", "extra.sql")
}

func execInto(t *testing.T, path string, files ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, f := range files {
		q, err := os.ReadFile(filepath.Join(fixtures, "cursor", f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(q)); err != nil {
			t.Fatalf("apply %s: %v", f, err)
		}
	}
}

// plantSecretsCursorLoggie adds, for the Cursor and Loggie sources, a
// session whose messages hold every line (plantSecrets does the others).
func plantSecretsCursorLoggie(t *testing.T, roots map[string]string, lines []string) {
	t.Helper()
	q := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	db, err := sql.Open("sqlite3", filepath.Join(roots["cursor"], "User", "globalStorage", "state.vscdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const cid = "5ec2e700-cccc-4000-8000-00000000beef"
	var headers []map[string]any
	for i, l := range lines {
		id := fmt.Sprintf("s-%03d", i)
		headers = append(headers, map[string]any{"bubbleId": id, "type": 1})
		if _, err := db.Exec(`INSERT INTO cursorDiskKV(key,value) VALUES(?,?)`, "bubbleId:"+cid+":"+id, q(map[string]any{"type": 1, "text": l})); err != nil {
			t.Fatal(err)
		}
	}
	composer := q(map[string]any{"composerId": cid, "name": "secrets", "createdAt": 1778061600000, "fullConversationHeadersOnly": headers})
	if _, err := db.Exec(`INSERT INTO cursorDiskKV(key,value) VALUES(?,?)`, "composerData:"+cid, composer); err != nil {
		t.Fatal(err)
	}
	var segs []map[string]any
	for i, l := range lines {
		segs = append(segs, map[string]any{"speaker": "Dana", "offset": i, "text": l})
	}
	env := q(map[string]any{"loggie": 1, "transcript": "t-secret", "complete": true, "started": "2026-05-06T10:00:00Z", "segments": segs})
	p := filepath.Join(roots["loggie"], "transcripts", "secrets.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(env), 0o644); err != nil {
		t.Fatal(err)
	}
}
