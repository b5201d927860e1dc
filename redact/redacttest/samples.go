// Package redacttest provides synthetic secrets for tests in other
// packages: one line per secret kind that package redact must catch. The
// values are built by concatenation at run time, so no real-looking key is
// written in the repository.
package redacttest

import (
	"encoding/base64"
	"slices"
	"strings"
)

// Sample is one planted secret: Line holds Secret in a typical context.
type Sample struct {
	Kind   string
	Line   string
	Secret string
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

// Samples returns one line per secret kind (at least 24 kinds).
func Samples() []Sample {
	hex32 := rep("9f8e7d6c", 4)
	jwt := "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + rep("Sf1Kx", 8)
	pw := "Tr0ub4dor&3xQ9"
	pem := "-----BEGIN " + "RSA PRIVATE KEY-----\n" + rep("MIIEowIBAAKCAQEA7bq9", 3) + "\n" + rep("Zm9vYmFyYmF6cXV4", 4) + "\n-----END RSA PRIVATE KEY-----"
	s := []Sample{
		{"openai-key", "OPENAI_API_KEY=%s", "sk-proj-" + rep("Ab1_", 10)},
		{"anthropic-key", "ANTHROPIC_API_KEY=%s", "sk-ant-api03-" + rep("Xy9-", 20)},
		{"google-api-key", "maps key=%s&q=1", "AIza" + rep("Sy1_", 8) + "abc"},
		{"aws-access-key-id", "aws_access_key_id = %s", "AKIA" + "ABCDEFGH23456789"},
		{"aws-secret-access-key", "aws_secret_access_key = %s", rep("Ab3/Cd4+", 5)},
		{"github-token", "GITHUB_TOKEN=%s", "ghp_" + rep("A1b2", 9)},
		{"gitlab-token", "PRIVATE-TOKEN: %s", "glpat-" + rep("Ab1-", 5)},
		{"slack-token", "SLACK_BOT_TOKEN=%s", "xoxb-" + "1234567890-1234567890123-" + rep("Ab1c", 6)},
		{"slack-webhook", "webhook: %s", "https://hooks.slack.com/services/T0" + "1234567/B0" + "1234567/" + rep("Ab1c", 6)},
		{"stripe-key", "stripe.api_key = '%s'", "sk_live_" + rep("Ab1c", 6)},
		{"sendgrid-key", "SENDGRID_API_KEY=%s", "SG." + rep("Ab1_", 5) + "cd." + rep("Ab1-", 10) + "xyz"},
		{"npm-token", "NPM_TOKEN=%s", "npm_" + rep("Ab1c", 9)},
		{"pypi-token", "TWINE_PASSWORD=%s", "pypi-AgEIcHlwaS5vcmc" + rep("Ab1_", 14)},
		{"huggingface-token", "HF_TOKEN=%s", "hf_" + rep("Ab1c", 9)},
		{"vault-token", "VAULT_TOKEN=%s", "hvs." + rep("Ab1_", 7)},
		{"digitalocean-token", "DIGITALOCEAN_TOKEN=%s", "dop_v1_" + rep("0a1b2c3d", 8)},
		{"databricks-token", "DATABRICKS_TOKEN=%s", "dapi" + hex32},
		{"telegram-bot-token", "bot = Bot('%s')", "123456789:AA" + rep("Ab1_", 8) + "c"},
		{"jwt", "Cookie: session=%s; Path=/", jwt},
		{"bearer-token", "Authorization: Bearer %s", rep("Zq9-Xy8_", 4)},
		{"basic-auth", "Authorization: Basic %s", base64.StdEncoding.EncodeToString([]byte("admin:" + pw))},
		{"url-password", "git remote add origin https://deploy:%s@git.example.net/repo.git", "Pa55" + rep("wQ7z", 3)},
		{"database-password", "DATABASE_URL=postgres://app:%s@db.internal:5432/app", "Sup3r" + rep("S3cr", 3)},
		{"password", `{"user": "bob", "password": "%s"}`, pw},
		{"private-key", "key:\n%s", pem},
	}
	for i := range s {
		s[i].Line = strings.Replace(s[i].Line, "%s", s[i].Secret, 1)
	}
	return s
}

// Needles returns, by kind, the strings no redacted output may hold: each
// sample's secret, and each body line of the private key block (its armour
// lines are not secret).
func Needles() map[string][]string {
	out := map[string][]string{}
	for _, s := range Samples() {
		if s.Kind == "private-key" {
			lines := strings.Split(s.Secret, "\n")
			out[s.Kind] = lines[1 : len(lines)-1]
			continue
		}
		out[s.Kind] = []string{s.Secret}
	}
	return out
}

// Leaked returns, sorted, the kinds whose secrets data holds.
func Leaked(data string) []string {
	var kinds []string
	for kind, ns := range Needles() {
		for _, n := range ns {
			if strings.Contains(data, n) {
				kinds = append(kinds, kind)
				break
			}
		}
	}
	slices.Sort(kinds)
	return kinds
}
