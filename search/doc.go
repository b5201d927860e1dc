// Package search plans lexical queries over the store's full-text index (as
// a cairn.Match, which each store compiles to its own syntax) and turns
// raw matches into ranked, explained hits.
//
// Query language: bare words, "quoted phrases" and prefix* terms. Words are
// split the way the index tokenizer (unicode61) splits them; English stop
// words are dropped outside phrases; a word that looks like an identifier
// (snake_case, camelCase, kebab-case, dotted.name) matches both its
// joined form and its parts in sequence, so parseConfig finds
// parse_config and parse-config and the other way round. The index side of
// that bargain is IdentText, which the store writes into the ident column.
// There are no field filters: a word with a colon or another join
// (timeout:5000, key=value, src/main) is text, searched as the phrase of
// its words, exactly as if it were quoted.
//
// Plan: all terms required first (cheap in FTS5); when that finds fewer hits
// than asked for, an any-of query fills the list. The any-of query is where
// FTS5 gets slow (it scores every row that matches any term), so terms whose
// posting lists are huge are left out of it when rarer terms are present.
// See docs/design.md for the measurements behind this.
//
// Scores: the store's lexical score (cairn.Candidate.Score, BM25 with the
// IDFs computed here; higher is better) is mapped to 0..1 with s/(1+s). The mapping is monotonic and independent of the result set, so a
// min-score threshold means the same thing for every query.
package search
