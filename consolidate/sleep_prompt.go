package consolidate

import (
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
)

// sleepSystem is the sleep pass's system prompt (prompts/sleep.md).
func sleepSystem() string {
	var b strings.Builder
	if err := prompts().ExecuteTemplate(&b, "sleep.md", nil); err != nil {
		panic(fmt.Sprintf("render sleep.md: %v", err))
	}
	return strings.TrimSpace(b.String()) + "\n"
}

type sleepMember struct {
	ID, Kind, Told, Event, Extra string
	Title, About, Summary, Body  string
	Concepts                     []string
	Sources                      string
}

// sleepPrompt renders a group (prompts/sleep.tmpl): each member with its
// id, kind, told and event dates, text (the body cut at bodyChars) and
// where it came from.
func sleepPrompt(family string, ms []cairn.Memory, bodyChars int) string {
	d := struct {
		Family  string
		Members []sleepMember
	}{Family: family}
	for i := range ms {
		m := &ms[i]
		sm := sleepMember{ID: m.ID, Kind: m.Kind, Told: "unknown", Event: eventSpan(m), Title: oneLine(m.Title), About: oneLine(m.About),
			Summary: oneLine(m.Summary), Body: strings.TrimSpace(m.Body), Concepts: m.Concepts}
		if !m.ToldAt.IsZero() {
			sm.Told = m.ToldAt.Format("2006-01-02 15:04")
		}
		var extra []string
		for _, s := range []string{m.Confidence, m.Phase, m.Outcome} {
			if s != "" {
				extra = append(extra, s)
			}
		}
		if m.Importance > 0 {
			extra = append(extra, fmt.Sprintf("importance %d", m.Importance))
		}
		sm.Extra = strings.Join(extra, " · ")
		if bodyChars > 0 && chars(sm.Body) > bodyChars {
			sm.Body = sm.Body[:byteIndex(sm.Body, bodyChars)] + " […]"
		}
		sm.Sources = fmt.Sprintf("%d records of %s", len(m.Provenance), m.Thread)
		if len(m.Provenance) == 1 {
			sm.Sources = "1 record of " + m.Thread
		}
		d.Members = append(d.Members, sm)
	}
	var b strings.Builder
	if err := prompts().ExecuteTemplate(&b, "sleep.tmpl", d); err != nil {
		panic(fmt.Sprintf("render sleep group: %v", err))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
