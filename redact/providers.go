package redact

import (
	"regexp"
	"strings"
)

// More providers' key shapes, bare forms of credential files and prose
// about keys and tokens (ux F10).

// providerRules are fixed-shape keys of LLM and developer services, each a
// documented, distinctive prefix.
func providerRules() []rule {
	return []rule{
		tok("openrouter-key", []string{"sk-or-"}, `sk-or-v1-[0-9a-f]{64}\b`),
		tok("groq-key", []string{"gsk_"}, `gsk_[A-Za-z0-9]{48,}\b`),
		tok("xai-key", []string{"xai-"}, `xai-[A-Za-z0-9]{70,}\b`),
		tok("perplexity-key", []string{"pplx-"}, `pplx-[A-Za-z0-9]{40,}\b`),
		tok("replicate-token", []string{"r8_"}, `r8_[A-Za-z0-9]{32,}\b`),
		tok("docker-hub-token", []string{"dckr_pat_", "dckr_oat_"}, `dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}`),
		tok("grafana-token", []string{"glsa_", "glc_"}, `glsa_[A-Za-z0-9]{32,40}_[A-Fa-f0-9]{8}\b|glc_[A-Za-z0-9+/]{32,}={0,2}`),
		tok("tailscale-key", []string{"tskey-"}, `tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}`),
		tok("notion-token", []string{"ntn_"}, `ntn_[A-Za-z0-9]{40,}\b`),
		tok("linear-key", []string{"lin_api_", "lin_oauth_"}, `lin_(?:api|oauth)_[A-Za-z0-9]{40,}\b`),
		tok("sentry-token", []string{"sntrys_", "sntryu_"}, `sntrys_eyJ[A-Za-z0-9+/=_-]{30,}|sntryu_[a-f0-9]{64}\b`),
		tok("atlassian-token", []string{"ATATT3", "ATCTT3"}, `AT[AC]TT3[A-Za-z0-9_=-]{50,}`),
		// ux U2. Pinecone's API keys start pcsk_, then a short key id, '_'
		// and the secret.
		tok("pinecone-key", []string{"pcsk_"}, `pcsk_[A-Za-z0-9]{4,12}_[A-Za-z0-9]{40,90}\b`),
		// LangSmith's personal access tokens (lsv2_pt_) and service keys
		// (lsv2_sk_): 32 hex digits, '_' and 10 more.
		tok("langsmith-key", []string{"sv2_"}, `lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}\b`),
		// PlanetScale's service tokens, OAuth tokens and database passwords
		// carry pscale_tkn_, pscale_oauth_ and pscale_pw_.
		tok("planetscale-token", []string{"pscale_"}, `pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{31,63}[A-Za-z0-9=]`),
		// Figma's personal access tokens start figd_.
		tok("figma-token", []string{"figd_"}, `figd_[A-Za-z0-9_-]{40,}`),
		// Postman's API keys: PMAK-, 24 hex digits, '-', 34 more.
		tok("postman-key", []string{"PMAK-"}, `PMAK-[0-9a-f]{24}-[0-9a-f]{34}\b`),
		// Pulumi Cloud's access tokens: pul- and 40 hex digits.
		tok("pulumi-token", []string{"pul-"}, `pul-[0-9a-f]{40}\b`),
		// New Relic's user keys start NRAK- (27 capitals and digits after
		// it); its Insights insert keys NRII-.
		tok("newrelic-key", []string{"NRAK-", "NRII-"}, `NRAK-[A-Z0-9]{27}\b|NRII-[A-Za-z0-9_-]{32}\b`),
		// HCP Terraform (Terraform Cloud) API tokens: a 14-character id,
		// .atlasv1. and the secret.
		tok("terraform-token", []string{".atlasv1."}, `[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}`),
		// Fly.io's older personal tokens start fo1_; the macaroon tokens that
		// fly tokens create prints follow "FlyV1 " (fm1_, fm2_, ...).
		tok("flyio-token", []string{"fo1_"}, `fo1_[A-Za-z0-9_-]{40,}`),
		reRule("flyio-token", []string{"FlyV1 "}, false, `FlyV1 (fm[12][a-z]?_[A-Za-z0-9+/=_-]{40,})`, 1, shapeOK),
		// 1Password service account tokens are ops_ and a base64 JSON
		// document ({" encodes as eyJ).
		tok("onepassword-token", []string{"ops_eyJ"}, `ops_eyJ[A-Za-z0-9+/_-]{40,}={0,3}`),
	}
}

