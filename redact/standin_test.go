package redact

import "testing"

// TestFixedShapeSamples checks that a value in a provider's fixed shape is
// redacted even when the word "example" or "your" is among its letters
// (AWS documents its sample keys so), while masks and stand-ins whose
// words stand apart are kept.
func TestFixedShapeSamples(t *testing.T) {
	for _, c := range []secretCase{
		{"aws-access-key-id", "aws_access_key_id = ", "AKIA" + "IOSFODNN7EXAMPLE", "\n"},
		{"aws-access-key-id", `"AccessKeyId": "`, "ASIA" + "YOURQ2W3E4R5T6Y7", `"`},
		{"aws-secret-access-key", "aws_secret_access_key = ", "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY", "\n"},
		{"github-token", "GITHUB_TOKEN=", "ghp_" + r("A1b2", 7) + "ExAmPle1", ""},
		{"google-api-key", "key=", "AIza" + r("Sy1_", 7) + "yourKey", "&q=1"},
	} {
		got, counts := Redact(c.in())
		if got != c.want() || counts[c.kind] != 1 || len(counts) != 1 {
			t.Errorf("Redact(%q)\n got %q (%v)\nwant %q", c.in(), got, counts, c.want())
		}
	}
	for _, s := range []string{
		"aws_access_key_id = AKIA" + r("X", 16),
		"GITHUB_TOKEN=ghp_" + r("x", 36),
		"OPENAI_API_KEY=sk-proj-your-api-key-goes-here-1234",
		"ANTHROPIC_API_KEY=sk-ant-YOUR_API_KEY_HERE_0123456789",
		"key=AIza" + "_example_key_for_the_docs_only_12345",
		"OPENAI_API_KEY=YOUR_API_KEY",
		`token: "<your-key>"`,
		"Authorization: Bearer yourAccessToken12345",
	} {
		if got, counts := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q (%v), want it unchanged", s, got, counts)
		}
	}
}
