package ingest

import (
	"maps"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn/redact"
)

// ReasonSecretName starts the failure of a file whose path holds a secret;
// the kinds found follow ("file name holds a secret (github-token): ...").
const ReasonSecretName = "file name holds a secret"

// secretName reports whether the exposed path rel of a file to be listed
// holds a secret in a corpus that redacts, and then records the failure
// under the redacted path, naming the kinds and never the value (ux F23).
// Such a file is not indexed: its path would be the document's key,
// stored in the index and shown in hits as written, and a key rewritten
// by the redactor would no longer lead back to the file. Only files the
// scan lists are checked (Skip's unchanged files were checked when they
// were indexed, under the same redaction version), so a no-op sync pays
// nothing; a first index pays one redact.Redact of each path (0.4 to 0.6
// us for a 53-byte path without anchors, BenchmarkRedact/path).
func (w *walker) secretName(rel string) bool {
	if w.corpus.NoRedact {
		return false
	}
	clean, counts := redact.Redact(rel)
	if counts == nil {
		return false
	}
	kinds := slices.Sorted(maps.Keys(counts))
	w.fail(clean, ReasonSecretName+" ("+strings.Join(kinds, ", ")+"): not indexed; rename the file")
	return true
}
