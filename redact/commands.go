package redact

import (
	"regexp"
	"strings"
	"sync"
)

// Passwords given to commands as short flags, and session cookies (ux F4).

// cmdValue is a flag's value: single or double quoted, or bare up to a
// blank, a quote or a shell operator.
const cmdValue = `'[^'\n]*'|"[^"\n]*"|[^\s"'` + "`" + `;&|]+`

// cmdPasswordRe finds the password of
//   - mysql and its tools (mysqldump, mariadb, ...): -p<value>, glued as
//     mysql wants it (a "-p value" makes mysql prompt and take value for the
//     database);
//   - sshpass -p <value> or -p<value>, its own flags before it only (ssh -p
//     2222 later on the line is a port);
//   - docker, podman, nerdctl, buildah, skopeo, oras, helm registry: login
//     ... -p <value>.
//
// A command starts the text or follows a blank, a quote, '(' or a shell
// operator; nothing of another command (; & |) lies between it and -p.
var cmdPasswordRe = regexp.MustCompile(`(?:^|[\s;&|(` + "`" + `"'])(?:` +
	`(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlpump|mariadb|mariadb-dump|mariadb-admin)(?:\.exe)?[ \t](?:[^\n;&|]*?[ \t])?-p(` + cmdValue + `)` +
	`|sshpass(?:[ \t]+-[A-Za-z])*[ \t]+-p[ \t]*(` + cmdValue + `)` +
	`|(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]+registry)[ \t](?:[^\n;&|]*?[ \t])?login[ \t](?:[^\n;&|]*?[ \t])?-p[ \t]*(` + cmdValue + `))`)

// cmdAnchors: every form has a -p after a blank. (Anchoring on the
// command names instead, "do" of docker and "he" of helm among them, made
// the anchor pass over ordinary text a tenth slower.)
var cmdAnchors = []string{" -p", "\t-p"}

func findCommandPasswords(s string, hits []hit) []hit {
	for _, m := range cmdPasswordRe.FindAllStringSubmatchIndex(s, -1) {
		for g := 1; g <= 3; g++ {
			a, b := m[2*g], m[2*g+1]
			if a < 0 {
				continue
			}
			if b-a >= 2 && (s[a] == '\'' || s[a] == '"') {
				a, b = a+1, b-1
			}
			// prose ends a sentence after a stand-in: "-p<value>, glued"
			// one letter is a stand-in in prose: "mysql -pV", "sshpass -p V"
			if v := s[a:b]; len(v) > 1 && v[0] != '-' && !isPlaceholder(v) && !isPlaceholder(strings.TrimRight(v, ",.:)")) {
				hits = append(hits, hit{a, b, kindPassword})
			}
			break
		}
	}
	return hits
}

// findCookies finds the values of session cookies in a Cookie or
// Set-Cookie header (Cookie: a=1; session=<value>) and in curl's --cookie
// and -b: a cookie whose name says session (sid, PHPSESSID, connect.sid,
// _app_session, session-token) or a secret (auth_token, jwt) with a
// credential-shaped value (8 or more characters mixing letters and digits
// or cases). Other cookies (theme=dark, _ga) are kept.
func findCookies(s string, hits []hit) []hit {
	lower := asciiLower(s)
	n := len(hits)
	for i := 0; ; {
		j := strings.Index(lower[i:], "cookie")
		if j < 0 {
			break
		}
		i += j + len("cookie")
		k := i
		for k < len(s) && (s[k] == '\\' || s[k] == '"' || s[k] == '\'') {
			k++ // "Cookie": "...", 'Cookie': ...
		}
		k = skipBlanks(s, k)
		switch {
		case k < len(s) && (s[k] == ':' || s[k] == '='):
			hits = cookiePairs(s, k+1, hits) // Cookie: ..., Set-Cookie: ..., --cookie=..., cookie = "..."
		case k > i && i >= 8 && lower[i-8:i] == "--cookie":
			hits = cookiePairs(s, k, hits) // --cookie '...'
		}
	}
	for i := 0; ; {
		j := strings.Index(s[i:], " -b ")
		if j < 0 {
			break
		}
		i += j + len(" -b ")
		hits = cookiePairs(s, i, hits) // curl -b '...'
	}
	sortHits(hits[n:])
	return hits
}

