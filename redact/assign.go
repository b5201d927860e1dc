package redact

import (
	"math"
	"regexp"
	"strings"
	"sync"
)

// assignAnchors are the lower-case name fragments that make a line worth
// parsing for assignments.
var assignAnchors = []string{"pass", "pwd", "secret", "token", "key", "auth", "cred", "private", "signing", "salt"}

// The patterns compile on first use: a one-shot search links this package
// and never redacts.
var (
	identRe       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_]+$`) })
	varRe         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$[A-Za-z_][A-Za-z0-9_]*$`) })
	dottedIdentRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$`)
	})
)

// family is what a variable name says about its value.
type family int

const (
	famNone     family = iota
	famPassword        // the name ends in password, passwd, pwd, pass, ...
	famSecret          // the name ends in secret, token, api_key, ...
	famMentions        // the name mentions a secret word elsewhere
)

// findAssignments finds values assigned to secret-named keys: name op
// value, where the name may be quoted (also with escaped quotes, for JSON
// inside a JSON string), op is = : := => or, for a --flag, spaces, and the
// value is quoted or bare. It starts from each anchor in the line, so a
// line costs in proportion to the secret words on it.
func findAssignments(s string, hits []hit) []hit {
	n := len(hits)
	lower := asciiLower(s)
	lastName, lastEnd := -1, 0
	if len(assignAnchors) > 16 {
		panic("redact: too many assignment anchors")
	}
	var next [16]int // next occurrence of each anchor; -1 when none is left
	for pos := 0; pos < len(s); {
		at := -1
		for ai, a := range assignAnchors {
			if next[ai] < pos && next[ai] != -1 {
				next[ai] = -1
				if i := strings.Index(lower[pos:], a); i >= 0 {
					next[ai] = pos + i
				}
			}
			if next[ai] >= 0 && (at < 0 || next[ai] < at) {
				at = next[ai]
			}
		}
		if at < 0 {
			break
		}
		ns, ne := nameBounds(s, at)
		pos = max(ne, at+1)
		if ns == lastName || ns < lastEnd {
			continue
		}
		lastName = ns
		if h, ok := assignmentAt(s, ns, ne); ok {
			hits = append(hits, h)
			lastEnd = h.end
			pos = max(pos, h.end)
		}
	}
	sortHits(hits[n:])
	return hits
}

func isNameByte(c byte) bool {
	return isLower(c) || isUpper(c) || isDigit(c) || c == '_' || c == '.' || c == '-'
}

// nameBounds widens the anchor at i to the identifier around it.
func nameBounds(s string, i int) (int, int) {
	start, end := i, i
	for start > 0 && isNameByte(s[start-1]) {
		start--
	}
	for end < len(s) && isNameByte(s[end]) {
		end++
	}
	// A colour code glued before the name ("\x1b[1mDB_PASSWORD=", or its
	// ESC-less remains "[1mDB_PASSWORD=") is not part of it.
	if start > 0 && s[start-1] == '[' {
		k := start
		for k < i && (isDigit(s[k]) || s[k] == ';') {
			k++
		}
		if k < i && afterCSI(s, k+1) {
			start = k + 1
		}
	}
	return start, end
}

// assignmentAt parses the assignment whose name is s[ns:ne], if any, and
// classifies its value.
func assignmentAt(s string, ns, ne int) (hit, bool) {
	name := s[ns:ne]
	if t := strings.TrimLeft(name, "-"); t == "" || isDigit(t[0]) || t[0] == '.' {
		return hit{}, false
	}
	if ns > 0 && s[ns-1] == '$' {
		return hit{}, false // $password, a shell or template variable
	}
	if e := escapedEquals(s, ne); e > 0 {
		return escapedAssignment(s, name, ns, e)
	}
	i := ne
	for i < len(s) && s[i] == '\\' {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	} else if i > ne {
		return hit{}, false
	}
	j := skipBlanks(s, i)
	op := ""
	for _, o := range []string{":=", "=>", "==", "=", ":"} {
		if strings.HasPrefix(s[j:], o) {
			op = o
			break
		}
	}
	if op == "" {
		if name[0] == '-' && j > i {
			return flagAt(s, name, j)
		}
		return hit{}, false
	}
	if op == "==" || (op == ":" && strings.HasPrefix(s[j:], "::")) {
		return hit{}, false
	}
	k := skipCSI(s, skipBlanks(s, j+len(op)))
	a, b, quoted := valueAt(s, k)
	if a < 0 {
		return hit{}, false
	}
	v := s[a:b]
	spaced := k > j+len(op) || j > i
	if !quoted && (op == ":=" || op == "=>" || !bareOK(s, ns, b, op, spaced, v)) {
		return hit{}, false
	}
	kind := classify(name, v, !quoted && op == ":")
	return hit{a, b, kind}, kind != ""
}

// escapedEquals returns where the value starts when s[i:] is an '='
// escaped in JSON (\u003d: Gson writes a URL's query so,
// "password\u003dhunter2\u0026user\u003dbob"; ux U21), else 0.
func escapedEquals(s string, i int) int {
	if strings.HasPrefix(s[i:], `\u003d`) || strings.HasPrefix(s[i:], `\u003D`) {
		return i + len(`\u003d`)
	}
	return 0
}

// escapedAssignment is assignmentAt's name=value for an escaped '=' ending
// at k: the value is bare up to the next backslash (an escaped &) or
// quote.
func escapedAssignment(s, name string, ns, k int) (hit, bool) {
	a, b, quoted := valueAt(s, k)
	if a < 0 || !quoted && !bareOK(s, ns, b, "=", false, s[a:b]) {
		return hit{}, false
	}
	kind := classify(name, s[a:b], false)
	return hit{a, b, kind}, kind != ""
}

// flagAt parses the value of a flag given with a space: --password x.
func flagAt(s, name string, k int) (hit, bool) {
	k = skipCSI(s, k)
	if k < len(s) && s[k] == '-' {
		return hit{}, false
	}
	a, b, quoted := valueAt(s, k)
	if a < 0 {
		return hit{}, false
	}
	v := s[a:b]
	if !quoted && (strings.ContainsAny(v, "()|") || dottedIdentRe().MatchString(v)) {
		return hit{}, false
	}
	kind := classify(name, v, !quoted)
	return hit{a, b, kind}, kind != ""
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// valueAt finds the value starting at s[k]: double quoted (a backslash
// escapes), escaped double quoted (\"value\", its closing backslashes are
// not part of it), single quoted, or bare. It returns -1 when there is none.
func valueAt(s string, k int) (a, b int, quoted bool) {
	if k >= len(s) {
		return -1, -1, false
	}
	switch c := s[k]; {
	case (c == '"' || c == '\'') && strings.HasPrefix(s[k:], strings.Repeat(string(c), 3)):
		// a Python triple-quoted string on one line: password = """..."""
		// (one letter, password = """v""", is a stand-in in prose)
		q := strings.Repeat(string(c), 3)
		if e := strings.Index(s[k+3:], q); e > 1 && !strings.ContainsAny(s[k+3:k+3+e], "\r\n") {
			return k + 3, k + 3 + e, true
		}
		return -1, -1, false
	case c == '"' || c == '\'':
		for i := k + 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case c:
				return k + 1, i, true
			case '\n', '\r':
				return -1, -1, false
			}
		}
	case c == '\\':
		i := k
		for i < len(s) && s[i] == '\\' {
			i++
		}
		if i == len(s) || s[i] != '"' {
			return -1, -1, false
		}
		a = i + 1
		q := strings.IndexAny(s[a:], "\"\r\n")
		if q < 0 || s[a+q] != '"' {
			return -1, -1, false
		}
		b = a + q
		for b > a && s[b-1] == '\\' {
			b--
		}
		return a, b, true
	default:
		i := k
		for i < len(s) && !strings.ContainsRune(" \t\r\n\"'`,;&\\\x1b", rune(s[i])) {
			i++
		}
		i = trimSGR(s, k, i)
		if i > k {
			return k, i, false
		}
	}
	return -1, -1, false
}

