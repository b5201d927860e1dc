package redact

import (
	"regexp"
	"strings"
	"sync"
)

// A command that fetches a secret prints it bare: "op read op://prod/db/
// password" prints the password alone, which no rule can tell from any
// other word. Only the command says what its output is (ux F22), so
// FetchesSecret judges the command and the caller drops the output.

// KindCommandOutput is the kind of the placeholder that replaces the
// output of a command that fetches a secret (FetchesSecret).
const KindCommandOutput = "command-output"

// fetchRe matches the commands whose output is a secret. A command starts
// the text or follows a blank, a quote, '(', '`', '$(' or a shell operator.
var fetchRe = sync.OnceValue(func() *regexp.Regexp {
	rest := `[^\n;&|]*?` // the rest of the same command
	return regexp.MustCompile(`(?:^|[\s"'(;&|` + "`" + `])(?:` + strings.Join([]string{
		`op\s+(?:read|inject)\b`, // 1Password
		`op\s+item\s+get\b` + rest + `--(?:fields|reveal)\b`,
		`(?:gopass|pass)\s+show\b`,
		`vault\s+(?:kv\s+get|read)\b`,
		`security\s+find-(?:generic|internet)-password\b` + rest + `\s-[wg]\b`,
		`kubectl\s+get\s+secrets?\b` + rest + `(?:\s-o|--output)[ =]?['"]?(?:yaml|json|jsonpath|go-template)`,
		`kubectl\s+get\s+secrets?\b[^\n;&]*\|\s*base64\s+(?:-d|--decode|-D)\b`,
		`kubectl\s+create\s+token\b`,
		`aws\s+configure\s+get\s+\S*(?:secret|token)`,
		`aws\s+(?:secretsmanager\s+get-secret-value|sts\s+get-session-token|sts\s+assume-role|ecr\s+get-login-password|ssm\s+get-parameters?\b` + rest + `--with-decryption)\b`,
		`gcloud\s+(?:auth\s+(?:application-default\s+)?print-(?:access|identity)-token|secrets\s+versions\s+access)\b`,
		`az\s+(?:account\s+get-access-token|keyvault\s+secret\s+show)\b`,
		`heroku\s+auth:token\b`,
		`gh\s+auth\s+token\b`,
		`glab\s+auth\s+token\b`,
		`doppler\s+secrets\s+get\b`,
		`npm\s+token\s+create\b`,
		`git\s+credential\s+fill\b`,
		`(?:sops\s+(?:-d|--decrypt)|ansible-vault\s+(?:view|decrypt)|age\s+(?:-d|--decrypt)|gpg\s+(?:-d|--decrypt))\b`,
		`openssl\s+rand\b`,
	}, "|") + `)`)
})

// readRe finds a command that shows a file or a variable: cat, head, tail
// and the like with their arguments, printenv NAME, echo $NAME.
var readRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s"'(;&|` + "`" + `])(?:(?:sudo\s+)?(cat|head|tail|less|bat|xxd|base64)\s([^\n;&|<>]*)|printenv\s+([A-Za-z_][A-Za-z0-9_]*)|echo\s+["']?\$\{?([A-Za-z_][A-Za-z0-9_]*))`)
})

// fetchWords are words one of which every command fetchRe or readRe
// matches holds: a line without any is not looked at further.
var fetchWords = []string{"op ", "pass", "vault", "security", "kubectl", "aws", "gcloud", "az ", "heroku",
	"gh ", "glab", "doppler", "npm", "git ", "sops", "ansible", "age ", "gpg", "openssl",
	"cat", "head", "tail", "less", "bat", "xxd", "base64", "printenv", "echo"}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

var unescape = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer(`","`, " ", `", "`, " ", `\"`, `"`, `\n`, "\n", `\t`, " ")
})

// pathRe finds the file a file-reading tool call names: {"file_path": "..."}.
var pathRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"(?:file_path|filePath|path|file|filename|absolute_path|target_file)"\s*:\s*"([^"]+)"`)
})

// FetchesSecret reports whether command (a shell command line, or a tool
// call's input holding one, such as {"command":"..."}) prints a secret:
// a secret manager's read (op read, pass show, vault kv get, security
// find-generic-password -w, gcloud auth print-access-token, gh auth token,
// aws configure get ...secret..., kubectl get secret -o yaml or piped to
// base64 -d, sops -d, ...), openssl rand, printenv or echo of a
// secret-named variable (printenv DATABASE_PASSWORD, echo $GITHUB_TOKEN),
// or cat/head/tail of a file named like a secret (token, *secret*,
// *password*, credentials, .netrc, .pgpass, .env, id_rsa, *.pem, *.key),
// and a file-reading tool call whose path is such a file
// ({"file_path": "/app/.env"}).
func FetchesSecret(command string) bool {
	if command == "" {
		return false
	}
	if strings.Contains(command, `":`) || strings.Contains(command, `" :`) {
		for _, m := range pathRe().FindAllStringSubmatch(command, -1) {
			if secretFile(m[1]) {
				return true
			}
		}
	}
	// JSON inputs escape quotes and newlines, and an argv array
	// (["printenv","X"]) is the command line its words make.
	c := unescape().Replace(command)
	if !containsAny(c, fetchWords) {
		return false
	}
	for _, m := range fetchRe().FindAllStringIndex(c, -1) {
		if !substituted(c, m[0]) {
			return true
		}
	}
	for _, m := range readRe().FindAllStringSubmatchIndex(c, -1) {
		if substituted(c, m[0]) {
			continue
		}
		sub := func(g int) string {
			if m[2*g] < 0 {
				return ""
			}
			return c[m[2*g]:m[2*g+1]]
		}
		switch {
		case sub(1) != "":
			for _, arg := range strings.Fields(sub(2)) {
				arg = strings.Trim(arg, "\"'`{}[](),")
				// cat token; head, tail, ... are words too: a path for them
				if (sub(1) == "cat" || strings.ContainsAny(arg, "/.~")) && secretFile(arg) {
					return true
				}
			}
		case sub(3) != "" || sub(4) != "":
			if nameFamily(sub(3)+sub(4)) != famNone {
				return true
			}
		}
	}
	return false
}

