package redact

import (
	"regexp"
	"strings"
)

// Passwords in SQL statements and in the flags of common tools (ux U17),
// beside the mysql, sshpass and registry login forms of commands.go.
//
// SQL, in a statement that sets one: CREATE|ALTER USER|ROLE|LOGIN ...
// [WITH] [ENCRYPTED] PASSWORD '<v>' or IDENTIFIED BY '<v>' (MySQL, Oracle;
// also bare), GRANT ... IDENTIFIED BY '<v>', SET PASSWORD [FOR u] =
// [PASSWORD(]'<v>'. ("the header identified by name" is prose.) Tools, each only after its own name on the line:
// echo <v> | sudo -S, openssl's -pass*/-passin/-passout pass:<v>, keytool's
// -storepass/-keypass <v>, zip -P <v>, 7z -p<v>, ldap* -w <v>, redis-cli
// -a <v>, smbclient -U user%<v>, az login -p <v>, sqlcmd/bcp -P <v>,
// mongosh/mongo/mongodump/mongorestore -p <v>, ssh-keygen -P/-N <v>,
// htpasswd -b file user <v>, rabbitmqctl add_user|change_password user
// <v>, xfreerdp /p:<v>, net use ... /user:u <v>, nmcli ... password <v>,
// wpa_passphrase ssid <v>, PowerShell ConvertTo-SecureString "<v>"
// -AsPlainText, and a process substitution <(echo <v>) after a
// password-file flag. A value that is a stand-in (a variable, $(...), a
// mask, one letter) stays.

// toolValue is a value: quoted, or bare up to a blank, a quote or a shell
// operator.
const toolValue = `'[^'\n]*'|"[^"\n]*"|[^\s"'` + "`" + `;&|)]+`

// toolStart is where a command name may start: the line's start, a blank,
// a quote, '(' or a shell operator.
const toolStart = `(?:^|[\s;&|(` + "`" + `"'])`

// args is the rest of a command before a flag: anything but a command
// separator, ending in a blank.
const args = `(?:[^\n;&|]*?[ \t])?`

var (
	toolPasswordRe = regexp.MustCompile(toolStart + `(?:` +
		`echo[ \t]+(` + toolValue + `)[ \t]*\|[ \t]*sudo[ \t]+` + args + `-[A-Za-z]*S\b` +
		`|openssl[ \t]` + args + `-pass(?:in|out|word)?[ \t]+pass:(` + toolValue + `)` +
		`|keytool[ \t]` + args + `-(?:store|key|srcstore|deststore|srckey|destkey|new)pass[ \t]+(` + toolValue + `)` +
		`|(?:zip|unzip)[ \t]` + args + `-P[ \t]*(` + toolValue + `)` +
		`|7z[ar]?(?:\.exe)?[ \t]` + args + `-p(` + toolValue + `)` +
		`|ldap[a-z]+[ \t]` + args + `-w[ \t]*(` + toolValue + `)` +
		`|redis-cli[ \t]` + args + `-a[ \t]+(` + toolValue + `)` +
		`|smbclient[ \t]` + args + `(?:-U|--user=?)[ \t]*['"]?[^\s%'"]+%(` + toolValue + `)` +
		`|az[ \t]+login[ \t]` + args + `(?:-p|--password)[ \t]+(` + toolValue + `)` +
		`|(?:sqlcmd|bcp)(?:\.exe)?[ \t]` + args + `-P[ \t]*(` + toolValue + `)` +
		`|(?:mongosh|mongo|mongodump|mongorestore|mongoexport|mongoimport)[ \t]` + args + `-p[ \t]+(` + toolValue + `)` +
		`|ssh-keygen[ \t]` + args + `-[PN][ \t]+(` + toolValue + `)` +
		`|htpasswd[ \t]+(?:-[a-zA-Z]+[ \t]+)*-[a-zA-Z]*b[a-zA-Z]*[ \t]+(?:-[a-zA-Z]+[ \t]+)*[^\s-]\S*[ \t]+\S+[ \t]+(` + toolValue + `)` +
		`|rabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+\S+[ \t]+(` + toolValue + `)` +
		`|xfreerdp[ \t]` + args + `/p:(` + toolValue + `)` +
		`|net[ \t]+use[ \t]` + args + `/user:\S+[ \t]+(` + toolValue + `)` +
		`|nmcli[ \t]` + args + `password[ \t]+(` + toolValue + `)` +
		`|wpa_passphrase[ \t]+(?:'[^'\n]*'|"[^"\n]*"|\S+)[ \t]+(` + toolValue + `)` +
		`|-(?:-vault)?-?password-file[ \t=]+<\(echo[ \t]+(` + toolValue + `)[ \t]*\)` +
		`)`)

	sqlPasswordRe = regexp.MustCompile(`(?i)(?:` +
		`\b(?:create|alter)[ \t]+(?:user|role|login)\b[^;\n]*?(?:` +
		`\bpassword[ \t]+(?:'([^'\n]*)'|"([^"\n]*)")` +
		`|\bidentified[ \t]+(?:with[ \t]+\S+[ \t]+)?by[ \t]+(?:'([^'\n]*)'|"([^"\n]*)"|([^\s'";]+)))` +
		`|\bgrant\b[^;\n]*?\bidentified[ \t]+(?:with[ \t]+\S+[ \t]+)?by[ \t]+(?:'([^'\n]*)'|"([^"\n]*)"|([^\s'";]+))` +
		`|\bset[ \t]+password\b[^;\n]*?=[ \t]*(?:password[ \t]*\([ \t]*)?(?:'([^'\n]*)'|"([^"\n]*)")` +
		`)`)

	secureStringRe = regexp.MustCompile(`(?i)convertto-securestring[ \t]+(?:-string[ \t]+)?(?:"([^"\n]*)"|'([^'\n]*)')[ \t]+-asplaintext`)
)

