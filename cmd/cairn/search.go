package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
)

func cmdSearch(ctx context.Context, e *env, args []string) error {
	fs := e.flags("search")
	var corpora stringList
	fs.Var(&corpora, "corpus", "corpus to search (repeatable; default all)")
	limit := fs.Int("limit", cairn.DefaultSearchLimit, "maximum hits")
	minScore := fs.Float64("min-score", cairn.DefaultMinScore, "minimum calibrated score (the probability a hit answers the query), 0 to 1")
	explain := fs.Bool("explain", false, "show how each score was made")
	mode := fs.String("mode", "", "hybrid, lexical or vector (default hybrid with an embedder, else lexical)")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	var f sessionFlags
	f.bind(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("search needs a QUERY")
	}
	filter, err := f.filter()
	if err != nil {
		return err
	}
	opts := &cairn.SearchOptions{Corpora: corpora, Limit: *limit, MinScore: *minScore, Explain: *explain, Sessions: filter, Mode: *mode}
	if err := opts.Validate(); err != nil {
		return err
	}
	query := strings.Join(pos, " ")
	// With a running server for this data directory, its warm engine
	// searches (embedshare.go); without one, or if it fails, this process.
	cfg, err := e.loadConfig()
	if err != nil {
		return err
	}
	_, dataDir := e.paths()
	dir, err := config.AgentDir(dataDir, e.agent)
	if err != nil {
		return err
	}
	rep, rec, ok := e.searchThroughServer(ctx, cfg, dir, query, opts)
	if ok {
		warnPending(e, rep.Pending, dir, rec)
		return printHits(e, rep.Hits)
	}
	eng, _, err := e.openLoaded(ctx, cfg)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	hits, err := eng.Search(ctx, query, opts)
	if err != nil {
		return err
	}
	if opts.Mode != cairn.ModeLexical && eng.Embedder() != nil {
		if eng.Embedder().Identity() == (cairn.EmbedderIdentity{}) {
			// The build failed and stderr said why: every chunk counts
			// as waiting, and "run cairn sync" cannot help (ux F9).
			fmt.Fprintf(e.stderr, "cairn: the embedder could not be loaded (the line above says why), so only the lexical lane answered; fix [embedder] in %s first: sync cannot embed until it loads (cairn doctor checks it)\n", cfg.Path)
		} else {
			n, _ := eng.PendingEmbeddings(ctx)
			warnPending(e, n, dir, rec)
		}
	}
	if eng.Reindexed() {
		fmt.Fprintln(e.stderr, "cairn: the index format changed and was emptied; run cairn sync to rebuild it")
	}
	if len(hits) == 0 && slices.ContainsFunc(corpora, func(n string) bool { return strings.EqualFold(n, cairn.MemoriesCorpus) }) && !memoriesLive(eng) {
		fmt.Fprintln(e.stderr, "cairn: "+engine.NoMemories) // recall.go: --corpus memories before the first memory
	} else if len(hits) == 0 && !eng.Reindexed() {
		// Before the first sync "no results" reads as an answer (ux U31);
		// the servers' searches say it in their notice.
		if st, err := eng.IndexStats(ctx); err == nil && st.Documents == 0 {
			fmt.Fprintf(e.stderr, "cairn: the index is empty: nothing is synced yet for agent %s (run cairn sync)\n", e.agent)
		}
	}
	return printHits(e, hits)
}

// warnPending says that n chunks wait for vectors and who embeds them:
// a sync that runs already (a server's first sync, say) makes "run cairn
// sync" wrong, since that would only wait for its lock (pendingWho).
func warnPending(e *env, n int, dir string, rec embedShareRecord) {
	if n > 0 {
		fmt.Fprintf(e.stderr, "cairn: %d chunks are waiting for vectors, so only the lexical lane answered; %s\n", n, pendingWho(dir, rec))
	}
}

