package redact

import "testing"

// TestURLDocExamples: the userinfo of documentation's URL examples stays
// (ux U20); a longer password is still replaced, on example hosts too.
func TestURLDocExamples(t *testing.T) {
	for _, s := range []string{
		"const myURL = new URL('https://abc:xyz@example.com');",
		"new URL('https://a:b@測試?abc#foo')",
		"// Prints https://abc:123@example.com/",
		`endpoint = "https://u:p@host/v1"; postgres://user:pw@host:5432/db`,
	} {
		if got, counts := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q (%v), want it unchanged", s, got, counts)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"https://deploy:" + pw + "@git.example.net/r.git", "https://deploy:" + Placeholder(kindURLPassword) + "@git.example.net/r.git"},
		{"https://u:abcd@notexample.com/", "https://u:" + Placeholder(kindURLPassword) + "@notexample.com/"},
		{"postgres://app:" + pw + "@db.test:5432/app", "postgres://app:" + Placeholder(kindDatabasePassword) + "@db.test:5432/app"},
	} {
		if got, _ := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
