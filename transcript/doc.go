// Package transcript projects agent sessions into readable Markdown
// documents and reads them back as messages.
//
// A projection is derived data: one document per session, rebuilt whenever
// the source transcript or the projector changes (Version). Layout:
//
//	# Transcript
//
//	## User — Dana — 2026-05-04 09:15:06 UTC
//
//	what did we decide about the garden fence?
//
//	## Assistant — claude-code — 2026-05-04 09:15:09 UTC
//
//	On 2 March we settled on cedar boards…
//
//	- tool Bash: go test ./auth/... (error)
//	  > FAIL TestLogin (0.01s) …
//
// Message headings carry the role, the speaker and the time in the user's
// zone. Generated compaction summaries get their own heading ("Summary —
// generated"), so they are never taken for a person's request. Thinking is
// never projected; tool calls become one line each (name, key arguments,
// error flag) with their output cut to a budget.
//
// Messages parses a projection back into message spans, which search uses
// to return session hits as message arrays and to expand a hit to its turn.
package transcript
