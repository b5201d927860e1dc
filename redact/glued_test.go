package redact

import (
	"strings"
	"testing"
)

// TestRedactAfterColourCodes: a fixed-shape token right after an ANSI CSI
// sequence (grep --color, gh, env output), with or without its ESC bytes,
// or glued to a word, is redacted (ux F1).
func TestRedactAfterColourCodes(t *testing.T) {
	ghp := "ghp_" + r("A1b2", 9)
	for _, c := range []secretCase{
		{"github-token", "config.env:GITHUB=\x1b[01;31m\x1b[K", ghp, "\x1b[m\x1b[K"},
		{"github-token", "\x1b[31m", ghp, "\x1b[0m"},
		{"github-token", "use \x1b[1m", "ghs_" + r("C3d4", 9), " for deploys"},
		{"github-token", "config.env:GITHUB=[01;31m[K", ghp, "[m[K"},
		{"github-token", "[1m", "github_pat_" + r("11AB_cd", 4), ""},
		{"github-token", "token", ghp, ""},
		{"github-token", "x_", ghp, ""},
		{"anthropic-key", "\x1b[32m", "sk-ant-api03-" + r("Xy9-", 6), ""},
		{"anthropic-key", "key", "sk-ant-api03-" + r("Xy9-", 6), ""},
		{"aws-access-key-id", "\x1b[1;33m", "AKIA" + "ABCDEFGH23456789", "\x1b[0m"},
		{"aws-access-key-id", "id", "AKIA" + "ABCDEFGH23456789", ""},
		{"slack-token", "\x1b[36m", "xoxb-" + "1234567890-1234567890123-" + r("Ab1c", 6), ""},
		{"gitlab-token", "[0;32m", "glpat-" + r("Ab1-", 5), ""},
		{"google-api-key", "\x1b[0m", "AIza" + r("Sy1_", 8) + "abc", ""},
		{"openai-key", "\x1b[33m", "sk-proj-" + r("Ab1_", 10), ""},
		{"stripe-key", "\x1b[33m", "sk_live_" + r("Ab1c", 6), ""},
		// the key of an assignment or a prose password after a colour code
		{kindPassword, "the env has \x1b[1mDB_PASSWORD=", "Zq8EsCpW9Np2", "\x1b[0m set"},
		{kindPassword, "\x1b[1mpassword: ", "Zq8Wv3Lm9Np2", "\x1b[0m"},
		{kindPassword, "[01;32mexport DB_PASSWORD=", "Zq8Wv3Lm9Np2", "[0m"},
		{kindSecret, "\x1b[36mapi_key=", "q8Zr2Lm5Np7Wx3", "\x1b[0m"},
		// a colour code between the key and its value
		{kindPassword, "DB_PASSWORD=\x1b[1m", "Zq8Wv3Lm9Np2", "\x1b[0m"},
		{kindPassword, "--password \x1b[33m", "Zq8Wv3Lm9Np2", "\x1b[0m"},
		{kindPassword, "the password is \x1b[1;31m", "Zq8Wv3Lm9Np2", "\x1b[0m for now"},
		{kindPassword, "password: [1m", "Zq8Wv3Lm9Np2", "[0m"},
	} {
		got, counts := Redact(c.in())
		if got != c.want() || counts[c.kind] != 1 {
			t.Errorf("%s: Redact(%q)\n got %q (%v)\nwant %q", c.kind, c.in(), got, counts, c.want())
		}
	}
}

// TestRedactKeepsGluedWords: a prefix glued to a word is taken only for
// the distinctive prefixes and only when the rest looks random, so words
// and identifiers that hold a prefix stay.
func TestRedactKeepsGluedWords(t *testing.T) {
	for _, s := range []string{
		"highs_" + "getAllValuesForCurrentUserWithPagination", // ghs_ + 36 letters, no digit
		"laughs_" + strings.Repeat("a1", 20),                  // no capital
		"run task-ant-colony-simulation-v2-final",             // sk-ant- inside a word, no capital
		"disk-" + r("0a1b2c3d", 4) + " mounted",               // sk- + 32 hex: openai's sk- is not taken glued
		"task_live_" + r("Ab1c", 6),                           // stripe's sk_live_ is not taken glued
		"EURASIA" + "NMINISTRYOFTRADE",                        // ASIA + 16 capitals, no digit
		"[1]ghp_" + r("A1b2", 9)[:20],                         // too short for a token
		"see [link]ghp_" + strings.Repeat("x", 36),            // a mask
		"ESC [12;34H then ghp_" + strings.Repeat("*", 36),     // a mask
		"id:" + "xAKIA" + "IOSFODNNAEXAMPLEX",                 // no word boundary at the end
	} {
		if got, counts := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q (%v), want it unchanged", s, got, counts)
		}
	}
}
