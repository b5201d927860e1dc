package ingest

import (
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
)

// Codex forks and sub-agents (spec transcript-formats.md §2.3, §2.4). A
// forked rollout starts with its own session_meta, which names the parent in
// forked_from_id (sub-agents: parent_thread_id, or source.subagent
// .thread_spawn.parent_thread_id), and then replays the parent's rollout
// line by line, the parent's own session_meta first, before the fork's new
// turns. Codex writes the replayed lines with fresh timestamps and no
// marker where the replay ends, so the file alone cannot say which of its
// messages are the parent's.
//
// The rule Cairn follows:
//
//   - The replay starts at the first session_meta after the rollout's own
//     whose id is not the rollout's id. A fork without such a line copied
//     nothing: all its messages are its own.
//   - From there, the fork's messages are compared in order with the
//     parent's (the parent rollout found by its id under the same Codex
//     home, sessions/ before archived_sessions/, read under the same bounds
//     and not itself de-duplicated, so a fork of a fork matches the replay
//     of the grandparent too). While they agree (role, kind, text and tool
//     call ids) they are dropped and counted in Stats.Deduplicated; the
//     first message that differs ends the replay, and it and everything
//     after it are kept.
//   - When the parent rollout cannot be found or read (deleted by the user,
//     outside this home), the replay is kept: it is then the only copy of
//     those messages, and losing them would be worse than a repeat.
//
// Messages before the replayed session_meta (rare: the fork's own context)
// are always kept. A fork is re-read when its own file changes; the parent
// appearing or vanishing later does not re-project it.

// codexDedupeFork drops the messages of s from index start on that repeat
// the parent rollout's messages in order.
func codexDedupeFork(s *cairn.Session, start int, o ParseOptions) {
	if start < 0 || start >= len(s.Messages) || s.ParentID == "" || o.Path == "" {
		return
	}
	parent, ok := codexReadParent(o.Path, s.ParentID)
	if !ok {
		return
	}
	i := 0
	for i < len(parent) && start+i < len(s.Messages) && codexSameMessage(parent[i], s.Messages[start+i]) {
		i++
	}
	if i == 0 {
		return
	}
	s.Messages = append(s.Messages[:start], s.Messages[start+i:]...)
	s.Stats.Deduplicated += i
}

// codexSameMessage compares what a replay copies: role, kind, text and the
// tool calls' ids (ids of messages derive from line numbers and differ).
func codexSameMessage(a, b cairn.Message) bool {
	if a.Role != b.Role || a.Kind != b.Kind || a.Text != b.Text || len(a.Tools) != len(b.Tools) {
		return false
	}
	for i := range a.Tools {
		if a.Tools[i].ID != b.Tools[i].ID || a.Tools[i].Name != b.Tools[i].Name {
			return false
		}
	}
	return true
}

// codexHome returns the Codex home holding a rollout: the parent of the
// nearest sessions/ or archived_sessions/ folder above it.
func codexHome(path string) (string, bool) {
	for dir := filepath.Dir(path); ; {
		switch filepath.Base(dir) {
		case "sessions", "archived_sessions":
			return filepath.Dir(dir), true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", false
		}
		dir = up
	}
}

// codexReadParent finds the parent rollout of a fork under the same Codex
// home and returns its messages, parsed without fork de-duplication. It
// opens the file as sync opens transcripts (under the home, regular files
// only) and reads it under the same bounds.
func codexReadParent(path, parentID string) ([]cairn.Message, bool) {
	home, ok := codexHome(path)
	if !ok {
		return nil, false
	}
	files, err := codexFind(home)
	if err != nil {
		return nil, false
	}
	for _, f := range files {
		if codexIDFromPath(f) != parentID || f == path {
			continue
		}
		fh, _, err := OpenTranscript(home, f)
		if err != nil {
			return nil, false
		}
		bd, err := ReadTranscript(fh, f)
		fh.Close()
		if err != nil {
			return nil, false
		}
		s := codexParseSession(bd.Data, ParseOptions{Path: f})
		return s.Messages, true
	}
	return nil, false
}

// codexIsReplayedMeta reports whether a session_meta entry is a replayed
// parent's: a later meta line with another id than the rollout's.
func codexIsReplayedMeta(p codexPayload, own string) bool {
	return p.ID != "" && !strings.EqualFold(p.ID, own)
}