// substituted reports a command whose match starts at i in a command
// substitution, $(op read ...) or `...`: its output is not printed but
// passed on (TOKEN=$(gh auth token) gh api ...).
func substituted(c string, i int) bool {
	return i < len(c) && (c[i] == '`' || c[i] == '(' && i > 0 && c[i-1] == '$')
}

// secretFile reports a path whose file name says it holds a secret.
func secretFile(p string) bool {
	if p == "" || p[0] == '-' {
		return false
	}
	base := strings.ToLower(p[strings.LastIndexAny(p, `/\`)+1:])
	switch {
	case base == "passwd" || base == "group" || strings.HasSuffix(base, ".pub"):
		return false // /etc/passwd holds no password; a public key is public
	case base == "token" || strings.HasSuffix(base, ".token") || strings.HasSuffix(base, "_token") ||
		strings.Contains(base, "secret") || strings.Contains(base, "password") ||
		strings.HasPrefix(base, "credentials") || base == ".netrc" || base == "_netrc" || base == ".pgpass" ||
		base == ".htpasswd" || base == ".git-credentials" || base == ".npmrc" || base == ".pypirc":
		return true
	case strings.HasPrefix(base, "id_rsa") || strings.HasPrefix(base, "id_ed25519") ||
		strings.HasPrefix(base, "id_ecdsa") || strings.HasPrefix(base, "id_dsa"):
		return true
	case strings.HasSuffix(base, ".pem") || strings.HasSuffix(base, ".key") || strings.HasSuffix(base, ".p12") ||
		strings.HasSuffix(base, ".pfx") || strings.HasSuffix(base, ".keystore") || strings.HasSuffix(base, ".jks"):
		return true
	case base == ".env" || strings.HasPrefix(base, ".env.") || strings.HasSuffix(base, ".env"):
		for _, w := range []string{"example", "sample", "template", "dist", "defaults"} {
			if strings.Contains(base, w) {
				return false
			}
		}
		return true
	}
	return false
}

// promptOutputs finds, in a pasted terminal session, the output of a
// command that fetches a secret: a line "$ op read op://vault/db/password"
// (a prompt "$ " or "% ", after blanks) and the lines after it up to a
// blank line, at most 20. The output becomes one placeholder; its line
// breaks stay. It also ends before a line that cannot be the output
// (outputEnds): the next prompt, a code fence, a Markdown heading. A note
// that shows the command in a fenced block keeps its closing fence and the
// text after it (ux F26 addendum).
func findPromptOutputs(s string, hits []hit) []hit {
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "$ ")
		if k := strings.Index(s[i:], "% "); k >= 0 && (j < 0 || k < j) {
			j = k
		}
		if j < 0 {
			break
		}
		at := i + j
		ls := strings.LastIndexByte(s[:at], '\n') + 1
		end := strings.IndexByte(s[at:], '\n')
		if end < 0 {
			break
		}
		end += at
		i = end + 1
		if strings.TrimLeft(s[ls:at], " \t") != "" || !FetchesSecret(s[at+2:end]) {
			continue // not a prompt at the start of a line, or not a fetch
		}
		a, b := i, i
		for n := 0; n < 20 && b < len(s); n++ {
			e := strings.IndexByte(s[b:], '\n')
			if e < 0 {
				e = len(s) - b
			}
			if outputEnds(s[b : b+e]) {
				break
			}
			b += e
			if b < len(s) {
				b++ // the line's newline
			}
		}
		for b > a && (s[b-1] == '\n' || s[b-1] == '\r') {
			b--
		}
		if b > a {
			hits = append(hits, hit{a, b, KindCommandOutput})
			i = b
		}
	}
	return hits
}

// outputEnds reports a line that ends a pasted command's output: a blank
// line, a prompt ("$ ", "% ", "> ", "# ", or the prompt alone), a code
// fence (``` or ~~~, any indent) or a Markdown heading ("## Notes"; "# "
// is both a root prompt and a heading).
func outputEnds(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		return true
	}
	switch t[0] {
	case '$', '%', '>':
		return len(t) == 1 || t[1] == ' ' || t[1] == '\t'
	case '#':
		h := strings.TrimLeft(t, "#")
		return len(t)-len(h) <= 6 && (h == "" || h[0] == ' ' || h[0] == '\t')
	}
	return false
}