// bareOK vets an unquoted value: it is not code (a call, a field, a plain
// identifier on the right of a spaced =) and, after a colon, it is a YAML
// scalar alone on its line.
func bareOK(s string, nameStart, end int, op string, spaced bool, v string) bool {
	if strings.ContainsAny(v, "()[]") || dottedIdentRe().MatchString(v) {
		return false
	}
	if spaced && identRe().MatchString(v) {
		return false
	}
	if op != ":" || inQuotes(s, nameStart, end) {
		return true
	}
	before := strings.TrimLeft(stripCSI(s[:nameStart]), " \t")
	before = strings.TrimPrefix(before, "- ")
	if b := strings.TrimPrefix(before, "<!--"); b != before && strings.TrimSpace(b) == "" &&
		strings.HasSuffix(strings.TrimSpace(s[end:]), "-->") {
		return true // <!-- token: value -->: a line of its own inside an HTML comment
	}
	if strings.TrimSpace(before) != "" && !strings.HasSuffix(before, "\"") && !strings.HasSuffix(before, "'") {
		return false
	}
	rest := strings.TrimLeft(stripCSI(s[end:]), " \t")
	return rest == "" || rest == "\r" || strings.HasPrefix(rest, "#")
}

// inQuotes reports a "name: value" that is a quoted string of its own, as
// a header given to curl -H 'X-Api-Key: value' or in JSON
// "X-Api-Key: value" (also with escaped quotes): it is judged as the same
// header unquoted on its own line.
func inQuotes(s string, nameStart, end int) bool {
	if nameStart == 0 || end >= len(s) {
		return false
	}
	q := s[nameStart-1]
	if q != '"' && q != '\'' {
		return false
	}
	i := end
	for i < len(s) && s[i] == '\\' {
		i++
	}
	return i < len(s) && s[i] == q
}

