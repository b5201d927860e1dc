package mcpserver

import (
	"strings"
	"testing"
)

// TestPayloadTooDeep: a message nested past what encoding/json parses
// (10,000 levels) is refused for its depth, as one nested 101 levels is,
// not as "not one JSON value" (before); broken JSON still is a parse error.
func TestPayloadTooDeep(t *testing.T) {
	for _, tc := range []struct {
		name, msg, want string
	}{
		{"101 levels", strings.Repeat("[", 101) + strings.Repeat("]", 101), "nests 101 levels deep"},
		{"200,000 levels", strings.Repeat("[", 200000) + strings.Repeat("]", 200000), "nests 200000 levels deep"},
		{"broken", `{"jsonrpc":"2.0",`, "not one JSON value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkPayload([]byte(tc.msg), true); err == nil || !strings.Contains(err.message, tc.want) {
				t.Errorf("checkPayload = %+v, want %q", err, tc.want)
			}
		})
	}
}
