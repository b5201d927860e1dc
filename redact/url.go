package redact

import "strings"

// databaseSchemes are URL schemes whose password is reported as
// database-password rather than url-password.
var databaseSchemes = map[string]bool{
	"postgres": true, "postgresql": true, "mysql": true, "mariadb": true,
	"mongodb": true, "mongodb+srv": true, "redis": true, "rediss": true,
	"amqp": true, "amqps": true, "mssql": true, "sqlserver": true,
	"oracle": true, "clickhouse": true, "cockroachdb": true, "couchdb": true,
	"neo4j": true, "neo4j+s": true, "bolt": true, "cassandra": true,
	"memcached": true, "nats": true, "kafka": true, "elasticsearch": true,
	"db2": true, "snowflake": true,
}

// findURLPasswords finds the password in scheme://user:password@host and
// leaves the scheme, user and host alone. A password of three bytes or
// fewer is documentation's example (ux U20: Node's
// https://abc:xyz@example.com, https://a:b@...) and stays; a longer one
// stays secret whatever the host, example.com included, since a user
// trying the redaction writes such a URL.
func findURLPasswords(s string, hits []hit) []hit {
	for pos := 0; ; {
		i := strings.Index(s[pos:], "://")
		if i < 0 {
			return hits
		}
		i += pos
		pos = i + 3
		j := i
		for j > 0 && isSchemeByte(s[j-1]) {
			j--
		}
		scheme := strings.ToLower(s[j:i])
		if scheme == "" || !isLower(scheme[0]) {
			continue
		}
		auth := pos
		for auth < len(s) && !isAuthorityEnd(s[auth]) {
			auth++
		}
		at := strings.LastIndexByte(s[pos:auth], '@')
		if at < 0 {
			continue
		}
		userinfo := s[pos : pos+at]
		colon := strings.IndexByte(userinfo, ':')
		if colon < 0 || strings.Contains(userinfo, placeholderPrefix) {
			continue
		}
		pw := userinfo[colon+1:]
		if isPlaceholder(pw) || len(pw) <= 3 {
			continue
		}
		kind := kindURLPassword
		if databaseSchemes[scheme] {
			kind = kindDatabasePassword
		}
		start := pos + colon + 1
		hits = append(hits, hit{start, start + len(pw), kind})
		pos = pos + at + 1
	}
}

func isSchemeByte(c byte) bool {
	return isLower(c) || isUpper(c) || isDigit(c) || c == '+' || c == '.' || c == '-'
}

// isAuthorityEnd reports whether c ends the authority part of a URL. Quotes,
// backslashes and brackets end it too, so a URL inside code or JSON stops
// at its closing quote.
func isAuthorityEnd(c byte) bool {
	switch c {
	case '/', '?', '#', ' ', '\t', '\r', '\n', '"', '\'', '`', '\\', '<', '>', '(', ')', '{', '}', ',':
		return true
	}
	return false
}
