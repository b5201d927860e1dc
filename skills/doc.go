// Package skills is C4's skills corpus: the SKILL.md files under a
// skills corpus's paths, read for their name and description and embedded
// in memory, for the skill whisperer to match a request against.
//
// Quick start:
//
//	idx := skills.NewIndex(corpus.Paths, embedder) // corpus: the [[corpus]] with kind = "skills"
//	w, err := skills.Watch(idx, nil)               // optional: file events invalidate the index
//	defer w.Close()
//	matches, err := idx.Search(ctx, "user: deploy the site to staging", 10)
//
// The corpus never reaches the index store: nothing of it is written to
// disk, so memory_search (even over "all"), memory_get (not_found),
// clustering, maintenance and audits never see it (cairn.SelectCorpora and
// the engine leave kind "skills" out). The index is built on first use and
// again after Invalidate; a watcher's events call Invalidate.
//
// Discovery (Discover). Each configured path resolves as a files corpus's
// path does (C3), with "**/SKILL.md" as the pattern under a directory. A
// file is a skill when its base name is SKILL.md in any case (skill.md,
// Skill.md) and its path matches the pattern, or lies under a directory
// the pattern matches (so "~/work/*/skills" takes every SKILL.md beneath
// each match). Symlinked directories are followed, each real directory
// entered once (a link loop ends there); .git and node_modules are not
// entered. Frontmatter is the first "---" block at the top of the file:
// "key: value" lines, quotes around a value stripped, a ">" or "|" value
// continued by the indented lines after it. name defaults to the name of
// the directory holding the file; description defaults to "". Two skills
// whose names differ only in case: the one from the earlier configured
// path wins (within one path, the first in path order), and the other is
// reported as a duplicate.
//
// Embedding. A skill is embedded as a document whose title is its name and
// whose text is its description: "<name>\n\n<description>", the way a
// Markdown chunk's heading leads its text.
package skills
