package redact

import (
	"regexp"
	"strings"
)

// A secret given as a name/value pair (ux U21): Kubernetes and compose env
// lists (- name: DB_PASSWORD, then value: "..." on the same or the next
// line), JSON name/value objects (ECS task definitions: {"name":
// "DB_PASSWORD", "value": "..."}) and CloudFormation parameters
// ({"ParameterKey": "DBPassword", "ParameterValue": "..."}). The value is
// judged as if assigned to the name (classify), as the XML form
// <env name=... value=.../> already is; a valueFrom reference is not a
// value.

// pairNameRe is the name key before it, within the same object or list
// item: name, Name, ParameterKey.
var pairNameRe = regexp.MustCompile(`(?:^|[\s{,"'])(?:[Nn]ame|[Pp]arameterKey)["']?[ \t]*[:=][ \t]*["']?([A-Za-z_][A-Za-z0-9_.-]*)["']?[ \t]*,?[ \t]*(?:\r?\n[ \t]*)?$`)

// findNameValues finds the values of name/value pairs whose name holds a
// secret word, in the whole text s (the name may be on the line before).
func findNameValues(s string, hits []hit) []hit {
	for i := 0; ; {
		j := strings.Index(s[i:], "alue")
		if j < 0 {
			return hits
		}
		at := i + j - 1 // the v of value
		i += j + len("alue")
		ks, k, ok := valueKeyAt(s, at)
		if !ok {
			continue
		}
		a, b, quoted := valueAt(s, k)
		if a < 0 {
			continue
		}
		if name := pairName(s, ks); name != "" {
			if kind := classify(name, s[a:b], !quoted); kind != "" {
				hits = append(hits, hit{a, b, kind})
				i = max(i, b)
			}
		}
	}
}

// valueKeyAt reports a key value, Value or ParameterValue whose v is at
// s[at], starting a word, and returns where the key starts and where its
// value does (after a quote, blanks and ':' or '=').
func valueKeyAt(s string, at int) (int, int, bool) {
	if at < 0 || s[at] != 'v' && s[at] != 'V' {
		return 0, 0, false
	}
	ks := at
	if at >= 9 && s[at] == 'V' && strings.EqualFold(s[at-9:at], "parameter") {
		ks = at - 9
	}
	if ks > 0 && strings.IndexByte(" \t\n{,\"'", s[ks-1]) < 0 {
		return 0, 0, false
	}
	k := at + len("value")
	if k < len(s) && (s[k] == '"' || s[k] == '\'') {
		k++
	}
	k = skipBlanks(s, k)
	if k >= len(s) || s[k] != ':' && s[k] != '=' {
		return 0, 0, false
	}
	return ks, skipBlanks(s, k+1), true
}

// pairName returns the name of the pair whose value key starts at s[ks]:
// a name, Name or ParameterKey key just before it, on its line or the one
// before, or "".
func pairName(s string, ks int) string {
	from := max(0, ks-200)
	if nl := strings.LastIndexByte(s[from:ks], '\n'); nl >= 0 {
		if nl2 := strings.LastIndexByte(s[from:from+nl], '\n'); nl2 >= 0 {
			from += nl2 + 1
		}
	}
	back := strings.TrimRight(s[from:ks], " \t-\"'")
	if m := pairNameRe.FindStringSubmatch(back); m != nil {
		return m[1]
	}
	return ""
}

// secretStoreRe is a secret handed to a secret store's command line: az
// keyvault secret set --value, gh secret set --body, echo ... | docker
// secret create, vercel env add ... <<< and gcloud secrets
// create|versions add ... <<< (aws ssm put-parameter: ssmRe).
var secretStoreRe = regexp.MustCompile(toolStart + `(?:` +
	`az[ \t]+keyvault[ \t]+secret[ \t]+set[ \t]` + args + `--value[ \t=]+(` + toolValue + `)` +
	`|gh[ \t]+secret[ \t]+set[ \t]` + args + `(?:--body|-b)[ \t=]+(` + toolValue + `)` +
	`|echo[ \t]+(` + toolValue + `)[ \t]*\|[ \t]*docker[ \t]+secret[ \t]+create\b` +
	`|vercel[ \t]+env[ \t]+add[ \t][^\n;&|]*<<<[ \t]*(` + toolValue + `)` +
	`|gcloud[ \t]+secrets[ \t]+(?:create|versions[ \t]+add)[ \t][^\n;&|]*<<<[ \t]*(` + toolValue + `)` +
	`)`)

// ssmRe is aws ssm put-parameter's value: a secret when the line says
// SecureString or names a password, secret, token or key.
var ssmRe = regexp.MustCompile(toolStart + `aws[ \t]+ssm[ \t]+put-parameter[ \t]` + args + `--value[ \t=]+(` + toolValue + `)`)

// secretStoreAnchors are the command names.
var secretStoreAnchors = []string{"put-parameter", "keyvault", "gh secret", "docker secret", "vercel env", "gcloud secrets"}

// findSecretStores finds secretStoreRe's values on the line s.
func findSecretStores(s string, hits []hit) []hit {
	n := len(hits)
	hits = groupValues(s, hits, secretStoreRe)
	if l := asciiLower(s); strings.Contains(l, "put-parameter") && (strings.Contains(l, "securestring") ||
		strings.Contains(l, "password") || strings.Contains(l, "secret") || strings.Contains(l, "token") || strings.Contains(l, "key")) {
		hits = groupValues(s, hits, ssmRe)
		sortHits(hits[n:])
	}
	for i := n; i < len(hits); i++ {
		hits[i].kind = kindSecret
	}
	return hits
}
