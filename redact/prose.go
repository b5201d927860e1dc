package redact

import "strings"

// proseAnchors are the words findProse starts from (lower case).
var proseAnchors = []string{"password", "passphrase", "passwd", "pwd"}

// findProse finds a password given in a sentence: the value after
// "password is", "passphrase was", "pwd:" and the like, when it is shaped
// like a secret (proseSecret). The assignment rule keeps a bare value after
// a colon unless it is alone on its line; this rule takes such a value in
// the middle of a line too, but only when no plain word or code could be
// meant: "the password is in the vault", "password is required" and
// "Password: cfg.Password," stay. The words are found by hand, not by a
// case-folding regular expression, which cost the clean corpus half again
// its redaction time.
func findProse(s string, hits []hit) []hit {
	n := len(hits)
	lower := asciiLower(s)
	for _, w := range proseAnchors {
		for i := 0; ; {
			j := strings.Index(lower[i:], w)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(w)
			if at > 0 && (isNameByte(lower[at-1]) && !afterCSI(s, at) || lower[at-1] == '$') {
				continue // db_password, $password, cfg.password, --password
			}
			if k, ok := afterPasswordWord(lower, i); ok {
				k = skipCSI(s, k)
				if a, b, ok := proseValue(s, k); ok {
					hits = append(hits, hit{a, b, kindPassword})
				}
			}
		}
	}
	sortHits(hits[n:])
	return hits
}

// afterPasswordWord returns where the value starts after a password word
// ending at i: after blanks and "is" or "was" (a colon may follow), or
// after a colon or an equals sign that does not start := == => or ::.
func afterPasswordWord(lower string, i int) (int, bool) {
	k := skipBlanks(lower, i)
	if k < len(lower) && (lower[k] == ':' || lower[k] == '=') {
		if k+1 < len(lower) && strings.IndexByte(":=>", lower[k+1]) >= 0 {
			return 0, false
		}
		return skipBlanks(lower, k+1), true
	}
	if k == i {
		return 0, false // passwords, password-is-weak
	}
	for _, verb := range []string{"is", "was"} {
		if e := k + len(verb); strings.HasPrefix(lower[k:], verb) && (e == len(lower) || !isNameByte(lower[e]) || lower[e] == '.' || lower[e] == '-') {
			e = skipBlanks(lower, e)
			if e < len(lower) && lower[e] == ':' {
				e++
			}
			return skipBlanks(lower, e), true
		}
	}
	return 0, false
}

// proseValue returns the span of the value starting at s[k] when it is
// a secret: a quoted single token (any shape but a stand-in) or a bare one
// that proseSecret accepts.
func proseValue(s string, k int) (int, int, bool) {
	if k >= len(s) {
		return 0, 0, false
	}
	if q := s[k]; q == '"' || q == '\'' || q == '`' {
		end := strings.IndexByte(s[k+1:], q)
		if end < 0 {
			return 0, 0, false
		}
		a, b := k+1, k+1+end
		v := s[a:b]
		if len(v) < 3 || strings.ContainsAny(v, " \t\r\n") || isPlaceholder(v) || looksLikeLocation(v) || concatenation(v) {
			return 0, 0, false
		}
		return a, b, true
	}
	b := k
	for b < len(s) && !strings.ContainsRune(" \t\r\n\x1b", rune(s[b])) {
		b++
	}
	b = k + valueStop(s[k:b])
	b = trimSGR(s, k, b)
	for b > k && strings.IndexByte(".,;:?)]}\"'`", s[b-1]) >= 0 {
		b--
	}
	return k, b, proseSecret(s[k:b]) && !describes(s[k:b])
}

// describes reports a bare value that says what the secret is like rather
// than being one: lower-case parts joined by '-' whose last is a
// participle of four or more letters ending in "ed", and whose others are
// letters with at most one run of digits inside ("base64url-encoded",
// "base64-encoded", "sha256-signed", "x509-based"; ux F26). A random
// value interleaves its digits ("x9k2mq7z4w-rotated" stays a secret) or
// mixes cases.
func describes(v string) bool {
	i := strings.LastIndexByte(v, '-')
	if i <= 0 {
		return false
	}
	last := v[i+1:]
	if len(last) < 4 || !strings.HasSuffix(last, "ed") || !lowerLetters(last) {
		return false
	}
	for _, part := range strings.Split(v[:i], "-") {
		if !termWithNumber(part) {
			return false
		}
	}
	return true
}

// lowerLetters reports a non-empty run of a to z.
func lowerLetters(p string) bool {
	for i := 0; i < len(p); i++ {
		if !isLower(p[i]) {
			return false
		}
	}
	return p != ""
}

// termWithNumber reports lower-case letters, then at most one run of
// digits and letters again: "base64url", "sha256", "x509", "utf8", "hex".
func termWithNumber(p string) bool {
	i := 0
	for i < len(p) && isLower(p[i]) {
		i++
	}
	if i == 0 {
		return false
	}
	for i < len(p) && isDigit(p[i]) {
		i++
	}
	for i < len(p) && isLower(p[i]) {
		i++
	}
	return i == len(p)
}

// valueStop returns where a bare value v ends: at its first quote, comma,
// ';', ')' or backslash (an escaped quote or line break in a string), as
// the assignments' values end (valueAt), or at its end.
func valueStop(v string) int {
	if i := strings.IndexAny(v, "\"'`,;)\\"); i >= 0 {
		return i
	}
	return len(v)
}

// concatenation reports a quoted "value" that is code joining strings: in
// "The deploy token is "+secretToken+" and", the quotes close and reopen
// string literals around +secretToken+ (ux F26).
func concatenation(v string) bool {
	return len(v) >= 3 && v[0] == '+' && v[len(v)-1] == '+'
}

// proseSecret reports whether a bare value after a password word in prose
// is a secret: six or more characters, not a stand-in, a path or code (a
// call, a field, an index), and not made of words alone. Words are runs of
// letters and numbers joined by '-' or '_': so "required", "NOT_SET",
// "newPassword", "12-character" and "SHA-256" are prose, while hunter2,
// Summer2024!, Tr0ub4dor-q7Z and 123456 are secrets. A word and a number
// joined (hunter-2) read as prose and stay.
func proseSecret(v string) bool {
	if len(v) < 6 || isPlaceholder(v) || looksLikeLocation(v) ||
		strings.ContainsAny(v, "()[]{}") || dottedIdentRe().MatchString(v) || strings.IndexByte("=:>-<", v[0]) >= 0 {
		return false
	}
	if strings.Trim(v, "0123456789") == "" {
		return true // a PIN-like number
	}
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' }) {
		if !plainWord(part) && strings.Trim(part, "0123456789") != "" {
			return true
		}
	}
	return false
}

// plainWord reports letters only: a word of prose or an identifier
// (newPassword), whatever its case.
func plainWord(p string) bool {
	for i := 0; i < len(p); i++ {
		if !isLower(p[i]) && !isUpper(p[i]) {
			return false
		}
	}
	return p != ""
}
