// Package ingest finds and reads the documents of file corpora: it resolves
// a corpus's paths into sources (a root directory and a glob pattern), walks
// each root, and reads files into valid UTF-8 text. Transcript source formats
// (one file per format) live here too.
//
// A corpus path resolves as in spec C3 (see Resolve). Files are exposed by a
// slash-separated path relative to their source root; when a corpus spans
// several roots, each root's paths get a prefix (see Source.Prefix).
//
// Quick start:
//
//	files, failures, err := ingest.Scan(ctx, cairn.Corpus{
//		Name:  "notes",
//		Kind:  cairn.KindFiles,
//		Paths: []string{"/home/me/notes"},
//	})
//	if err != nil { ... } // the corpus itself is malformed (cairn.ErrInvalid)
//	for _, f := range files {
//		text, err := ingest.Read(f, cairn.DefaultMaxFileSize)
//		var rerr *ingest.ReadError
//		if errors.As(err, &rerr) { ... } // count and report rerr.Reason
//		_ = text
//	}
//	_ = failures // directories or links that could not be walked, with reasons
package ingest
