package cairn

import (
	"slices"
	"strings"
)

// MaxMemoryIDLen bounds a memory id: Cairn's own are 18 bytes ("m-" and
// 16 hex digits of a content hash).
const MaxMemoryIDLen = 128

// ValidMemoryID reports whether id can name a memory's document: one to
// MaxMemoryIDLen letters, digits, '-' or '_' (Cairn's own ids are "m-"
// and hex). A memory's id names its document (kind/id.md under the
// memories folder), so an id from outside (an import, a shared store)
// that could name another place (a slash, a dot, a NUL) is refused before
// it reaches a path.
func ValidMemoryID(id string) bool {
	if id == "" || len(id) > MaxMemoryIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// IsMemoryKind reports whether kind is a memory kind: episode,
// observation, profile or one of the ItemKinds. It is the folder of the
// memory's document.
func IsMemoryKind(kind string) bool {
	switch kind {
	case MemoryEpisode, MemoryObservation, MemoryProfile:
		return true
	}
	return slices.Contains(ItemKinds, kind)
}

// CheckMemoryPath says what is wrong with a memory's id or kind as the
// name of its document, or nil.
func CheckMemoryPath(id, kind string) error {
	if !ValidMemoryID(id) {
		return Invalidf("memory id %q: allowed are 1 to %d letters, digits, '-' or '_'", id, MaxMemoryIDLen)
	}
	if !IsMemoryKind(kind) {
		return Invalidf("memory %s: kind %q is not a memory kind (episode, observation, profile, %s)", id, kind, strings.Join(ItemKinds, ", "))
	}
	return nil
}