// printHits writes the hits as text or, with --json, as {"results": [...]}.
func printHits(e *env, hits []cairn.Hit) error {
	if e.json {
		if hits == nil {
			hits = []cairn.Hit{}
		}
		for i := range hits {
			hits[i].Score = round(hits[i].Score, 4)
		}
		return e.printJSON(map[string]any{"results": hits})
	}
	if len(hits) == 0 {
		fmt.Fprintln(e.stdout, "no results")
		return nil
	}
	for _, h := range hits {
		// printsafe.go: paths and text of the index print their control
		// characters visibly.
		fmt.Fprintf(e.stdout, "%s:%d-%d  score %.2f\n", visible(h.Path), h.StartLine, h.EndLine, h.Score)
		if h.Session != nil {
			fmt.Fprintf(e.stdout, "    session %s (%s, started %s)\n", visible(h.Session.SessionID), visible(h.Session.Source), visible(h.Session.StartedAt))
			for _, m := range h.Messages {
				fmt.Fprintf(e.stdout, "    [%s %s %s]\n", visible(orDash(m.Type)), visible(m.Name), visible(m.Timestamp))
				for _, l := range strings.Split(m.Body, "\n") {
					fmt.Fprintf(e.stdout, "      %s\n", visibleText(l))
				}
			}
		} else {
			for _, l := range strings.Split(h.Snippet, "\n") {
				fmt.Fprintf(e.stdout, "    %s\n", visibleText(l))
			}
		}
		// Session hits too: --explain printed nothing for them (a new
		// user's try), though --json --explain had it.
		if len(h.Explain) > 0 {
			fmt.Fprintf(e.stdout, "    explain: %s\n", visible(strings.Join(h.Explain, " ")))
		}
		fmt.Fprintln(e.stdout)
	}
	return nil
}

func round(x float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	return float64(int64(x*p+0.5)) / p
}

func orDash(s string) string {
	if s == "" {
		return "summary"
	}
	return s
}

// sessionFlags are the search flags that filter sessions.
type sessionFlags struct {
	from, to, provider, chatType, account, conversation, source, cwd string
}

func (f *sessionFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.from, "started-from", "", "sessions started at or after this ISO-8601 time (with offset) or date")
	fs.StringVar(&f.to, "started-to", "", "sessions started at or before this ISO-8601 time (with offset) or date")
	fs.StringVar(&f.provider, "provider", "", "sessions of this provider or channel")
	fs.StringVar(&f.chatType, "chat-type", "", "sessions of this chat type: direct, group or channel")
	fs.StringVar(&f.account, "account", "", "sessions of this account id")
	fs.StringVar(&f.conversation, "conversation", "", "sessions of this conversation id")
	fs.StringVar(&f.source, "source", "", "sessions from this source")
	fs.StringVar(&f.cwd, "cwd", "", "sessions run in this working folder")
}

// filter returns the session filter, or nil when no flag was given.
func (f *sessionFlags) filter() (*cairn.SessionFilter, error) {
	out := &cairn.SessionFilter{Provider: f.provider, ChatType: f.chatType, AccountID: f.account,
		ConversationID: f.conversation, Source: f.source, Cwd: f.cwd}
	var err error
	if out.StartedFrom, err = parseTime("started-from", f.from, false); err != nil {
		return nil, err
	}
	if out.StartedTo, err = parseTime("started-to", f.to, true); err != nil {
		return nil, err
	}
	if f.chatType != "" && !slices.Contains([]string{"direct", "group", "channel"}, f.chatType) {
		return nil, usagef("--chat-type %q: allowed direct, group or channel", f.chatType)
	}
	if f.source != "" && !slices.Contains(cairn.Sources, f.source) {
		return nil, usagef("--source %q: allowed %s", f.source, strings.Join(cairn.Sources, ", "))
	}
	if out.IsZero() {
		return nil, nil
	}
	return out, nil
}

// parseTime reads RFC 3339 with an offset, or a bare date (the whole day
// in UTC: its start for from, its end for to).
func parseTime(flagName, v string, end bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if d, err := time.Parse("2006-01-02", v); err == nil {
		if end {
			return d.Add(24*time.Hour - time.Millisecond), nil
		}
		return d, nil
	}
	return time.Time{}, usagef("--%s %q: use an ISO-8601 time with an offset (2026-05-04T09:00:00+02:00) or a date (2026-05-04)", flagName, v)
}