// moreProviderRules are further services' tokens with a prefix of their
// own (ux's U2 addendum), each as its provider documents the token's start.
// Their prefixes are short (fw_, re_, sl.), so a token must not follow a
// byte of base64 or base64url either (strictTok): "sha256=qaN-fw_..." is
// a digest.
func moreProviderRules() []rule {
	return []rule{
		strictTok("mapbox-token", []string{"sk.eyJ"}, `sk\.eyJ[A-Za-z0-9._-]{40,}`), // secret tokens; pk. ones are public
		strictTok("square-token", []string{"sq0atp-", "sq0csp-"}, `sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}`),
		strictTok("dropbox-token", []string{"sl."}, `sl\.(?:u\.)?[A-Za-z0-9_-]{130,}`),
		strictTok("heroku-key", []string{"HRKU-"}, `HRKU-[A-Za-z0-9_-]{50,}`),
		strictTok("netlify-token", []string{"nfp_"}, `nfp_[A-Za-z0-9]{36,}`),
		strictTok("render-key", []string{"rnd_"}, `rnd_[A-Za-z0-9]{32,}\b`),
		strictTok("buildkite-token", []string{"bkua_"}, `bkua_[0-9a-f]{40}\b`),
		strictTok("bitbucket-token", []string{"ATBB"}, `ATBB[A-Za-z0-9_=.-]{32,}`),
		strictTok("contentful-token", []string{"CFPAT-"}, `CFPAT-[A-Za-z0-9_-]{43,}`),
		strictTok("supabase-token", []string{"sbp_", "sb_secret_"}, `sbp_[0-9a-f]{40}\b|sb_secret_[A-Za-z0-9_-]{20,}`),
		strictTok("circleci-token", []string{"CCIPAT_"}, `CCIPAT_[A-Za-z0-9_]{40,}`),
		strictTok("google-oauth-token", []string{"1//0"}, `1//0[A-Za-z0-9_-]{40,}`), // a refresh token
		strictTok("facebook-token", []string{"EAA"}, `EAA[A-Za-z0-9]{100,}`),
		strictTok("shippo-token", []string{"shippo_"}, `shippo_(?:live|test)_[0-9a-f]{40}\b`),
		strictTok("easypost-key", []string{"EZAK", "EZTK"}, `EZ[AT]K[A-Za-z0-9]{54}\b`),
		strictTok("clickup-token", []string{"pk_"}, `pk_[0-9]{4,}_[A-Z0-9]{32}\b`),
		strictTok("typeform-token", []string{"tfp_"}, `tfp_[A-Za-z0-9_-]{40,}`),
		strictTok("deno-token", []string{"ddp_", "ddw_"}, `dd[pw]_[A-Za-z0-9]{36}\b`),
		strictTok("firecrawl-key", []string{"fc-"}, `fc-[0-9a-f]{32}\b`),
		strictTok("tavily-key", []string{"tvly-"}, `tvly-(?:dev-|prod-)?[A-Za-z0-9]{30,}\b`),
		strictTok("fireworks-key", []string{"fw_"}, `fw_[A-Za-z0-9]{20,}\b`),
		strictTok("resend-key", []string{"re_"}, `re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}\b`),
		strictTok("neon-key", []string{"napi_"}, `napi_[A-Za-z0-9]{60,}\b`),
		strictTok("e2b-key", []string{"e2b_"}, `e2b_[0-9a-f]{40}\b`),
		strictTok("browserbase-key", []string{"bb_live_"}, `bb_live_[A-Za-z0-9_-]{24,}`),
		strictTok("mongodb-atlas-key", []string{"mdb_sa_sk_"}, `mdb_sa_sk_[A-Za-z0-9_-]{32,}`),
	}
}

// findAWSPairs finds an AWS secret access key given beside its access key
// id, which an earlier rule has replaced (ux U3): "ID / SECRET",
// "ID:SECRET", "ID,SECRET" (the console's credentials CSV) or the secret
// on the next line. The 40 characters must mix capitals, small letters
// and digits, as a random key does (a 40-hex git SHA does not).
var awsPairRe = regexp.MustCompile(`\[REDACTED:aws-access-key-id\]\\*["'` + "`" + `]?` +
	`(?:[ \t]*[/:,;|][ \t]*|[ \t]+|[ \t]*\r?\n[ \t]*)\\*["'` + "`" + `]?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`)

