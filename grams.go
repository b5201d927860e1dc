package cairn

import "strings"

// GramWords are the common words of phrase search's pair tokens (common
// grams): every store that indexes pairs indexes each pair of adjacent
// words in which one of these is as one more token, so a phrase of
// frequent words reads a short list of pairs instead of the long lists of
// its words. They are the twenty most frequent English words (in the usual
// corpus counts); a longer list costs more to index than it saves
// (measured on SQLite, docs/design.md). Changing the list changes every
// store's index: each store then needs a migration that writes its pairs
// again (SQLite's rebuild of its full-text table, PostgreSQL's pair
// postings).
var GramWords = strings.Fields(`the of and to a in is it that for on with as was at by this be are from`)
