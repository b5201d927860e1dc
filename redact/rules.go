package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
	"sync"
)

// allKinds is every kind a rule can report; Kinds returns it sorted.
var allKinds = []string{
	kindGCP, kindPrivateKey,
	"openai-key", "anthropic-key", "google-api-key", "google-oauth-token",
	"aws-access-key-id", "aws-secret-access-key", "azure-storage-key",
	"github-token", "gitlab-token", "slack-token", "slack-webhook",
	"discord-webhook", "discord-bot-token", "telegram-bot-token",
	"stripe-key", "sendgrid-key", "twilio-api-key", "twilio-auth-token",
	"npm-token", "pypi-token", "huggingface-token",
	"vault-token", "doppler-token", "digitalocean-token", "shopify-token",
	"databricks-token", "age-secret-key",
	"jwt", "bearer-token", "basic-auth",
	kindURLPassword, kindDatabasePassword,
	kindPassword, kindSecret, kindHighEntropy, KindCommandOutput,
	"openrouter-key", "groq-key", "xai-key", "perplexity-key", "replicate-token",
	"docker-hub-token", "grafana-token", "tailscale-key", "notion-token", "linear-key", "sentry-token", "atlassian-token",
	"pinecone-key", "langsmith-key", "planetscale-token", "figma-token", "postman-key", "pulumi-token",
	"newrelic-key", "terraform-token", "flyio-token", "onepassword-token",
	kindSeedPhrase, kindPasswordHash,
	"mapbox-token", "square-token", "dropbox-token", "heroku-key", "netlify-token", "render-key",
	"buildkite-token", "bitbucket-token", "contentful-token", "supabase-token", "circleci-token",
	"facebook-token", "shippo-token", "easypost-key", "clickup-token",
	"typeform-token", "deno-token", "firecrawl-key", "tavily-key", "fireworks-key", "resend-key",
	"neon-key", "e2b-key", "browserbase-key", "mongodb-atlas-key",
}

const (
	kindGCP              = "gcp-service-account"
	kindPrivateKey       = "private-key"
	kindURLPassword      = "url-password"
	kindDatabasePassword = "database-password"
	kindPassword         = "password"
	kindSecret           = "secret"
	kindHighEntropy      = "high-entropy-secret"
)

// rules run in order: specific shapes first, so a key assigned to a
// variable is reported as its own kind and the assignment rules that run
// last see a placeholder.
// rules are compiled on first use, so programs that link this package but
// never redact (a one-shot search) do not pay for compiling the patterns.
var (
	rulesOnce                   sync.Once
	rules                       []rule
	anchorsExact, anchorsFolded *anchorSet // anchors.go
)

func loadRules() []rule {
	rulesOnce.Do(func() {
		rules = buildRules()
		anchorsExact, anchorsFolded = indexAnchors(rules)
	})
	return rules
}

