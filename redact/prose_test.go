package redact

import (
	"strings"
	"testing"
)

// TestRedactProsePasswords: a password given in a sentence is redacted
// (review finding F5: "password is X" was kept), and sentences about
// passwords are not.
func TestRedactProsePasswords(t *testing.T) {
	const x = "[REDACTED:password]"
	for _, tc := range []struct{ in, want string }{
		// Secrets in prose.
		{"the password is hunter2", "the password is " + x},
		{"The password is hunter2.", "The password is " + x + "."},
		{"my password was Summer2024! but I changed it", "my password was " + x + " but I changed it"},
		{"the staging passphrase is 'swordfish' for now", "the staging passphrase is '" + x + "' for now"},
		{"the password is `s3cr3t-Pa55`", "the password is `" + x + "`"},
		{"Password: Tr0ub4dor-q7Z for the admin account", "Password: " + x + " for the admin account"},
		{"login with user admin, password: pa55w0rd, then reset", "login with user admin, password: " + x + ", then reset"},
		{"pwd = abc123xyz (the old one)", "pwd = " + x + " (the old one)"},
		{"the PIN-like password is 482913", "the PIN-like password is " + x},
		{"password is: Q7z!k2Lm", "password is: " + x},
		{"(the password was 9f8e7d6c)", "(the password was " + x + ")"},
		{"passwd is 2FA-token9 and pwd: xY7-kk2q", "passwd is " + x + " and pwd: " + x},
		// Prose about passwords, and code, stays.
		{"the password is in the vault", ""},
		{"password is required", ""},
		{"The password is correct.", ""},
		{"the password was changed yesterday", ""},
		{"Password is NOT_SET on this host", ""},
		{"password: 12-character minimum, SHA-256 hashed", ""},
		{"the password is 8 characters long", ""},
		{"the password is stored in ~/.pgpass", ""},
		{"the password is $DB_PASSWORD", ""},
		{"the password is ${DB_PASSWORD}", ""},
		{"the password is <your-password>", ""},
		{"the password is ***** in the logs", ""},
		{"the password is 'required'", ""},
		{"the password is \"\"", ""},
		{"the passphrase is 'correct horse battery staple'", ""}, // several words quoted: kept
		{`the wifi password is "orange juice"? no, it is "Tr0ub4dor&3"`, ""},
		{"password = newPassword", ""},
		{"password := makePassword(n)", ""},
		{"if password == expected {", ""},
		{"Password: cfg.Password,", ""},
		{"password: os.Getenv(\"DB_PASSWORD\"),", ""},
		{"run pwd: it prints the folder", ""},
		{"PWD=/home/user/src/cairn", ""},
		{"the password isn't hunter2", ""},
		{"passwords is plural", ""},
		{"password_file: hunter2", ""},
		{"the password-is-weak warning", ""},
		{"$password is a variable", ""},
		{"docker login --password-stdin", ""},
	} {
		want := tc.want
		if want == "" {
			want = tc.in
		}
		got, counts := Redact(tc.in)
		if got != want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, want)
			continue
		}
		n := strings.Count(want, x)
		if counts[kindPassword] != n || len(counts) > min(n, 1) {
			t.Errorf("Redact(%q): counts %v, want %d password", tc.in, counts, n)
		}
	}
}