// toolAnchors are the rare parts of the tool forms; the rule looks at a
// line only when one occurs.
var toolAnchors = []string{"sudo", "pass:", "storepass", "keypass", " -P", "7z", " -w", "redis-cli", "smbclient",
	"az login", "mongo", "ssh-keygen", "htpasswd", "rabbitmqctl", "/p:", "/user:", "nmcli", "wpa_passphrase", "<(echo"}

// sqlAnchors are lower case: the SQL rule folds.
var sqlAnchors = []string{"identified", "password '", "password \"", "set password", "convertto-securestring"}

// findToolPasswords finds the values of toolPasswordRe on the line s.
func findToolPasswords(s string, hits []hit) []hit {
	return groupValues(s, hits, toolPasswordRe)
}

// findSQLPasswords finds SQL and PowerShell passwords on the line s.
func findSQLPasswords(s string, hits []hit) []hit {
	n := len(hits)
	hits = groupValues(s, hits, sqlPasswordRe)
	hits = groupValues(s, hits, secureStringRe)
	sortHits(hits[n:])
	return hits
}

// groupValues adds the first group re matched, each match, less its
// quotes, when it is not a stand-in.
func groupValues(s string, hits []hit, re *regexp.Regexp) []hit {
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		for g := 1; 2*g+1 < len(m); g++ {
			a, b := m[2*g], m[2*g+1]
			if a < 0 {
				continue
			}
			if b-a >= 2 && (s[a] == '\'' || s[a] == '"') && s[b-1] == s[a] {
				a, b = a+1, b-1
			}
			if toolValueOK(s[a:b]) {
				hits = append(hits, hit{a, b, kindPassword})
			}
			break
		}
	}
	return hits
}

// toolValueOK keeps stand-ins: a variable or command substitution, a
// template, a mask, a flag, one letter, and a value ending a sentence
// after a stand-in ("-P V,").
func toolValueOK(v string) bool {
	t := strings.TrimRight(v, ",.:")
	return len(t) > 1 && v[0] != '-' && !strings.HasPrefix(v, "$") && !isPlaceholder(v) && !isPlaceholder(t)
}