func sortHits(h []hit) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j].start < h[j-1].start; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

// classify decides whether v, assigned to name, is a secret and of which
// kind. weak marks a bare value in a context where prose is common (a YAML
// colon, a flag followed by a space), which must not look like a word.
func classify(name, v string, weak bool) string {
	if isPlaceholder(v) || looksLikeLocation(v) {
		return ""
	}
	switch nameFamily(name) {
	case famPassword:
		if weak && !notAWord(v) || isLabel(v) {
			return ""
		}
		return kindPassword
	case famSecret:
		if credentialShaped(v) {
			return kindSecret
		}
	case famMentions:
		if len(v) >= 20 && !strings.ContainsAny(v, " \t") && entropy(v) >= 3.5 {
			return kindHighEntropy
		}
	}
	return ""
}

var (
	passwordLast = map[string]bool{"password": true, "passwd": true, "passphrase": true, "pass": true, "pwd": true, "pw": true,
		"passcode": true, "passwort": true}
	secretLast   = map[string]bool{"secret": true, "token": true, "apikey": true, "credential": true, "credentials": true, "creds": true, "auth": true}
	keyQualifier = map[string]bool{"api": true, "access": true, "secret": true, "private": true, "auth": true,
		"signing": true, "encryption": true, "master": true, "client": true, "account": true, "storage": true,
		"app": true, "license": true, "service": true, "subscription": true, "admin": true, "session": true,
		"webhook": true, "consumer": true, "shared": true, "hmac": true, "jwt": true, "crypto": true, "root": true}
	secretWord = map[string]bool{"secret": true, "secrets": true, "token": true, "password": true, "passwd": true,
		"pwd": true, "apikey": true, "credential": true, "credentials": true, "auth": true, "private": true,
		"signing": true, "hmac": true, "salt": true, "passphrase": true}
	// metadataLast are last name parts that describe a secret without
	// holding it: token_type, password_file, secret_name, private_key_id.
	metadataLast = map[string]bool{"id": true, "ids": true, "name": true, "names": true, "type": true,
		"url": true, "uri": true, "path": true, "file": true, "dir": true, "env": true, "var": true,
		"field": true, "length": true, "len": true, "size": true, "count": true, "ttl": true,
		"expiry": true, "expires": true, "expiration": true, "header": true, "prefix": true,
		"suffix": true, "format": true, "version": true, "label": true, "hint": true, "policy": true,
		"mode": true, "kind": true, "enabled": true, "required": true, "hash": true, "sha": true,
		"digest": true, "fingerprint": true, "limit": true, "max": true, "min": true, "ref": true,
		"arn": true, "endpoint": true, "host": true, "port": true, "user": true, "username": true,
		"region": true, "index": true, "location": true, "source": true}
)

