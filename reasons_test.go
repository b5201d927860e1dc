package cairn

import (
	"regexp"
	"testing"
)

// TestReasonCodes: every reason code is snake_case and has its own
// sentence; chat-type codes are worded from the type; an unknown code
// prints as itself.
func TestReasonCodes(t *testing.T) {
	snake := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	seen := map[string]string{}
	for code, text := range reasonText {
		if !snake.MatchString(code) {
			t.Errorf("code %q is not snake_case", code)
		}
		if text == "" || text == code || ReasonText(code) != text {
			t.Errorf("code %q: sentence %q", code, ReasonText(code))
		}
		if other, dup := seen[text]; dup {
			t.Errorf("codes %q and %q share the sentence %q", code, other, text)
		}
		seen[text] = code
	}
	for _, tc := range [][2]string{
		{SkipChatType("direct"), "direct chats not selected"},
		{"direct_chats_not_selected", "direct chats not selected"},
		{"_chats_not_selected", "_chats_not_selected"},
		{"some_future_code", "some_future_code"},
	} {
		if got := ReasonText(tc[0]); got != tc[1] {
			t.Errorf("ReasonText(%q) = %q, want %q", tc[0], got, tc[1])
		}
	}
}
