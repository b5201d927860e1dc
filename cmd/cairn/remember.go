package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cairnmemory/cairn"
)

// rememberFlagNames spells the fields of a remember error as the flags do.
var rememberFlagNames = strings.NewReplacer("event_date", "--event-date", "start_date", "--start-date", "end_date", "--end-date",
	"applies_when", "--applies-when")

// rememberField is the field a remember error starts with ("remember:
// title is required ..."); rememberList a list entry ("cues[2] is ...") or
// count ("9 cues: ...").
var (
	rememberField = regexp.MustCompile(`^remember: (agent|kind|title|summary|body|about|scope|confidence|importance|phase)\b`)
	rememberEntry = regexp.MustCompile(`^remember: (cues|concepts)\[([0-9]+)\]`)
	rememberCount = regexp.MustCompile(`^remember: ([0-9]+) (cues|concepts):`)
)

// rememberCLIError names in a remember error the flag (or the argument)
// the CLI takes for the field the library names: "--title is required for
// a preference", not "title is required"; the MCP tool's messages keep the
// field names of its input.
func rememberCLIError(msg string) string {
	flag := func(field string) string {
		switch field {
		case "summary":
			return "the memory's text (the argument)"
		case "cues":
			return "--cue"
		case "concepts":
			return "--concept"
		}
		return "--" + field
	}
	msg = rememberField.ReplaceAllStringFunc(msg, func(m string) string {
		return "remember: " + flag(strings.TrimPrefix(m, "remember: "))
	})
	if m := rememberEntry.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[2])
		msg = "remember: " + flag(m[1]) + " number " + strconv.Itoa(n+1) + msg[len(m[0]):]
	}
	if m := rememberCount.FindStringSubmatch(msg); m != nil {
		msg = "remember: " + m[1] + " " + flag(m[2]) + " values:" + msg[len(m[0]):]
	}
	return rememberFlagNames.Replace(msg)
}

// cmdRemember writes a memory directly: the summary is the positional
// argument, the rest are flags. It is told by "cli", or by the agent
// --agent names.
func cmdRemember(ctx context.Context, e *env, args []string) error {
	fs := e.flags("remember")
	var r cairn.RememberRequest
	var cues, concepts stringList
	fs.StringVar(&r.Kind, "kind", "", "what it is: an item kind (decision, procedure, snippet, template, pitfall, fact, architecture, preference, reference) or observation (required)")
	fs.StringVar(&r.Title, "title", "", "items: a short line naming it (required for items)")
	fs.StringVar(&r.Body, "body", "", "more detail: steps, code, commands")
	fs.StringVar(&r.AppliesWhen, "applies-when", "", "items: when it applies")
	fs.StringVar(&r.Scope, "scope", "", "items: project (default), global or person")
	fs.StringVar(&r.Confidence, "confidence", "", "items: stated (default) or verified")
	fs.IntVar(&r.Importance, "importance", 0, "items: 2 to 5 (0: the default, 3)")
	fs.StringVar(&r.About, "about", "", "observations: who or what it is about")
	fs.StringVar(&r.Phase, "phase", "", "observations: done (default), plan, ongoing or state")
	fs.StringVar(&r.EventDate, "event-date", "", "when it happened: YYYY, YYYY-MM or YYYY-MM-DD")
	fs.StringVar(&r.StartDate, "start-date", "", "start of the span it happened over (instead of --event-date)")
	fs.StringVar(&r.EndDate, "end-date", "", "end of the span, inclusive")
	fs.Var(&cues, "cue", "a question or phrase to find it by (repeatable)")
	fs.Var(&concepts, "concept", "a name of what it is about: a tool, file, person, place (repeatable)")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("remember takes one argument, the memory's text (quote it), got %d", len(pos))
	}
	r.Summary, r.Cues, r.Concepts = pos[0], cues, concepts
	r.Agent = "cli"
	if e.agent != "default" {
		r.Agent = e.agent
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	res, err := eng.Remember(ctx, &r)
	if errors.Is(err, cairn.ErrInvalid) {
		return cairn.Invalidf("%s", rememberCLIError(err.Error()))
	}
	if err != nil {
		return err
	}
	if res.EmbedError != "" {
		fmt.Fprintln(e.stderr, "cairn: warning: not embedded yet (lexical search finds it; the next sync embeds it): "+oneLine(res.EmbedError))
	}
	if e.json {
		return e.printJSON(res)
	}
	verb := "remembered"
	if !res.Created {
		verb = "remembered again (replaced)"
	}
	fmt.Fprintf(e.stdout, "%s %s %s: %s\n%s\n", verb, res.Memory.Kind, res.Memory.ID, res.Memory.Title, res.Provenance)
	return nil
}
