package redact

import (
	"regexp"
	"strings"
)

// A wallet's seed phrase (BIP-39 mnemonic) is the whole wallet: 12, 15,
// 18, 21 or 24 small words of 3 to 8 letters (ux U4). Words alone are not
// a secret, so the phrase is taken only under a name that says what it
// is: a key or variable naming a mnemonic or a seed phrase
// (WALLET_MNEMONIC="...", seed_phrase: ..., "mnemonic": "..."), or prose
// ("my recovery phrase is ..."). A phrase of fewer than six distinct words
// is a documentation stand-in ("test test ... junk", "abandon ... about")
// and stays. Word lists of other languages (accented or not Latin) are not
// looked for.

const kindSeedPhrase = "seed-phrase"

// seedAnchors are the lower-case words findSeedPhrases starts from.
var seedAnchors = []string{"mnemonic", "seed", "phrase"}

// seedQualifiers are the words before "phrase" (or "words") that make it a
// seed phrase: recovery phrase, backup phrase, seed words.
var seedQualifiers = map[string]bool{"seed": true, "recovery": true, "backup": true, "mnemonic": true,
	"secret": true, "wallet": true}

// seedWordsRe is the phrase itself: small words separated by blanks.
var seedWordsRe = regexp.MustCompile(`^[a-z]{3,8}(?:[ \t]+[a-z]{3,8})*`)

// findSeedPhrases finds seed phrases on the line s.
func findSeedPhrases(s string, hits []hit) []hit {
	n := len(hits)
	lower := asciiLower(s)
	last := -1 // where the last hit ended
	for _, w := range seedAnchors {
		for i := 0; ; {
			j := strings.Index(lower[i:], w)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(w)
			ns, ne := nameBounds(s, at)
			if ns < last || !seedName(lower, ns, ne) {
				continue
			}
			if h, ok := seedValueAfter(s, lower, ne); ok {
				hits = append(hits, h)
				last = h.end
			}
		}
	}
	sortHits(hits[n:])
	return hits
}

// seedName reports whether the name lower[ns:ne], with the word before it
// when it is a lone "phrase" or "words", names a seed phrase.
func seedName(lower string, ns, ne int) bool {
	parts := nameParts(lower[ns:ne])
	if len(parts) == 0 {
		return false
	}
	if len(parts) == 1 && (parts[0] == "phrase" || parts[0] == "words") {
		// prose: "recovery phrase", "seed words"
		k := ns - 1
		for k >= 0 && (lower[k] == ' ' || lower[k] == '\t') {
			k--
		}
		e := k + 1
		for k >= 0 && isLower(lower[k]) {
			k--
		}
		return e > k+1 && seedQualifiers[lower[k+1:e]]
	}
	for i, p := range parts {
		switch {
		case p == "mnemonic" || p == "mnemonics" || p == "seedphrase":
			return true
		case p == "seed" && i == len(parts)-1:
			return true // SEED=, wallet_seed:
		case (p == "phrase" || p == "words") && i > 0 && seedQualifiers[parts[i-1]]:
			return true
		}
	}
	return false
}

// seedValueAfter reads what follows a seed name ending at ne: an optional
// second word of the name (seed phrase, mnemonic words), a closing quote,
// an operator (= : := => is was) and the phrase, quoted or bare.
func seedValueAfter(s, lower string, ne int) (hit, bool) {
	k := ne
	for _, w := range []string{" phrase", " words"} {
		if strings.HasPrefix(lower[k:], w) {
			k += len(w)
			break
		}
	}
	for k < len(s) && (s[k] == '\\' || s[k] == '"' || s[k] == '\'') && k-ne < 4 {
		k++
	}
	k, ok := afterPasswordWord(lower, k)
	if !ok {
		return hit{}, false
	}
	for q := 0; k < len(s) && q < 4 && strings.IndexByte("\\\"'`", s[k]) >= 0; q++ {
		k++
	}
	m := seedWordsRe.FindString(s[k:])
	e := k + len(m)
	if e < len(s) && (isLetter(s[e]) || isDigit(s[e]) || s[e] >= 0x80) || !seedPhrase(m) {
		return hit{}, false
	}
	return hit{k, e, kindSeedPhrase}, true
}

// seedPhrase reports 12, 15, 18, 21 or 24 words, six or more of them
// distinct.
func seedPhrase(m string) bool {
	words := strings.Fields(m)
	switch len(words) {
	case 12, 15, 18, 21, 24:
	default:
		return false
	}
	distinct := map[string]bool{}
	for _, w := range words {
		distinct[w] = true
	}
	return len(distinct) >= 6
}

func isLetter(c byte) bool { return isLower(c) || isUpper(c) }