// nameFamily classifies a variable, key or flag name by its parts
// (snake_case, kebab-case, dotted.path and camelCase are split).
func nameFamily(name string) family {
	parts := nameParts(strings.TrimLeft(name, "-"))
	if len(parts) == 0 {
		return famNone
	}
	last := parts[len(parts)-1]
	joined := strings.Join(parts, "")
	switch {
	case passwordLast[last] || strings.HasSuffix(joined, "password") || strings.HasSuffix(joined, "passwd"):
		return famPassword
	case secretLast[last] || strings.HasSuffix(joined, "apikey") || strings.HasSuffix(joined, "secret"):
		return famSecret
	case (last == "key" || last == "keys") && len(parts) > 1 && keyQualifier[parts[len(parts)-2]]:
		return famSecret
	case metadataLast[last]:
		return famNone
	}
	for i, p := range parts {
		if secretWord[p] || p == "key" && i > 0 && keyQualifier[parts[i-1]] {
			return famMentions
		}
	}
	return famNone
}

func nameParts(name string) []string {
	var parts []string
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, strings.ToLower(name[start:end]))
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			flush(i)
			start = i + 1
		case isUpper(c) && i > start && (isLower(name[i-1]) || isDigit(name[i-1])):
			flush(i)
			start = i
		}
	}
	flush(len(name))
	return parts
}

// isPlaceholder reports values that stand in for a secret: empty, masked,
// a variable reference, a template, a documentation stand-in.
func isPlaceholder(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || strings.Contains(v, placeholderPrefix) {
		return true
	}
	l := strings.ToLower(v)
	if placeholderWords[l] {
		return true
	}
	switch {
	case strings.HasPrefix(v, "${") || strings.HasPrefix(v, "$(") || strings.HasPrefix(v, "{{") ||
		strings.HasPrefix(v, "#{") || strings.HasPrefix(v, "%(") || strings.HasPrefix(v, "<%"):
		return true
	case varRe().MatchString(v):
		return true
	case v[0] == '<' && v[len(v)-1] == '>', v[0] == '{' && v[len(v)-1] == '}', v[0] == '[' && v[len(v)-1] == ']':
		return true
	case (v[0] == '%' || v[0] == ':' || v[0] == '@' || v[0] == '?') && len(v) <= 32 && !strings.ContainsAny(v[1:], "%:@?!#"):
		return true // %s, :password and @password bind parameters, ?
	case repeated(v):
		return true
	}
	for _, w := range []string{"redacted", "process.env", "os.getenv", "os.environ", "getenv(", "env(", "secrets.", "changeme", "change_me", "change-me", "replace_me", "replace-me", "replaceme", "placeholder"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	if strings.Contains(l, "your") && (strings.Contains(l, "key") || strings.Contains(l, "token") ||
		strings.Contains(l, "pass") || strings.Contains(l, "secret")) {
		return true
	}
	return false
}

var placeholderWords = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "secret": true, "token": true,
	"apikey": true, "api_key": true, "api-key": true, "key": true, "none": true, "null": true,
	"nil": true, "true": true, "false": true, "undefined": true, "todo": true, "tbd": true,
	"example": true, "dummy": true, "...": true, "…": true, "-": true, "<nil>": true,
	"mypassword": true, "my-password": true, "my_password": true, "notasecret": true, // notasecret: Google's .p12 keys
	"str": true, "string": true, "bool": true, "int": true, "bytes": true, "required": true,
	"optional": true, "omitempty": true, "hidden": true, "masked": true, "sensitive": true,
	// YAML block scalar indicators: the value is on the next lines
	"|": true, "|-": true, "|+": true, ">": true, ">-": true, ">+": true,
}

