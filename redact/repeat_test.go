package redact

import (
	"strings"
	"testing"
)

// TestRedactRepeats: a value a rule replaced is replaced at its bare
// copies in the same text, before and after, with the same kind (review
// finding ux F5: "I will not repeat hunter2" was kept after "the password
// is hunter2" was redacted); ordinary words and partial tokens stay.
func TestRedactRepeats(t *testing.T) {
	const (
		x  = "[REDACTED:password]"
		db = "[REDACTED:database-password]"
		gh = "[REDACTED:github-token]"
	)
	tok := "ghp_" + r("A1b2", 9)
	for _, tc := range []struct {
		in, want string
		n        int // values replaced in all
	}{
		// Repeats replaced.
		{"the password is hunter2\nI will not repeat hunter2 anywhere",
			"the password is " + x + "\nI will not repeat " + x + " anywhere", 2},
		{"Password: " + pw + " for the admin account\nok, " + pw + ", noted.",
			"Password: " + x + " for the admin account\nok, " + x + ", noted.", 2},
		{"earlier: hunter2 (typed by mistake)\nthe password is hunter2",
			"earlier: " + x + " (typed by mistake)\nthe password is " + x, 2},
		{"DB_PASSWORD=" + pw + "\necho " + pw + " | psql",
			"DB_PASSWORD=" + x + "\necho " + x + " | psql", 2},
		{"postgres://app:" + pw + "@db/app then login with " + pw,
			"postgres://app:" + db + "@db/app then login with " + db, 2},
		{"the password is hunter2 and hunter2@host, hunter2-old, (hunter2)",
			"the password is " + x + " and " + x + "@host, " + x + "-old, (" + x + ")", 4},
		{`{"a": "the password is hunter2", "b": "ok\nhunter2 again\thunter2"}`,
			`{"a": "the password is ` + x + `", "b": "ok\n` + x + ` again\t` + x + `"}`, 3},
		{"the password is Summer2024!\nSummer2024! it is", "the password is " + x + "\n" + x + " it is", 2},
		{"the password is 482913, again 482913", "the password is " + x + ", again " + x, 2},
		{"token " + tok + " and " + tok, "token " + gh + " and " + gh, 2}, // found by its rule anyway
		// Kept: not a whole token, or a value not remembered.
		{"the password is hunter2; xhunter2 hunter22 _hunter2 hunter2_x",
			"the password is " + x + "; xhunter2 hunter22 _hunter2 hunter2_x", 1},
		{"the passphrase is 'swordfish'\nswordfish are fast", "the passphrase is '" + x + "'\nswordfish are fast", 1},
		{"DB_PASSWORD=letmein\nletmein", "DB_PASSWORD=" + x + "\nletmein", 1},
		{"password: read-only-user\nread-only-user", "password: " + x + "\nread-only-user", 1},
		{"pwd = ab1!\nab1! is short", "pwd = " + x + "\nab1! is short", 1},
		{"the password is in the vault\nvault123", "", 0},
		{"hunter2 alone is a word with a digit", "", 0},
	} {
		want := tc.want
		if want == "" {
			want = tc.in
		}
		got, counts := Redact(tc.in)
		if got != want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, want)
		}
		n := 0
		for _, c := range counts {
			n += c
		}
		if n != tc.n {
			t.Errorf("Redact(%q): counts %v, want %d in all", tc.in, counts, tc.n)
		}
		if twice, c := Redact(got); twice != got || c != nil {
			t.Errorf("Redact not idempotent on %q: %q (%v)", got, twice, c)
		}
	}
}

// TestRedactPartsAcross: the parts of one document share their values, in
// both directions; separate calls do not.
func TestRedactPartsAcross(t *testing.T) {
	const x = "[REDACTED:password]"
	parts := []string{
		"title: about hunter2",
		"the password is hunter2",
		"I will not repeat hunter2 or " + pw + " anywhere",
		"Password: " + pw + " for the admin account",
		"",
		"nothing here",
	}
	ptrs := make([]*string, 0, len(parts)+1)
	for i := range parts {
		ptrs = append(ptrs, &parts[i])
	}
	ptrs = append(ptrs, nil)
	counts := RedactParts(ptrs)
	want := []string{
		"title: about " + x,
		"the password is " + x,
		"I will not repeat " + x + " or " + x + " anywhere",
		"Password: " + x + " for the admin account",
		"",
		"nothing here",
	}
	for i := range want {
		if parts[i] != want[i] {
			t.Errorf("part %d = %q, want %q", i, parts[i], want[i])
		}
	}
	if counts[kindPassword] != 5 || len(counts) != 1 {
		t.Errorf("counts = %v, want {password:5}", counts)
	}
	// Redact on each part alone finds only the rule's copy.
	if got, _ := Redact("I will not repeat hunter2 anywhere"); got != "I will not repeat hunter2 anywhere" {
		t.Errorf("a part alone: %q", got)
	}
}

// TestRepeatable lists which replaced values are remembered.
func TestRepeatable(t *testing.T) {
	for v, want := range map[string]bool{
		"hunter2": true, pw: true, "Summer2024!": true, "482913": true, "abc/def+g": true,
		"my pass " + pw: true, "ghp_" + r("A1b2", 9): true,
		"ab1!": false, "12345": false, "swordfish": false, "TrOuBaDoR": false, "read-only": false,
		"correct horse battery": false, "[REDACTED:password]": false, "${DB_PASSWORD}": false,
		"line1\nline2x": false, "pässwörter": false, "********": false,
		// ux F26: punctuation at the end, a plain word inside punctuation.
		"required\",": false, "hunter2.": false, "hunter2,": false, "(hunter2)": false, "required!": false, "'swordfish'": false,
		"Summer!2024": true, "!Qz7k9x": true,
	} {
		if got := repeatable(v); got != want {
			t.Errorf("repeatable(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestRepeatsManyValues: many distinct values sharing their first bytes
// are each found, the longest first where one extends another.
func TestRepeatsManyValues(t *testing.T) {
	var in, want strings.Builder
	var tail, wantTail strings.Builder
	for i := 0; i < 300; i++ {
		v := "Qz7k9x" + strings.Repeat("a", i%7) + string(rune('0'+i%10)) + strings.Repeat("b", i/10)
		in.WriteString("DB_PASSWORD=" + v + "\n")
		want.WriteString("DB_PASSWORD=[REDACTED:password]\n")
		tail.WriteString(v + " ")
		wantTail.WriteString("[REDACTED:password] ")
	}
	got, counts := Redact(tail.String() + "\n" + in.String())
	if got != wantTail.String()+"\n"+want.String() {
		t.Fatalf("not every repeat replaced:\n%s", got)
	}
	if counts[kindPassword] != 600 {
		t.Errorf("counts = %v, want 600", counts)
	}
}
