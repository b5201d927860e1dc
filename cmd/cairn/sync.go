package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cairnmemory/cairn"
)

func cmdSync(ctx context.Context, e *env, args []string) error {
	fs := e.flags("sync")
	var corpora stringList
	fs.Var(&corpora, "corpus", "corpus to sync (repeatable; default all)")
	force := fs.Bool("force", false, "re-read every file and transcript (even with size and mtime unchanged) and re-project every session")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("sync", pos); err != nil {
		return err
	}
	e.bulkEmbed = true
	eng, cfg, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	bar := newProgress(e.stderr, !e.json)
	stopWatch := bar.watch() // a phase that stops sending events is said to wait (ux F25)
	res, err := eng.Sync(ctx, &cairn.SyncOptions{Corpora: corpora, Force: *force, Progress: bar.update})
	stopWatch()
	bar.done()
	if err != nil && ctx.Err() != nil {
		// Ctrl-C: say what was kept, not "context canceled".
		err = bar.interrupted(res)
	}
	var notes []string
	if res != nil {
		notes = e.ownFoldersNotes(synced(eng.Corpora(), res))
	}
	if why, ok := embeddingPaused(res, err); ok && ctx.Err() == nil {
		// The words are indexed; the vectors wait (ux F25): not a failure.
		verb := "wait"
		if res.PendingEmbeddings == 1 {
			verb = "waits"
		}
		note := fmt.Sprintf("embedding paused: %s; %s %s for vectors; the next sync embeds them", why, plural(res.PendingEmbeddings, "chunk"), verb)
		if e.json {
			fmt.Fprintln(e.stderr, "cairn: "+note)
		}
		notes, err = append(notes, note), nil
	}
	if res != nil {
		if perr := e.printSyncNotes(res, notes); perr != nil && err == nil {
			err = perr
		}
	}
	if ctx.Err() == nil && (res != nil || err != nil) {
		err = e.syncDamage(ctx, cfg, res, err) // sync_damage.go
	}
	return err
}

func (e *env) printSync(res *cairn.SyncResult) error { return e.printSyncNotes(res, nil) }

// embeddingPaused reports a sync that indexed its corpora and stopped
// embedding because the embedder could not serve now, with the reason:
// busy after the retries (timeouts, 429, 5xx) or not listening
// (connection refused: the model's server is down). The chunks wait for
// vectors and the next sync embeds them, so it is a pause, as a memories
// sleep without its model is, not a failure. Anything the user must mend
// (a refused key, a wrong URL, a full disk) stays a failure, exit 1.
func embeddingPaused(res *cairn.SyncResult, err error) (string, bool) {
	if err == nil || res == nil || res.PendingEmbeddings == 0 {
		return "", false
	}
	// httpjson keeps a transport error's text, not its chain.
	refused := errors.Is(err, cairn.ErrUnavailable) && strings.Contains(err.Error(), "connection refused")
	if !errors.Is(err, cairn.ErrBusy) && !refused {
		return "", false
	}
	why := err.Error()
	// engine: "embed chunks (0 of 2 done, the rest resume on the next sync): <cause>"
	if rest, ok := strings.CutPrefix(why, "embed chunks ("); ok {
		if _, cause, ok := strings.Cut(rest, "): "); ok {
			why = cause
		}
	}
	return visible(why), true
}

// synced returns the corpora of corpora that res reports on.
func synced(corpora []cairn.Corpus, res *cairn.SyncResult) []cairn.Corpus {
	var out []cairn.Corpus
	for _, c := range corpora {
		if slices.ContainsFunc(res.Corpora, func(r cairn.CorpusSyncResult) bool { return r.Name == c.Name }) {
			out = append(out, c)
		}
	}
	return out
}

