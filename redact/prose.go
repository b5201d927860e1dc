package redact

import "strings"

// proseWord is a word for a password that findProse starts from, in
// lower case, with the verbs that may join it to its value ("is" in its
// language; a colon or '=' always may).
type proseWord struct {
	word  string
	verbs []string
	// compound: the word may end a longer word (Datenbankpasswort,
	// WLAN-Passwort); else it must start one.
	compound bool
	// cjk: the value ends at the first byte that is not ASCII, since the
	// sentence goes on without a blank (密码是abc123，然后).
	cjk bool
}

// englishVerbs join "password" and its kin to the value; "password" is
// also the word in Italian, German or French text ("la password è").
var englishVerbs = []string{"is", "was", "ist", "war", "est", "è", "é", "es", "era"}

// proseWords are the words findProse starts from.
var proseWords = []proseWord{
	{word: "password", verbs: englishVerbs},
	{word: "passphrase", verbs: englishVerbs},
	{word: "passwd", verbs: englishVerbs},
	{word: "pwd", verbs: englishVerbs},
	{word: "passcode", verbs: englishVerbs},
	{word: "pw", verbs: englishVerbs}, // pw: <value>, PW=<value> (ux U17)
}

// foreignWords are "password" in the languages users most often write
// notes in (ux U5), a rule of their own so that the many lines holding an
// English password word are not searched for them all.
var foreignWords = []proseWord{
	{word: "passwort", verbs: []string{"ist", "war", "lautet", "lautete"}, compound: true}, // German
	{word: "kennwort", verbs: []string{"ist", "war", "lautet", "lautete"}, compound: true},
	{word: "mot de passe", verbs: []string{"est", "était"}}, // French
	{word: "contraseña", verbs: []string{"es", "era"}},      // Spanish
	{word: "contrasena", verbs: []string{"es", "era"}},
	{word: "senha", verbs: []string{"é", "era"}},                       // Portuguese
	{word: "wachtwoord", verbs: []string{"is", "was"}, compound: true}, // Dutch
	{word: "hasło", verbs: []string{"to", "jest", "brzmi"}},            // Polish
	{word: "haslo", verbs: []string{"to", "jest", "brzmi"}},
	{word: "heslo", verbs: []string{"je", "bylo"}},                   // Czech, Slovak
	{word: "lösenord", verbs: []string{"är", "var"}, compound: true}, // Swedish
	{word: "losenord", verbs: []string{"är", "var"}, compound: true},
	{word: "passord", verbs: []string{"er", "var"}, compound: true},     // Norwegian
	{word: "adgangskode", verbs: []string{"er", "var"}, compound: true}, // Danish
	{word: "salasana", verbs: []string{"on", "oli"}, compound: true},    // Finnish
	{word: "пароль", verbs: []string{"—"}},                              // Russian
	{word: "Пароль", verbs: []string{"—"}},
	{word: "şifre", verbs: nil},                        // Turkish
	{word: "密码", verbs: []string{"是", "为"}, cjk: true}, // Chinese
	{word: "パスワード", verbs: []string{"は"}, cjk: true},   // Japanese
	{word: "비밀번호", verbs: []string{"는"}, cjk: true},    // Korean
}

// proseAnchors and foreignAnchors are the words, the prose rules' anchors.
var proseAnchors, foreignAnchors = wordsOf(proseWords), wordsOf(foreignWords)

func wordsOf(ws []proseWord) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.word)
	}
	return out
}

// findProse finds a password given in a sentence: the value after
// "password is", "passphrase was", "pwd:", "das Passwort ist" and the
// like, when it is shaped like a secret (proseSecret). The assignment rule
// keeps a bare value after a colon unless it is alone on its line; this
// rule takes such a value in the middle of a line too, but only when no
// plain word or code could be meant: "the password is in the vault",
// "password is required" and "Password: cfg.Password," stay. The words
// are found by hand, not by a case-folding regular expression, which cost
// the clean corpus half again its redaction time.
func findProse(s string, hits []hit) []hit { return findProseWords(s, hits, proseWords) }

// findForeignProse is findProse for foreignWords.
func findForeignProse(s string, hits []hit) []hit { return findProseWords(s, hits, foreignWords) }

func findProseWords(s string, hits []hit, words []proseWord) []hit {
	n := len(hits)
	lower := asciiLower(s)
	for _, pw := range words {
		w := pw.word
		for i := 0; ; {
			j := strings.Index(lower[i:], w)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(w)
			if at > 0 && !wordStartOK(s, lower, at, pw.compound) {
				continue // db_password, $password, cfg.password, --password
			}
			if k, ok := afterWord(lower, i, pw.verbs, pw.cjk); ok {
				k = skipCSI(s, k)
				if a, b, ok := proseValue(s, k); ok && pw.cjk {
					b = a + asciiPrefix(s[a:b])
					for b > a && strings.IndexByte(".,;:?)]}\"'`", s[b-1]) >= 0 {
						b--
					}
					if proseSecret(s[a:b]) {
						hits = append(hits, hit{a, b, kindPassword})
					}
				} else if ok {
					hits = append(hits, hit{a, b, kindPassword})
				}
			}
		}
	}
	sortHits(hits[n:])
	return hits
}

// wordStartOK reports whether a password word may start at lower[at]: not
// inside an identifier or after '$'; a compound word may follow letters
// or '-' (Datenbankpasswort, WLAN-Passwort).
func wordStartOK(s, lower string, at int, compound bool) bool {
	c := lower[at-1]
	if c == '$' {
		return false
	}
	if compound && (isLower(c) || c == '-') {
		return true
	}
	return !isNameByte(c) || afterCSI(s, at)
}

// asciiPrefix returns the length of v's leading ASCII bytes.
func asciiPrefix(v string) int {
	for i := 0; i < len(v); i++ {
		if v[i] >= 0x80 {
			return i
		}
	}
	return len(v)
}

// afterPasswordWord returns where the value starts after a password word
// ending at i: after blanks and "is" or "was" (a colon may follow), or
// after a colon or an equals sign that does not start := == => or ::.
func afterPasswordWord(lower string, i int) (int, bool) {
	return afterWord(lower, i, []string{"is", "was"}, false)
}

// afterWord is afterPasswordWord with the given verbs; a colon may also be
// a full-width one (：). In Chinese, Japanese and Korean (cjk) the verb or
// particle (是, は, 는) follows the word without a blank.
func afterWord(lower string, i int, verbs []string, cjk bool) (int, bool) {
	k := skipBlanks(lower, i)
	if k < len(lower) && (lower[k] == ':' || lower[k] == '=') {
		if k+1 < len(lower) && strings.IndexByte(":=>", lower[k+1]) >= 0 {
			return 0, false
		}
		return skipBlanks(lower, k+1), true
	}
	if strings.HasPrefix(lower[k:], "：") {
		return skipBlanks(lower, k+len("：")), true
	}
	for _, verb := range verbs {
		if k == i && !cjk || !strings.HasPrefix(lower[k:], verb) {
			continue // passwords, password-is-weak
		}
		if e := k + len(verb); cjk || e == len(lower) || !isNameByte(lower[e]) || lower[e] == '.' || lower[e] == '-' {
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
