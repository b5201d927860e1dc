package redacttest

import (
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/redact"
)

// TestSamplesAreRedacted keeps the samples honest: each one is caught as
// its kind by the redactor.
func TestSamplesAreRedacted(t *testing.T) {
	kinds := map[string]bool{}
	for _, s := range Samples() {
		out, counts := redact.Redact(s.Line)
		if strings.Contains(out, s.Secret) || counts[s.Kind] == 0 {
			t.Errorf("%s: Redact(%q) = %q, counts %v", s.Kind, s.Line, out, counts)
		}
		kinds[s.Kind] = true
	}
	if len(kinds) < 20 {
		t.Errorf("%d kinds, want at least 20", len(kinds))
	}
}
