package redact

import (
	"regexp"
	"strings"
)

// XML and percent-encoded forms (ux F24): Maven's settings.xml
// (<password>v</password>), NuGet.Config and app.config
// (<add key="ApiKey" value="v"/>), Java properties XML
// (<entry key="api.token">v</entry>), and secrets inside a URL-encoded
// redirect or connection string.

// xmlElementRe is an element holding text alone: its name, its attributes
// and its text (up to the next '<'), then the closing tag's name.
var xmlElementRe = regexp.MustCompile(`<([A-Za-z_][\w.:-]*)((?:\s[^<>]*)?)>([^<>\s][^<>]*?)</([A-Za-z_][\w.:-]*)\s*>`)

// xmlAttrRe is an attribute: name="value" or name='value'.
var xmlAttrRe = regexp.MustCompile(`([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')`)

// findXML finds (as a bare value: not a plain word) the text of an element whose name, or whose key or name
// attribute, says it holds a secret (<password>, <Secret>, <apiKey>,
// <entry key="api.token">), and the value attribute of an element whose
// key or name attribute does (<add key="ApiKey" value="..."/>).
func findXML(s string, hits []hit) []hit {
	n := len(hits)
	for _, m := range xmlElementRe.FindAllStringSubmatchIndex(s, -1) {
		name, closing := s[m[2]:m[3]], s[m[8]:m[9]]
		if name != closing {
			continue
		}
		if k := attrValue(s[m[4]:m[5]], "key", "name"); k != "" {
			name = k
		}
		a, b := m[6], m[7]
		for b > a && (s[b-1] == ' ' || s[b-1] == '\t') {
			b--
		}
		if kind := classify(name, s[a:b], true); kind != "" && !strings.ContainsAny(s[a:b], "\r\n") {
			hits = append(hits, hit{a, b, kind})
		}
	}
	for i := 0; ; {
		j := strings.Index(s[i:], "<")
		if j < 0 {
			break
		}
		start := i + j
		end := strings.IndexByte(s[start:], '>')
		if end < 0 {
			break
		}
		end += start
		i = end + 1
		tag := s[start:end]
		key := attrValue(tag, "key", "name")
		if key == "" {
			continue
		}
		for _, am := range xmlAttrRe.FindAllStringSubmatchIndex(tag, -1) {
			if !strings.EqualFold(tag[am[2]:am[3]], "value") {
				continue
			}
			g := 4
			if am[4] < 0 {
				g = 6
			}
			a, b := start+am[g], start+am[g+1]
			if kind := classify(key, s[a:b], true); kind != "" {
				hits = append(hits, hit{a, b, kind})
			}
		}
	}
	sortHits(hits[n:])
	return hits
}

// attrValue returns the value of the first of names found among attrs.
func attrValue(attrs string, names ...string) string {
	for _, m := range xmlAttrRe.FindAllStringSubmatch(attrs, -1) {
		for _, n := range names {
			if strings.EqualFold(m[1], n) {
				return m[2] + m[3]
			}
		}
	}
	return ""
}

// encodedAssignRe is a percent-encoded key=value (key%3Dvalue) in a
// URL-encoded query or redirect; encodedURLRe a percent-encoded URL with a
// password (scheme%3A%2F%2Fuser%3Apassword%40host).
var (
	encodedAssignRe = regexp.MustCompile(`([A-Za-z0-9_.-]+)%3[Dd]([A-Za-z0-9._~+/-]+(?:%2[Bb]|%2[Ff]|%3[Dd])*[A-Za-z0-9._~+/-]*)`)
	encodedURLRe    = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*)%3A%2F%2F[^\s%/@:?#]*%3A([^\s@/?#%]+(?:%[0-9A-F]{2}[^\s@/?#%]*)*?)%40`)
)

// findEncoded finds secrets in percent-encoded text: a secret-named key's
// value, and the password of an encoded URL.
func findEncoded(s string, hits []hit) []hit {
	n := len(hits)
	for _, m := range encodedAssignRe.FindAllStringSubmatchIndex(s, -1) {
		name, v := s[m[2]:m[3]], s[m[4]:m[5]]
		if kind := classify(name, v, false); kind != "" {
			hits = append(hits, hit{m[4], m[5], kind})
		}
	}
	for _, m := range encodedURLRe.FindAllStringSubmatchIndex(s, -1) {
		v := s[m[4]:m[5]]
		if isPlaceholder(v) {
			continue
		}
		kind := kindURLPassword
		switch strings.ToLower(s[m[2]:m[3]]) {
		case "postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongodb+srv", "redis", "rediss", "amqp", "amqps", "mssql", "sqlserver":
			kind = kindDatabasePassword
		}
		hits = append(hits, hit{m[4], m[5], kind})
	}
	sortHits(hits[n:])
	return hits
}

// puttyRe is the private part of a PuTTY key file (.ppk): "Private-Lines:
// N" and the base64 lines after it, up to the next header or the end.
var puttyRe = regexp.MustCompile(`Private-Lines:[ \t]*[0-9]+\r?\n((?:[A-Za-z0-9+/=]{8,}\r?\n?)+)`)

// findPuttyKeys finds the private lines of a PuTTY key, as private-key
// (its line breaks are kept after the placeholder).
func findPuttyKeys(s string, hits []hit) []hit {
	for _, m := range puttyRe.FindAllStringSubmatchIndex(s, -1) {
		a, b := m[2], m[3]
		for b > a && (s[b-1] == '\n' || s[b-1] == '\r') {
			b--
		}
		hits = append(hits, hit{a, b, kindPrivateKey})
	}
	return hits
}