// buildRules lists the rules. A change to what they replace should bump
// redactVersion in engine/prepare.go, so that files corpora indexed under
// the old rules are read and redacted again at the next sync.
func buildRules() []rule {
	return append(append(providerRules(), moreProviderRules()...), []rule{
		// A service-account JSON key: the private_key string value, escaped
		// newlines included (also inside a JSON string, with escaped quotes).
		reRule(kindGCP, []string{"private_key"}, false,
			`\\*"private_key\\*"[ \t]*:[ \t]*\\*"(-----BEGIN[^"]*?-----END [A-Z0-9 ]*PRIVATE KEY-----(?:\\+n)*)`, 1, nil),
		{
			anchors: []string{"PRIVATE KEY"},
			whole:   true,
			find: reFind(kindPrivateKey, regexp.MustCompile(
				`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`+
					`(?:(?s:.*?)-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`+
					`|(?:(?:\r?\n|\\r\\n|\\n)[A-Za-z0-9+/=]{8,})*)`), 0, nil),
		},

		gluedTok("anthropic-key", []string{"sk-ant-"}, `sk-ant-[A-Za-z0-9_-]{20,}`, mixedBody),
		tok("openai-key", []string{"sk-"},
			`sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9]{32,}\b`),
		gluedTok("google-api-key", []string{"AIza"}, `AIza[0-9A-Za-z_-]{35}`, mixedBody),
		tok("google-oauth-token", []string{"ya29.", "GOCSPX-"}, `ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{28}`),
		gluedTok("aws-access-key-id", []string{"AKIA", "ASIA", "ABIA", "ACCA"}, `(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`, upperBody),
		gluedTok("github-token", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, `gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}`, mixedBody),
		gluedTok("gitlab-token", []string{"glpat-", "gldt-", "glptt-", "glrt-", "glsoat-", "glffct-", "glcbt-", "gloas-", "glimt-", "glagent-"}, `gl(?:pat|dt|ptt|rt|soat|ffct|cbt|oas|imt|agent)-[A-Za-z0-9_-]{20,}`, mixedBody),
		gluedTok("slack-token", []string{"xox", "xapp-"}, `xox[abposre]-[0-9A-Za-z-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,}`, mixedBody),
		tok("slack-webhook", []string{"hooks.slack.com"}, `https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}`),
		tok("discord-webhook", []string{"/api/webhooks/"}, `https://(?:(?:canary|ptb)\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{20,}`),
		tok("stripe-key", []string{"_live_", "_test_", "whsec_"}, `(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|pk_live_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}`),
		tok("sendgrid-key", []string{"SG."}, `SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}`),
		tok("twilio-api-key", []string{"SK"}, `SK[0-9a-fA-F]{32}\b`),
		tok("npm-token", []string{"npm_"}, `npm_[A-Za-z0-9]{36}\b`),
		reRule("npm-token", []string{"_authtoken"}, true, `:_authToken=([^\s"'\\]+)`, 1, plainValueOK),
		tok("pypi-token", []string{"pypi-"}, `pypi-AgE[A-Za-z0-9_-]{50,}`),
		tok("huggingface-token", []string{"hf_"}, `hf_[A-Za-z0-9]{34,}\b`),
		tok("vault-token", []string{"hvs.", "hvb.", "hvr."}, `hv[sbr]\.[A-Za-z0-9_-]{24,}`),
		tok("doppler-token", []string{"dp."}, `dp\.(?:st|sa|ct|pt|scim|audit)\.[A-Za-z0-9_.-]{40,}`),
		tok("digitalocean-token", []string{"_v1_"}, `do[opr]_v1_[a-f0-9]{64}\b`),
		tok("shopify-token", []string{"shp"}, `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`),
		tok("databricks-token", []string{"dapi"}, `dapi[a-f0-9]{32}(?:-[0-9])?\b`),
		tok("age-secret-key", []string{"AGE-SECRET-KEY-1"}, `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`),
		reRule("telegram-bot-token", []string{":AA"}, false, `(?:^|[^0-9])([0-9]{8,10}:AA[A-Za-z0-9_-]{33})`, 1, shapeOK),
		{
			// Discord bot tokens have no fixed prefix; look only on lines that
			// mention Discord or run a bot.
			anchors: []string{"discord", ".run("},
			fold:    true,
			find: reFind("discord-bot-token", regexp.MustCompile(
				boundary+`([MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})\b`), 1, shapeOK),
		},
		tok("jwt", []string{"eyJ"}, `eyJ[A-Za-z0-9_-]{10,}\.(?:eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*|[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})`),

		reRule("aws-secret-access-key", []string{"secret"}, true,
			`(?i)(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)\\*["']?(?:[ \t]*[:=][ \t]*|[ \t]+)\\*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`, 1, shapeOK),
		{anchors: []string{"[REDACTED:aws-access-key-id]"}, whole: true,
			find: reFind("aws-secret-access-key", awsPairRe, 1, awsPairOK)}, // providers.go: ID / SECRET
		reRule("azure-storage-key", []string{"sig="}, true, `[?&]sig=([A-Za-z0-9%+/=]{20,})`, 1, tokenOK),          // a SAS URL's signature
		{anchors: []string{"password"}, find: findNetrc},                                                           // .netrc
		reRule(kindPassword, []string{":5432:", ":*:", ":6432:", ":5433:"}, false, pgpassRe.String(), 1, pgpassOK), // .pgpass
		reRule("azure-storage-key", []string{"accountkey=", "sharedaccesskey="}, true,
			`(?i)(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,}={0,2})`, 1, tokenOK),
		reRule("twilio-auth-token", []string{"twilio"}, true,
			`(?i)twilio\w*token\\*["']?[ \t]*[:=][ \t]*\\*["']?([0-9a-f]{32})\b`, 1, nil),
		reRule("twilio-auth-token", []string{"AC"}, false,
			`\bAC[0-9a-fA-F]{32}\\*["']?[ \t]*[,:][ \t]*\\*["']?([0-9a-fA-F]{32})\b`, 1, nil),

		reRule("bearer-token", []string{"bearer"}, true,
			`(?i)\bbearer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)`, 1, bearerOK),
		reRule("bearer-token", []string{"authorization"}, true,
			`(?i)\bauthorization\\*["']?[ \t]*[:=][ \t]*\\*["']?token[ \t]+([A-Za-z0-9._~+/-]{16,}=*)`, 1, bearerOK),
		reRule("basic-auth", []string{"basic"}, true,
			`(?i)\bbasic[ \t]+([A-Za-z0-9+/]{8,}={0,2})`, 1, basicOK),
		reRule("basic-auth", []string{"-u", "--user"}, false,
			`(?:^|\s)(?:-u|--user)[ \t]+["']?[^\s:"']*:([^\s"']+)`, 1, curlUserOK),

		{anchors: []string{"://"}, find: findURLPasswords},
		reRule(kindDatabasePassword, []string{"password", "pwd"}, true,
			`(?i)(?:^|[;"'\s])(?:password|pwd)[ \t]*=[ \t]*([^;"'\s](?:[^;"'\r\n]*[^;"'\s])?)`, 1, adoOK),

		{anchors: cmdAnchors, find: findCommandPasswords},                        // commands.go: mysql -p<value>
		{anchors: toolAnchors, find: findToolPasswords},                          // tools.go: zip -P <value>, ...
		{anchors: sqlAnchors, fold: true, find: findSQLPasswords},                // tools.go: ALTER USER ... PASSWORD '<value>'
		{anchors: secretStoreAnchors, find: findSecretStores},                    // namevalue.go: gh secret set X --body <value>
		{anchors: []string{"value", "Value"}, whole: true, find: findNameValues}, // namevalue.go: - name: DB_PASSWORD / value: <v>
		{anchors: []string{"cookie", " -b "}, fold: true, find: findCookies},
		{anchors: []string{"$ ", "% "}, whole: true, find: findPromptOutputs}, // fetch.go: $ op read ...
		{anchors: keyLineEnds, whole: true, find: findNextLinePasswords},      // commands.go
		{anchors: []string{"| ", " |"}, whole: true, find: findTableSecrets},  // table.go
		{anchors: []string{"Private-Lines:"}, whole: true, find: findPuttyKeys},
		{anchors: []string{"</", "value="}, fold: true, find: findXML}, // xml.go
		{anchors: []string{"%3d", "%3a%2f%2f"}, fold: true, find: findEncoded},
		{anchors: seedAnchors, fold: true, find: findSeedPhrases},                              // seed.go
		reRule(kindPasswordHash, []string{":$", ":{SHA}"}, false, hashLineRe.String(), 1, nil), // hash.go: htpasswd, shadow
		{anchors: []string{"PIN"}, find: findPINs},
		{anchors: []string{"wifi", "wi-fi", "wlan"}, fold: true, find: findWifi},
		{anchors: assignAnchors, fold: true, find: findAssignments},
		{anchors: proseAnchors, fold: true, find: findProse},          // prose.go: "the password is hunter2"
		{anchors: foreignAnchors, fold: true, find: findForeignProse}, // prose.go: "das Passwort ist ..."
		{anchors: proseTokenWords, fold: true, find: findProseTokens}, // providers.go: "my API key is ..."
	}...)
}

