package engine

import (
	"context"
	"strings"

	"github.com/cairnmemory/cairn/redact"
)

// TranscriptKey is how the index names a transcript file.
//
// A transcript's path can hold a secret: Claude Code names
// each project folder after its working directory
// (projects/-home-dev-<token>-proj/), so a token in a cwd stands in the
// path too. The index therefore never stores or reports the path itself
// but the transcript's key: the path when redact.Redact leaves it unchanged,
// else the redacted path, "#" and 16 hex of the real path's sha256, so two
// such files never share a key. The key is a function of the path, so each
// sync finds the real path again with its source's Find, computes the key
// and looks the state up by it; failures, the sync status, session records
// and memory provenance all carry the key. A redacted key redacts to
// itself, so a key is its own key.
func TranscriptKey(path string) string {
	clean, _ := redact.Redact(path)
	if clean == path {
		return path
	}
	return clean + "#" + sha256Hex(path)[:16]
}

// cleanReason is a failure's reason as stored and reported: an error names
// the file by its real path, which becomes the key, and anything else the
// redactor catches is replaced.
func cleanReason(reason, path, key string) string {
	if key != path {
		reason = strings.ReplaceAll(reason, path, key)
	}
	reason, _ = redact.Redact(reason)
	return reason
}

// rekeyTranscripts rewrites the states and session records an older
// version stored under a transcript's raw path, when that path holds a
// secret, to its key (one transaction each; no manual step). It reports
// whether anything was renamed.
func (e *Engine) rekeyTranscripts(ctx context.Context, corpus string, paths []string) (bool, error) {
	renamed := false
	done := map[string]bool{}
	for _, p := range paths {
		k := TranscriptKey(p)
		if k == p || done[p] {
			continue
		}
		done[p] = true
		if err := e.store.RenameTranscript(ctx, corpus, p, k); err != nil {
			return renamed, err
		}
		renamed = true
	}
	return renamed, nil
}
