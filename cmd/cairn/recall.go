package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

// cmdRecall searches the memories corpus alone: cairn search with the
// memory filters, up to cairn.MaxRecallLimit results.
func cmdRecall(ctx context.Context, e *env, args []string) error {
	fs := e.flags("recall")
	limit := fs.Int("limit", cairn.DefaultSearchLimit, fmt.Sprintf("maximum hits, 1 to %d", cairn.MaxRecallLimit))
	minScore := fs.Float64("min-score", cairn.DefaultMinScore, "minimum calibrated score (the probability a hit answers the query), 0 to 1")
	mode := fs.String("mode", "", "hybrid, lexical or vector (default hybrid with an embedder, else lexical)")
	var kinds stringList
	fs.Var(&kinds, "kind", "only memories of this kind (repeatable): episode, observation, profile or an item kind")
	scope := fs.String("scope", "", "only items of this scope: project, global or person")
	project := fs.String("project", "", "only memories from sessions run in this working folder (the session's cwd)")
	status := fs.String("status", cairn.StatusActive, "memory status: active (superseded memories are listed by cairn memories list)")
	toldFrom := fs.String("told-from", "", "only memories told at or after this ISO-8601 time (with offset) or date")
	toldTo := fs.String("told-to", "", "only memories told at or before this ISO-8601 time (with offset) or date")
	from := fs.String("from", "", "event-time range start: YYYY, YYYY-MM or YYYY-MM-DD (a memory matches when its event date or span overlaps the range)")
	to := fs.String("to", "", "event-time range end, inclusive: YYYY, YYYY-MM or YYYY-MM-DD")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("recall needs a QUERY")
	}
	f := &cairn.MemorySearch{Kinds: kinds, Scope: *scope, Project: *project, Status: *status, From: *from, To: *to}
	if f.ToldFrom, err = parseTime("told-from", *toldFrom, false); err != nil {
		return err
	}
	if f.ToldTo, err = parseTime("told-to", *toldTo, true); err != nil {
		return err
	}
	if err := engine.CheckMemorySearch(f); err != nil {
		return usagef("%s", recallFlagNames(err))
	}
	if *limit < 1 || *limit > cairn.MaxRecallLimit {
		return usagef("--limit %d out of range: allowed 1 to %d", *limit, cairn.MaxRecallLimit)
	}
	opts := &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}, Limit: *limit, MinScore: *minScore, Mode: *mode, Memories: f}
	if err := opts.Validate(); err != nil {
		return err
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	hits, err := eng.Search(ctx, strings.Join(pos, " "), opts)
	if err != nil {
		return err
	}
	if len(hits) == 0 && !memoriesLive(eng) { // the memories corpus answers nothing before the first memory
		return errors.New("recall: " + engine.NoMemories)
	}
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
		fmt.Fprintln(e.stdout, "no memories found")
		return nil
	}
	for _, h := range hits {
		m := h.Memory
		if m == nil {
			continue
		}
		var when []string
		switch {
		case m.StartDate != "" || m.EndDate != "":
			when = append(when, "event "+strings.TrimSpace(m.StartDate+" to "+m.EndDate))
		case m.EventDate != "":
			when = append(when, "event "+m.EventDate)
		}
		if t, err := time.Parse(time.RFC3339, m.ToldAt); err == nil {
			when = append(when, "told "+t.Format("2006-01-02"))
		}
		fmt.Fprintf(e.stdout, "%s  %s  %s  score %.2f\n", m.ID, m.Kind, strings.Join(when, ", "), h.Score)
		fmt.Fprintf(e.stdout, "    %s\n", m.Title)
		for _, s := range m.Sources {
			if s.Path == "" { // a told memory: no document, the record says who told it when
				fmt.Fprintf(e.stdout, "    %s\n", s.Record)
				continue
			}
			fmt.Fprintf(e.stdout, "    from %s:%d-%d\n", s.Path, s.StartLine, s.EndLine)
		}
		fmt.Fprintln(e.stdout)
	}
	return nil
}

var kindIndex = regexp.MustCompile(`memoryFilter\.kinds\[\d+\]`)

// recallFlagNames rewrites the field names of a memory filter error as
// recall's flags.
func recallFlagNames(err error) string {
	s := kindIndex.ReplaceAllString(err.Error(), "--kind")
	return strings.NewReplacer("memoryFilter.toldFrom", "--told-from", "memoryFilter.toldTo", "--told-to",
		"memoryFilter.from", "--from", "memoryFilter.to", "--to", "memoryFilter.scope", "--scope",
		"memoryFilter.status", "--status").Replace(s)
}

// memoriesLive reports whether eng's memories corpus is live: a sessions
// corpus is configured or a memory is stored (as of eng's last search).
func memoriesLive(eng *engine.Engine) bool {
	return slices.ContainsFunc(eng.SearchCorpora(), func(c cairn.Corpus) bool { return c.Kind == cairn.KindMemories })
}