func awsPairOK(_, v string) bool {
	var lower, upper, digit bool
	for i := 0; i < len(v); i++ {
		lower = lower || isLower(v[i])
		upper = upper || isUpper(v[i])
		digit = digit || isDigit(v[i])
	}
	return lower && upper && digit && shapeOK("", v)
}

// findNetrc finds .netrc passwords (netrcRe) on lines naming a machine or
// starting with blanks and "password". The value stops at a quote, comma,
// ';' or ')' (valueStop): in code, "machine h login u password required",
// is the word required inside a string (ux F26).
func findNetrc(s string, hits []hit) []hit {
	if t := strings.TrimLeft(s, " \t"); !strings.Contains(s, "machine") && (len(t) == len(s) || !strings.HasPrefix(t, "password")) {
		return hits
	}
	for _, m := range netrcRe.FindAllStringSubmatchIndex(s, -1) {
		b := m[2] + valueStop(s[m[2]:m[3]])
		if v := s[m[2]:b]; proseSecret(v) {
			hits = append(hits, hit{m[2], b, kindPassword})
		}
	}
	return hits
}

// netrcRe is a .netrc password: "machine host login user password <v>" on
// one line, or "password <v>" alone on an indented line of a machine entry.
var netrcRe = regexp.MustCompile(`(?m)(?:\bmachine[ \t]+\S+(?:[ \t]+login[ \t]+\S+)?[ \t]+|^[ \t]+)password[ \t]+(\S+)[ \t]*(?:$|[ \t]+(?:machine|login|account|default)\b)`)

// pgpassRe is a .pgpass line: host:port:database:user:password.
var pgpassRe = regexp.MustCompile(`(?m)^[A-Za-z0-9.*_\[\]-]+:(?:[0-9]{2,5}|\*):[^:\s]+:[^:\s]+:(\S+)[ \t]*\r?$`)

func pgpassOK(_, v string) bool { return proseSecret(strings.ReplaceAll(v, `\:`, "")) }

// proseTokenWords are the words findProseTokens starts from.
var proseTokenWords = []string{"api key", "api_key", "apikey", "token", "secret key", "access key", "secret"}

// findProseTokens finds a key or token given in a sentence: "my API key is
// <v>", "the token was <v>", "token: <v> for staging". Stricter than the
// password prose rule: the value must be twelve or more characters, shaped
// like a credential (letters with digits or mixed case) and not words and
// numbers alone.
func findProseTokens(s string, hits []hit) []hit {
	if !strings.Contains(s, " is ") && !strings.Contains(s, " was ") && !strings.Contains(s, " is: ") {
		return hits // only a verb makes it prose; key: value is the assignments' rule
	}
	n := len(hits)
	lower := asciiLower(s)
	for _, w := range proseTokenWords {
		for i := 0; ; {
			j := strings.Index(lower[i:], w)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(w)
			if at > 0 && (isNameByte(lower[at-1]) && !afterCSI(s, at) || lower[at-1] == '$') ||
				i < len(lower) && isNameByte(lower[i]) {
				continue // tokenizer, api_key_id, $token, secret_key_base
			}
			k, ok := afterPasswordWord(lower, i)
			if !ok || k > 0 && strings.IndexByte(":=", lower[skipBlanks(lower, i)]) >= 0 {
				continue
			}
			if a, b, ok := proseValue(s, k); ok && b-a >= 12 && credentialShaped(s[a:b]) && proseSecret(s[a:b]) {
				hits = append(hits, hit{a, b, kindSecret})
			}
		}
	}
	sortHits(hits[n:])
	return hits
}

// strictTok is tok whose token must start the text or follow a byte that
// is neither a letter, a digit nor one of "_-.+/=".
func strictTok(kind string, anchors []string, pattern string) rule {
	r := tok(kind, anchors, pattern)
	find := r.find
	r.find = func(s string, hits []hit) []hit {
		n := len(hits)
		hits = find(s, hits)
		kept := hits[:n]
		for _, h := range hits[n:] {
			if h.start == 0 || strings.IndexByte("_-.+/=", s[h.start-1]) < 0 {
				kept = append(kept, h)
			}
		}
		return kept
	}
	return r
}
