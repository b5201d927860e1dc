// Package consolidate turns agent conversations into long-term memories.
//
// A Worker reads the threads of a sessions corpus (one per projected
// session) as records: a person's request with everything that followed it
// until the next request. Pending records are grouped into windows of
// whole records of at most 60,000 characters as rendered; a longer record
// is read alone, in parts of at most 58,000 characters cut at line ends,
// with the episode written so far carried from part to part. Each window
// starts with a header: the source, the thread title, the working folder,
// a calendar of its days (weeks start on Monday, so "last Friday" resolves
// to a date) and names known from other threads: each a name paired with
// what another thread's observation or profile said about it, chosen for
// the words this window shares with it (names.go). Observations are read
// apart by default, in windows of 12,000 characters with up to 6,000
// characters of the text before them as context.
//
// The model answers with the JSON schema in prompts/window.schema.json
// (field names as in the specification: segment_summary, episodes, items,
// observations, applies_when, event_date, ...). A gate in code, not in the
// prompt, keeps what may be stored (see gate.go for every rule and the
// reasons it reports), redacts every text field, and derives each memory's
// id from its thread, its source records and its content, so a window
// consolidated twice stores nothing twice. A window's memories and the
// checkpoint that marks its records done are committed in one transaction;
// an unavailable or busy model pauses the run with nothing lost. Every
// answer is checked against its schema in code; an unusable one is asked
// again once with the reason in the prompt, and a second failure records
// the window as failed (status completed_with_failures, the reason in
// Failures). After DefaultMaxFailures runs a window is given up and
// skipped until a run is asked to retry it.
//
// A session may still be going: its last record is held back until the
// thread has been quiet for IdleAfter (30 minutes by default), and the
// checkpoint keeps a hash of each record's text, so a record that grows or
// is edited after it was read has its whole window read again, that
// window's old memories replaced (ids stay content-derived: what is said
// again keeps its id, what is no longer said goes).
//
// A Sleeper is the later pass over stored memories: groups of active
// memories of one kind family that look alike are found in code (shared
// words of title and summary, concepts, subject), the fast model says
// which are duplicates, which supersede which and which are related, and
// a gate in code (sleep_gate.go) keeps what is consistent: duplicates
// merged into the best-supported one, older memories superseded by newer
// ones, related ones linked both ways. Each group is one transaction and
// each pair is judged once. Then it writes a profile memory for each
// person or thing that DefaultProfileMin (5) active observations are
// about, and writes it again, superseding the old one, only when those
// observations change (profile.go).
//
// Prompts are files beside the code (prompts/), the project's own words.
//
// Quick start (the engine wires this for cairn consolidate):
//
//	w := consolidate.New(model, store, store, "sessions")
//	res, err := w.Run(ctx, nil)
//	// res.Status: "completed", "completed_with_failures", "failed",
//	// "paused_unavailable" or "paused_busy"
//	slept, err := consolidate.NewSleeper(fast, store).Run(ctx, nil)
package consolidate