// repeated reports masks like *** or xxxx: a single character, three
// times or more.
func repeated(v string) bool {
	if len(v) < 3 {
		return false
	}
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			return false
		}
	}
	return true
}

// looksLikeLocation reports file paths and URLs, which name where a secret
// lives rather than holding it (URL passwords have their own rule).
func looksLikeLocation(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") ||
		strings.HasPrefix(v, "~/") || strings.Contains(v, "://")
}

// isLabel reports prose assigned to a password-named key, as in UI
// strings: "Enter your password".
func isLabel(v string) bool {
	if !strings.ContainsAny(v, " \t") {
		return false
	}
	l := strings.ToLower(v)
	return strings.Contains(l, "password") || strings.Contains(l, "passwd") ||
		strings.Contains(l, "secret") || strings.Contains(l, "token")
}

// notAWord reports a value that is not a plain word: it has a digit or a
// symbol, or is long.
func notAWord(v string) bool {
	if len(v) >= 12 {
		return true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isLower(c) && !(isUpper(c) && i == 0) {
			return true
		}
	}
	return false
}

// credentialShaped reports a value that looks machine-made: at least eight
// characters without spaces, mixing letters and digits or cases, or long
// and random.
func credentialShaped(v string) bool {
	if len(v) < 8 || strings.ContainsAny(v, " \t") {
		return false
	}
	var lower, upper, digit bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		lower = lower || isLower(c)
		upper = upper || isUpper(c)
		digit = digit || isDigit(c)
	}
	return digit && (lower || upper) || lower && upper || len(v) >= 20 && entropy(v) >= 3.5
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v string) float64 {
	var freq [256]int
	for i := 0; i < len(v); i++ {
		freq[v[i]]++
	}
	var h float64
	n := float64(len(v))
	for _, f := range freq {
		if f > 0 {
			p := float64(f) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// trimSGR returns b less an SGR or erase-line code that ends s[a:b] without
// its ESC ("hunter2[0m", from text whose control bytes were dropped).
func trimSGR(s string, a, b int) int {
	if b-a < 3 || (s[b-1] != 'm' && s[b-1] != 'K') {
		return b
	}
	j := b - 2
	for j > a && (isDigit(s[j]) || s[j] == ';') {
		j--
	}
	if j > a && s[j] == '[' {
		return j
	}
	return b
}

// stripCSI drops ANSI CSI sequences (colour codes, with their ESC or the
// SGR and erase-line remains without it) from a short piece of a line, so
// "\x1b[1mpassword: x\x1b[0m" reads as a key alone on its line.
func stripCSI(s string) string {
	if !strings.Contains(s, "[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' || s[i] == '[' {
			j := i + 1
			if s[i] == 0x1b {
				j++
			}
			for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
				j++
			}
			if j < len(s) && (s[j] == 'm' || s[j] == 'K' || s[i] == 0x1b && s[j] >= 0x40 && s[j] <= 0x7e) {
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// skipCSI returns k moved past the colour codes that start s[k:] (ESC '['
// ... final byte, or the ESC-less SGR and erase-line remains "[1m"), so
// a value written in colour ("DB_PASSWORD=\x1b[1mhunter2") is read.
func skipCSI(s string, k int) int {
	for k < len(s) {
		j := k
		switch {
		case s[j] == 0x1b && j+1 < len(s) && s[j+1] == '[':
			j += 2
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
				j++
			}
			if j >= len(s) || s[j] < 0x40 || s[j] > 0x7e {
				return k
			}
		case s[j] == '[':
			j++
			for j < len(s) && (isDigit(s[j]) || s[j] == ';') {
				j++
			}
			if j >= len(s) || (s[j] != 'm' && s[j] != 'K') {
				return k
			}
		default:
			return k
		}
		k = j + 1
	}
	return k
}