// boundary is what may precede a token: the start, a non-word byte, or a
// JSON escape such as \n.
const boundary = `(?:^|\\[nrt]|[^A-Za-z0-9_])`

// tok is a rule for a token with a recognizable shape. The token must
// start at a boundary (tokenStart): the start, a non-word byte, a JSON
// escape such as \n, or the end of a terminal colour code.
func tok(kind string, anchors []string, pattern string) rule {
	return gluedTok(kind, anchors, pattern, nil)
}

// gluedTok is tok for a prefix distinctive enough (ghp_, sk-ant-, AKIA,
// ...) to be looked for glued to a word as well, as in "tokenghp_..." or
// output whose escape bytes were dropped: there the token must also look
// random (glued reports whether it does), so an identifier that happens to
// hold the prefix stays.
func gluedTok(kind string, anchors []string, pattern string, glued func(v string) bool) rule {
	re := regexp.MustCompile(pattern)
	return rule{anchors: anchors, find: func(s string, hits []hit) []hit {
		for _, m := range re.FindAllStringIndex(s, -1) {
			a, b := m[0], m[1]
			v := s[a:b]
			if !shapeOK(s, v) || !tokenStart(s, a) && (glued == nil || !glued(v)) {
				continue
			}
			hits = append(hits, hit{a, b, kind})
		}
		return hits
	}}
}

