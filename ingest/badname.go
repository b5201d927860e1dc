package ingest

import (
	"strconv"
	"unicode/utf8"
)

// ReasonNameNotUTF8 is the failure of a file whose path is not valid
// UTF-8: JSON turns its bytes into U+FFFD, so the path search prints
// over MCP and HTTP names no document and get cannot read it (ux U10).
// The failure's path shows the bytes as \xNN.
const ReasonNameNotUTF8 = "file name is not valid UTF-8, so get, MCP and HTTP cannot name it: not indexed; rename the file"

// badName reports whether the exposed path rel of a file to be listed is
// not valid UTF-8, and then records the failure. Only listed files are
// checked, as for secretName.
func (w *walker) badName(rel string) bool {
	if utf8.ValidString(rel) {
		return false
	}
	q := strconv.Quote(rel)
	w.fail(q[1:len(q)-1], ReasonNameNotUTF8)
	return true
}