// cookiePairs parses name=value pairs separated by ';' from s[i:], after
// blanks and an opening quote, up to a closing quote or the end of the
// line.
func cookiePairs(s string, i int, hits []hit) []hit {
	i = skipBlanks(s, i)
	for i < len(s) && s[i] == '\\' {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	for i < len(s) {
		i = skipBlanks(s, i)
		ns := i
		for i < len(s) && s[i] != '=' && s[i] != ';' && !strings.ContainsRune(" \t\r\n\"'\\", rune(s[i])) {
			i++
		}
		if i >= len(s) || s[i] != '=' || i == ns {
			return hits
		}
		name := s[ns:i]
		i++
		a := i
		for i < len(s) && !strings.ContainsRune("; \t\r\n\"'\\,", rune(s[i])) {
			i++
		}
		if v := s[a:i]; sessionCookie(name) && credentialShaped(v) && !isPlaceholder(v) {
			hits = append(hits, hit{a, i, kindSecret})
		}
		if i >= len(s) || s[i] != ';' {
			return hits
		}
		i++
	}
	return hits
}

// sessionCookie reports a cookie name that says it holds a session or a
// secret.
func sessionCookie(name string) bool {
	l := strings.ToLower(name)
	l = strings.TrimPrefix(strings.TrimPrefix(l, "__host-"), "__secure-")
	if strings.Contains(l, "sess") || l == "sid" || strings.HasSuffix(l, ".sid") ||
		strings.HasSuffix(l, "_sid") || strings.HasSuffix(l, "-sid") || l == "jwt" {
		return true
	}
	f := nameFamily(l)
	return f == famSecret || f == famPassword
}

// keyLineRe is a password-named key alone on its line, ended by a colon
// (and a YAML block scalar indicator): "  password:", "\"db_password\":",
// "- passphrase: |".
var keyLineRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^[ \t]*(?:-[ \t]+)?["']?[A-Za-z0-9_.-]*(?:password|passwd|passphrase|pwd)["']?[ \t]*:[ \t]*(?:[|>][-+]?[ \t]*)?\r?$`)
})

// valueLineRe is a value alone on an indented line, quoted or bare, with
// a JSON comma.
var valueLineRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[ \t]+["']?([^\s"']+)["']?,?[ \t]*\r?$`)
})

// keyLineEnds are the ends of the lines keyLineRe can match, the anchors
// of findNextLinePasswords.
var keyLineEnds = []string{":\n", ":\r\n", ": \n", "|\n", ">\n", "|-\n", ">-\n", "|+\n", ">+\n"}

// findNextLinePasswords finds a password given on the line after its key:
// YAML's "password:\n  value", a block scalar "password: |\n  value",
// pretty JSON's "password":\n    "value". It looks only at the lines that
// end like a key (keyLineEnds) and name a password word; the value is
// vetted as a bare YAML value (classify).
func findNextLinePasswords(s string, hits []hit) []hit {
	n := len(hits)
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			break
		}
		le := i + j // the key line's newline
		ls := i     // the key line's start
		i = le + 1
		if le == ls || strings.IndexByte(":|>-+ \r", s[le-1]) < 0 ||
			!hasFold(s[ls:le], "pass") && !hasFold(s[ls:le], "pwd") || !keyLineRe().MatchString(s[ls:le]) {
			continue
		}
		ve := strings.IndexByte(s[i:], '\n')
		if ve < 0 {
			ve = len(s)
		} else {
			ve += i
		}
		m := valueLineRe().FindStringSubmatchIndex(s[i:ve])
		if m == nil {
			continue
		}
		if a, b := i+m[2], i+m[3]; classify("password", s[a:b], true) != "" {
			hits = append(hits, hit{a, b, kindPassword})
		}
	}
	sortHits(hits[n:])
	return hits
}

// hasFold reports whether s holds the lower-case ASCII word w in any case.
func hasFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) && (s[i+j] == w[j] || s[i+j]+'a'-'A' == w[j]) {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}