// tokenStart reports whether a token may start at s[a]: at the start, after
// a byte that is not a letter, digit or '_', after a JSON escape (\n, \r,
// \t), or right after an ANSI CSI sequence (afterCSI).
func tokenStart(s string, a int) bool {
	if a == 0 {
		return true
	}
	c := s[a-1]
	if !isLower(c) && !isUpper(c) && !isDigit(c) && c != '_' {
		return true
	}
	if a >= 2 && s[a-2] == '\\' && (c == 'n' || c == 'r' || c == 't') {
		return true
	}
	return afterCSI(s, a)
}

// afterCSI reports whether s[:a] ends with an ANSI CSI sequence: ESC '['
// parameter bytes (0x30-0x3f), intermediate bytes (0x20-0x2f) and a final
// byte (0x40-0x7e), as grep --color and most CLIs write before a value
// ("\x1b[01;31m\x1b[K"). The same sequence without its ESC, as text that
// dropped control bytes keeps it ("[01;31m[K"), counts when it is an SGR
// or erase-line code: digits and ';' ended by 'm' or 'K'.
func afterCSI(s string, a int) bool {
	end := a - 1 // the final byte
	if end < 1 || s[end] < 0x40 || s[end] > 0x7e {
		return false
	}
	j := end - 1
	for j >= 0 && end-j <= 32 && s[j] >= 0x20 && s[j] <= 0x3f {
		j--
	}
	if j < 0 || s[j] != '[' {
		return false
	}
	if j > 0 && s[j-1] == 0x1b {
		return true
	}
	if s[end] != 'm' && s[end] != 'K' {
		return false
	}
	for i := j + 1; i < end; i++ {
		if !isDigit(s[i]) && s[i] != ';' {
			return false
		}
	}
	return true
}

// mixedBody reports a token whose letters and digits after its prefix mix
// digits, capitals and small letters, as random base62 keys do (and words,
// identifiers and file names seldom do).
func mixedBody(v string) bool {
	var lower, upper, digit bool
	for i := prefixLen(v); i < len(v); i++ {
		c := v[i]
		lower = lower || isLower(c)
		upper = upper || isUpper(c)
		digit = digit || isDigit(c)
	}
	return lower && upper && digit
}

// upperBody reports an AWS key id whose 16 characters after the prefix
// hold a digit (its alphabet is capitals and digits).
func upperBody(v string) bool {
	return len(v) > 4 && strings.ContainsAny(v[4:], "0123456789")
}

