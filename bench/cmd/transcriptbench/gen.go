package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/klauspost/compress/zstd"
)

var words = strings.Fields(`the deploy failed because the migration locked the sessions table pelican retry
backoff token refresh cache invalidation flaky test timeout config yaml docker compose port 8081 postgres
index vacuum wal checkpoint goroutine leak context cancel error wrap lint format release tag branch merge
rebase conflict review comment approve pipeline runner artifact upload download checksum sha256 verify`)

func text(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

// genClaude writes one Claude Code session of about size bytes under
// root/projects/-home-dev-bench/. With tools, turns carry a tool call whose
// result is 2 to 60 KB (also repeated in toolUseResult, as Claude Code
// writes it) and every 20th turn a 300 KB base64 screenshot; without, turns
// are plain user and assistant messages of 0.5 to 3 KB.
func genClaude(root string, size int64, tools bool) (int64, error) {
	return genClaudeSized(root, size, tools, 500, 2500)
}

// genClaudeSized is genClaude with message texts of lo to lo+spread bytes.
func genClaudeSized(root string, size int64, tools bool, lo, spread int) (int64, error) {
	const sid = "00000000-0000-4000-8000-00000000b001"
	p := filepath.Join(root, "projects", "-home-dev-bench", sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return 0, err
	}
	f, err := os.Create(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	var written int64
	parent := ""
	n := 0
	emit := func(typ string, msg any, extra map[string]any) error {
		n++
		id := fmt.Sprintf("aaaaaaaa-0000-4000-8000-%012d", n)
		rec := map[string]any{"parentUuid": nil, "isSidechain": false, "cwd": "/home/dev/bench", "sessionId": sid,
			"type": typ, "message": msg, "uuid": id, "timestamp": start.Add(time.Duration(n) * time.Second).Format("2006-01-02T15:04:05.000Z")}
		if parent != "" {
			rec["parentUuid"] = parent
		}
		for k, v := range extra {
			rec[k] = v
		}
		line, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		parent = id
		m, err := w.Write(append(line, '\n'))
		written += int64(m)
		return err
	}
	for turn := 0; written < size; turn++ {
		if err := emit("user", map[string]any{"role": "user", "content": text(r, lo+r.IntN(spread))}, nil); err != nil {
			return 0, err
		}
		content := []any{map[string]any{"type": "text", "text": text(r, lo+r.IntN(spread))}}
		toolID := fmt.Sprintf("toolu_%08d", turn)
		if tools {
			content = append(content, map[string]any{"type": "tool_use", "id": toolID, "name": "Bash", "input": map[string]any{"command": "go test ./... -run " + words[r.IntN(len(words))]}})
		}
		if err := emit("assistant", map[string]any{"id": fmt.Sprintf("msg_%08d", turn), "type": "message", "role": "assistant", "model": "m", "content": content}, nil); err != nil {
			return 0, err
		}
		if !tools {
			continue
		}
		out := text(r, 2000+r.IntN(58000))
		result := []any{map[string]any{"type": "tool_result", "tool_use_id": toolID, "content": out, "is_error": false}}
		if turn%20 == 19 {
			img := make([]byte, 225_000)
			for i := range img {
				img[i] = byte(r.Uint32())
			}
			result = append(result, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(img)}})
		}
		if err := emit("user", map[string]any{"role": "user", "content": result}, map[string]any{"toolUseResult": map[string]any{"stdout": out, "stderr": ""}}); err != nil {
			return 0, err
		}
	}
	return written, w.Flush()
}

// genCodexBomb writes a Codex rollout compressed with zstd: a session_meta
// line, then 1,000 assistant messages of 1 MiB each (one repeated word), so
// about 100 KB on disk expand to about 1 GB, under the 1 GiB the decoder
// allowed before issue 13.
func genCodexBomb(root string) (int64, error) {
	p := filepath.Join(root, "sessions", "2026", "05", "04", "rollout-2026-05-04T09-00-00-00000000-0000-4000-8000-00000000c0de.jsonl.zst")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return 0, err
	}
	f, err := os.Create(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	enc, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		return 0, err
	}
	meta := `{"timestamp":"2026-05-04T09:00:00.000Z","type":"session_meta","payload":{"id":"00000000-0000-4000-8000-00000000c0de","timestamp":"2026-05-04T09:00:00.000Z","cwd":"/home/dev/bomb"}}` + "\n"
	if _, err := enc.Write([]byte(meta)); err != nil {
		return 0, err
	}
	body := strings.Repeat("bomb ", 1<<20/5)
	for i := range 1000 {
		line := fmt.Sprintf(`{"timestamp":"2026-05-04T09:%02d:%02d.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":%q}]}}`+"\n", i/60%60, i%60, body)
		if _, err := enc.Write([]byte(line)); err != nil {
			return 0, err
		}
	}
	if err := enc.Close(); err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	_ = cairn.SourceCodex
	return fi.Size(), nil
}
