package redact

import (
	"regexp"
	"strings"
)

// Password hashes, PINs and Wi-Fi passwords (ux U5).
//
// An htpasswd or shadow line, user:hash, holds a crackable hash of the
// user's password: Apache's $apr1$salt$hash, crypt's $1$, $5$ and $6$,
// bcrypt's $2a$/$2b$/$2y$, yescrypt's $y$ and the {SHA} base64 digest.
// The hash after the user's colon is replaced; the user name stays.
//
// A PIN is taken only in prose, after the capitalized word PIN (PIN code,
// PIN number) and is, was, ist, a colon or '=': four to eight digits, not
// part of a longer number, a version or a date ("GPIO PIN 17", "PIN is 4
// digits" and "PIN: 2024-05-01" stay).
//
// A Wi-Fi network is often noted as "wifi: NETWORK / PASSWORD": after
// wifi, wi-fi or wlan (and up to 20 more bytes of the label) a colon, the
// network name, a slash and a value proseSecret accepts ("wifi: home /
// guest" and "wifi: on / off" stay).

const kindPasswordHash = "password-hash"

var hashLineRe = regexp.MustCompile(`(?:^|[^A-Za-z0-9._@-])[A-Za-z0-9._@-]{1,64}:(` +
	`\$(?:apr1|1|5|6)\$[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{22,86}` +
	`|\$2[abxy]\$[0-9]{2}\$[./A-Za-z0-9]{53}` +
	`|\$y\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{1,64}\$[./A-Za-z0-9]{43}` +
	`|\{SHA\}[A-Za-z0-9+/]{27}=)(?:[^./A-Za-z0-9]|$)`)

var pinRe = regexp.MustCompile(`\bPIN(?:[ -](?:[Cc]ode|[Nn]umber))?(?:[ \t]+(?:is|was|ist)[ \t]*:?|[ \t]*[:=])[ \t]*([0-9]{4,8})\b`)

// findPINs finds PINs on the line s, leaving a number that goes on as a
// date, a version, a range or a longer number (2024-05-01, 1234.5,
// 1234/5678) and masks (0000).
func findPINs(s string, hits []hit) []hit {
	for _, m := range pinRe.FindAllStringSubmatchIndex(s, -1) {
		a, b := m[2], m[3]
		if b+1 < len(s) && strings.IndexByte("-./:,", s[b]) >= 0 && isDigit(s[b+1]) || isPlaceholder(s[a:b]) {
			continue
		}
		hits = append(hits, hit{a, b, kindPassword})
	}
	return hits
}

var wifiRe = regexp.MustCompile(`(?i)(?:^|[^a-z0-9_])(?:wifi|wi-fi|wlan)[^:\n]{0,20}:[ \t]*[^\s/]{1,32}[ \t]+/[ \t]+(\S+)`)

// findWifi finds the password of "wifi: NETWORK / PASSWORD" on the line s.
func findWifi(s string, hits []hit) []hit {
	for _, m := range wifiRe.FindAllStringSubmatchIndex(s, -1) {
		a, b := m[2], m[3]
		for b > a && strings.IndexByte(".,;:?)]}\"'`", s[b-1]) >= 0 {
			b--
		}
		if proseSecret(s[a:b]) {
			hits = append(hits, hit{a, b, kindPassword})
		}
	}
	return hits
}