// prefixLen is the length of a token's fixed prefix: up to its first '_'
// or '-' when that comes within the first 12 bytes, else 4 (AIza).
func prefixLen(v string) int {
	if i := strings.LastIndexAny(v[:min(len(v), 12)], "_-"); i >= 0 {
		return i + 1
	}
	return min(len(v), 4)
}

// reRule is a rule whose secret is submatch group of pattern; ok, when
// set, vets the secret given the line it is on.
func reRule(kind string, anchors []string, fold bool, pattern string, group int, ok func(line, v string) bool) rule {
	return rule{anchors: anchors, fold: fold, find: reFind(kind, regexp.MustCompile(pattern), group, ok)}
}

func reFind(kind string, re *regexp.Regexp, group int, ok func(line, v string) bool) func(string, []hit) []hit {
	return func(s string, hits []hit) []hit {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			a, b := m[2*group], m[2*group+1]
			if a < 0 || (ok != nil && !ok(s, s[a:b])) {
				continue
			}
			hits = append(hits, hit{a, b, kind})
		}
		return hits
	}
}

// masks and standInWords mark documentation stand-ins in the shape of a
// token.
var (
	masks        = []string{"xxxxx", "*****", "00000000"}
	standInWords = []string{"example", "your", "redacted", "placeholder"}
)

// tokenOK rejects documentation stand-ins in a value of open-ended shape (a
// bearer token, an Azure key): a mask, or a stand-in word anywhere in it.
func tokenOK(_, v string) bool {
	l := strings.ToLower(v)
	for _, ws := range [][]string{masks, standInWords} {
		for _, w := range ws {
			if strings.Contains(l, w) {
				return false
			}
		}
	}
	return true
}

// shapeOK vets a value that matched a provider's fixed shape (AKIA and 16
// capitals or digits, ghp_ and 36 letters and digits, ...). A mask
// (ghp_xxxx...) is kept, as is a stand-in word standing as a word of its own,
// between the ends, '-', '_' or '.' (sk-proj-your-key-here-...). Letters
// inside the key do not make it a stand-in: AWS's documented sample
// AKIAIOSFODNN7EXAMPLE is redacted, since a user trying the redaction pastes
// that sample and a real random key can hold the same letters.
func shapeOK(_, v string) bool {
	l := strings.ToLower(v)
	for _, w := range masks {
		if strings.Contains(l, w) {
			return false
		}
	}
	for _, w := range standInWords {
		for i := 0; ; i++ {
			j := strings.Index(l[i:], w)
			if j < 0 {
				break
			}
			i += j
			if wordEdge(l, i-1) && wordEdge(l, i+len(w)) {
				return false
			}
		}
	}
	return true
}

// wordEdge reports whether position i of s is outside s or a separator.
func wordEdge(s string, i int) bool {
	return i < 0 || i >= len(s) || strings.IndexByte("-_.", s[i]) >= 0
}

func plainValueOK(_, v string) bool { return !isPlaceholder(v) }

func bearerOK(_, v string) bool {
	return tokenOK("", v) && !isPlaceholder(v) && credentialShaped(v)
}

// basicOK accepts base64 that decodes to printable user:password.
func basicOK(_, v string) bool {
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
	if err != nil || len(raw) < 3 {
		return false
	}
	colon := false
	for _, c := range raw {
		if c < 0x20 || c > 0x7e {
			return false
		}
		colon = colon || c == ':'
	}
	return colon
}

// curlUserOK vets the password of curl -u user:password: not a variable,
// not a uid:gid pair.
func curlUserOK(_, v string) bool {
	return !isPlaceholder(v) && strings.Trim(v, "0123456789") != ""
}

// adoOK accepts Password= in a connection string: the line has another
// connection-string key.
func adoOK(line, v string) bool {
	if isPlaceholder(v) || !strings.Contains(line, ";") {
		return false
	}
	l := strings.ToLower(line)
	for _, k := range []string{"server=", "data source=", "host=", "user id=", "uid=", "database=",
		"initial catalog=", "username=", "user=", "provider=", "dsn=", "port="} {
		if strings.Contains(l, k) {
			return true
		}
	}
	return false
}
