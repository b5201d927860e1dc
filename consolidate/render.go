package consolidate

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/template"
	"time"
)

//go:embed prompts
var promptFS embed.FS

// prompts parses the templates on first use, not at process start: every
// cairn command links this package and most never render a prompt.
var prompts = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{"join": strings.Join}).
		ParseFS(promptFS, "prompts/*.md", "prompts/*.tmpl"))
})

// Schemas: the main window's (the spec's field names), the same without
// observations (when they are read apart), and the observations pass's.
// They are read on first use, like the templates.
var (
	schemaMain         = sync.OnceValue(func() json.RawMessage { return mustRead("prompts/window.schema.json") })
	schemaObservations = sync.OnceValue(func() json.RawMessage { return mustRead("prompts/observations.schema.json") })
	schemaMainApart    = sync.OnceValue(func() json.RawMessage { return withoutObservations(schemaMain()) })
)

func mustRead(name string) json.RawMessage {
	b, err := promptFS.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return b
}

func withoutObservations(schema json.RawMessage) json.RawMessage {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		panic(err)
	}
	delete(s["properties"].(map[string]any), "observations")
	s["required"] = slices.DeleteFunc(s["required"].([]any), func(v any) bool { return v == "observations" })
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}

// system returns the system prompt of a pass.
func system(pass string, observations bool) string {
	name := "main.md"
	if pass == PassObservations {
		name = "observations.md"
	}
	var b strings.Builder
	if err := prompts().ExecuteTemplate(&b, name, map[string]bool{"Observations": observations}); err != nil {
		panic(fmt.Sprintf("render %s: %v", name, err))
	}
	return strings.TrimSpace(b.String()) + "\n"
}

// partInfo tells the model which part of a long record it reads and the
// episode written so far.
type partInfo struct {
	Num, N, Of     int
	Title, Summary string
}

type windowData struct {
	Source, Title, Folder string
	Calendar              []string
	Names                 []knownName
	Part                  *partInfo
	Context               string
	Records               []string
}

// header fills the parts of a window every pass shares.
func header(th *Thread, recs []*Record, names []knownName) windowData {
	title := th.Info.Title
	if strings.TrimSpace(title) == "" {
		title = "(untitled) " + th.Path
	}
	return windowData{Source: orUnknown(th.Info.Source), Title: oneLine(title), Folder: th.Info.Cwd,
		Calendar: calendar(recs), Names: names}
}

func renderWindow(d windowData) string {
	var b strings.Builder
	if err := prompts().ExecuteTemplate(&b, "window.tmpl", d); err != nil {
		panic(fmt.Sprintf("render window: %v", err))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// calendar lists, for every week holding a record day, that week and the
// one before it (so "last Friday" resolves), one line a week, Monday first,
// with record days marked *.
func calendar(recs []*Record) []string {
	days := map[string]bool{}
	weeks := map[time.Time]bool{}
	for _, r := range recs {
		if r.Time.IsZero() {
			continue
		}
		d := dateOf(r.Time)
		days[d.Format(time.DateOnly)] = true
		mon := d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
		weeks[mon] = true
		weeks[mon.AddDate(0, 0, -7)] = true
	}
	var mondays []time.Time
	for m := range weeks {
		mondays = append(mondays, m)
	}
	slices.SortFunc(mondays, func(a, b time.Time) int { return a.Compare(b) })
	var out []string
	for _, m := range mondays {
		y, w := m.ISOWeek()
		var b strings.Builder
		fmt.Fprintf(&b, "%d-W%02d:", y, w)
		for i := range 7 {
			d := m.AddDate(0, 0, i)
			ds := d.Format(time.DateOnly)
			fmt.Fprintf(&b, " %s %s", d.Format("Mon"), ds)
			if days[ds] {
				b.WriteString("*")
			}
		}
		out = append(out, b.String())
	}
	if len(out) == 0 {
		out = []string{"(no dates recorded)"}
	}
	return out
}

// dateOf is the calendar day of t in its own zone, as a UTC midnight.
func dateOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func orUnknown(s string) string {
	if strings.TrimSpace(s) == "" {
		return "unknown"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
