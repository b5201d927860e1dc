package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/redact"
)

const maxComponent = 80

// Path returns the projection's relative path:
//
//	<provider>/<chatType>/<account>/<conversation>/<startedAt>--<sessionId>.md
//
// Each component keeps only [A-Za-z0-9._-] up to 80 characters; anything
// else (a folder path, an email, a phone-like id with six or more digits,
// any iMessage id, "." or "..", or a value holding a secret the redactor
// catches, such as a session id made of a token) becomes "id-" and 16 hex
// of its sha256, so no projection path holds a secret.
// Missing values are "unknown" (provider, chat type), "default" (account)
// and "session-<hash>" (conversation). startedAt is ISO UTC without
// fractions, with ':' written '-'.
func Path(s *cairn.Session) string {
	provider := component(orDefault(s.Provider, s.Source), "unknown", false)
	chatType := component(s.ChatType, "unknown", false)
	private := strings.EqualFold(s.Provider, "imessage")
	account := component(s.AccountID, "default", true)
	conversation := component(s.ConversationID, "", true)
	if private {
		account = hashed(orDefault(s.AccountID, "default"))
		if s.ConversationID != "" {
			conversation = hashed(s.ConversationID)
		}
	}
	if conversation == "" {
		conversation = "session-" + hex16(s.Source+"\x00"+s.ID)
	}
	started := "unknown-start"
	if !s.StartedAt.IsZero() {
		started = strings.ReplaceAll(s.StartedAt.UTC().Format("2006-01-02T15:04:05Z"), ":", "-")
	}
	id := component(s.ID, "", false)
	if id == "" {
		id = "session-" + hex16(s.Source+"\x00"+s.ID)
	}
	return provider + "/" + chatType + "/" + account + "/" + conversation + "/" + started + "--" + id + ".md"
}

// component makes v a safe path component; def replaces an empty value.
// personal applies the email and phone-number rule.
func component(v, def string, personal bool) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return def
	}
	if v == "." || v == ".." || len(v) > maxComponent || !safeChars(v) {
		return hashed(v)
	}
	if r, _ := redact.Redact(v); r != v {
		return hashed(v)
	}
	if personal && (strings.Contains(v, "@") || digits(v) >= 6) {
		return hashed(v)
	}
	return v
}

func safeChars(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func digits(v string) int {
	n := 0
	for i := 0; i < len(v); i++ {
		if v[i] >= '0' && v[i] <= '9' {
			n++
		}
	}
	return n
}

func hashed(v string) string { return "id-" + hex16(v) }

func hex16(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:8])
}