// printSyncNotes is printSync with notes on the corpora, each a line
// after the table and the failures (not in --json).
func (e *env) printSyncNotes(res *cairn.SyncResult, notes []string) error {
	if e.json {
		return e.printJSON(res)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	// Counts and the duration are written as the progress lines write
	// them (3,215; 1m19s); --json keeps plain numbers and seconds.
	fmt.Fprintln(tw, "corpus\tscanned\tadded\tupdated\tunchanged\tremoved\tfailed\tchunks\t")
	for _, c := range res.Corpora {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Name, thousands(c.Scanned), thousands(c.Added), thousands(c.Updated),
			thousands(c.Unchanged), thousands(c.Removed), thousands(c.Failed), thousands(c.Chunks))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range res.Corpora {
		for _, f := range c.Failures {
			fmt.Fprintln(e.stdout, failedLine(c.Name, f))
		}
		// A files corpus's redactions, as the sessions' are below (a
		// sessions corpus counts them by source there).
		if c.Sessions == nil {
			for _, kind := range slices.Sorted(maps.Keys(c.Redactions)) {
				fmt.Fprintf(e.stdout, "%s: %d secrets redacted: %s\n", c.Name, c.Redactions[kind], kind)
			}
		}
		if c.Sessions != nil {
			printSources(e, c.Sessions.Sources)
		}
	}
	for _, n := range notes {
		fmt.Fprintln(e.stdout, n)
	}
	if res.Pruned > 0 {
		fmt.Fprintf(e.stdout, "removed %s of corpora no longer configured (cairn corpus add NAME PATH keeps a corpus)\n", plural(res.Pruned, "document"))
	}
	if res.Embedded > 0 || res.PendingEmbeddings > 0 {
		fmt.Fprintf(e.stdout, "embedded %s chunks, %s waiting for vectors\n", thousands(res.Embedded), thousands(res.PendingEmbeddings))
	}
	fmt.Fprintf(e.stdout, "done in %s\n", tookDuration(time.Duration(res.Seconds*float64(time.Second))))
	return nil
}

// failedLine is a corpus's failure as sync prints it: the corpus and the
// path inside it ("notes/sub/a.md"), or the corpus and the root itself
// when the failure is the root's (an absolute path: "notes: /srv/notes",
// which printed as "notes//srv/notes"), control characters visible
// (printsafe.go).
func failedLine(corpus string, f cairn.FileFailure) string {
	sep := "/"
	if filepath.IsAbs(f.Path) {
		sep = ": "
	}
	return "failed: " + corpus + sep + visible(f.Path) + ": " + visible(f.Reason)
}

func printSources(e *env, sources []cairn.SourceSyncStats) {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "source\tfiles\tchanged\tsessions\tprojected\tunchanged\tskipped\tremoved\tfailed\t")
	for _, s := range sources {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", s.Source, s.Files, s.FilesChanged, s.Sessions, s.Projected, s.Unchanged, s.Skipped, s.Removed, s.Failed)
	}
	tw.Flush()
	// One line for the sources that read nothing again and still show
	// sessions skipped: their skipped count and reasons are the last
	// read's, kept, while the row's other counts are this run's (none; ux
	// F11). A source without kept reasons needs no word (its row is all
	// this run's), and with no file read every failure is a file that
	// could not be opened, so one whose files all failed was never read.
	var kept []string
	for _, s := range sources {
		if s.FilesChanged == 0 && s.Files > len(s.Failures) && s.Skipped > 0 {
			kept = append(kept, s.Source)
		}
	}
	if len(kept) > 0 {
		fmt.Fprintf(e.stdout, "no transcript changed since its last read (%s): skipped and its reasons are kept from that read; the other counts are this run's\n", strings.Join(kept, ", "))
	}
	for _, s := range sources {
		if line := skippedRecordsLine(s); line != "" {
			fmt.Fprintln(e.stdout, line)
		}
		for kind, n := range s.Redactions {
			fmt.Fprintf(e.stdout, "%s: %d secrets redacted: %s\n", s.Source, n, kind)
		}
		for _, code := range slices.Sorted(maps.Keys(s.Truncated)) {
			fmt.Fprintf(e.stdout, "%s: truncated %d: %s\n", s.Source, s.Truncated[code], cairn.ReasonText(code))
		}
		for _, code := range slices.Sorted(maps.Keys(s.SkipReasons)) {
			fmt.Fprintf(e.stdout, "%s: %d sessions skipped: %s\n", s.Source, s.SkipReasons[code], cairn.ReasonText(code))
		}
		if d := s.Diagnostics; d != nil {
			fmt.Fprintf(e.stdout, "%s: envelopes: %d internal messages cleaned, %d attachments cleaned, %d messages over the work budget left as they were\n",
				s.Source, d.InternalMessagesCleaned, d.AttachmentsCleaned, d.AttachmentBudgetSkipped)
		}
		for _, f := range s.Failures {
			fmt.Fprintf(e.stdout, "failed: %s: %s: %s\n", s.Source, visible(f.Path), visible(f.Reason))
		}
	}
}

// skippedRecordsLine is one line for the records a source's transcripts
// held that are no messages (an event, an info record, an image part) or
// could not be read: "openclaw: 4 records skipped: event custom 1, event
// model_change 1, ...", reasons sorted, or "" for none. Most are routine,
// and a line each (nine on a first sync of the fixtures, in map order)
// read as trouble (ux U22); --json keeps the counts by reason.
func skippedRecordsLine(s cairn.SourceSyncStats) string {
	if len(s.LinesSkipped) == 0 {
		return ""
	}
	total := 0
	var parts []string
	for _, reason := range slices.Sorted(maps.Keys(s.LinesSkipped)) {
		n := s.LinesSkipped[reason]
		total += n
		parts = append(parts, fmt.Sprintf("%s %s", visible(reason), thousands(n)))
	}
	return fmt.Sprintf("%s: %s skipped: %s", s.Source, plural(total, "record"), strings.Join(parts, ", "))
}

func cmdSyncStatus(ctx context.Context, e *env, args []string) error {
	fs := e.flags("sync status")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("sync status", pos); err != nil {
		return err
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	st, err := eng.SyncStatus()
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(st)
	}
	fmt.Fprintf(e.stdout, "status: %s", st.Status)
	if st.Phase != "" {
		fmt.Fprintf(e.stdout, " (%s)", st.Phase)
	}
	fmt.Fprintln(e.stdout)
	for _, kv := range [][2]string{{"started", st.StartedAt}, {"completed", st.CompletedAt}, {"last success", st.LastSuccessfulSyncAt},
		{"last checked", st.LastCheckedAt}, {"last indexed", st.LastIndexedAt}, {"nothing indexed", st.SkipReason}, {"error", st.Error}} {
		if kv[1] != "" {
			fmt.Fprintf(e.stdout, "%s: %s\n", kv[0], visible(kv[1]))
		}
	}
	if st.Status == "completed" {
		fmt.Fprintf(e.stdout, "sessions indexed: %d scanned, %d updated, %d unchanged, %d removed, %d skipped, %d failed\n",
			st.Scanned, st.Updated, st.Unchanged, st.Removed, st.Skipped, st.Failed)
		printSources(e, st.Sources)
	}
	return nil
}
