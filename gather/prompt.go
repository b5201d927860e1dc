package gather

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"text/template"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/schema"
)

//go:embed prompts
var promptFS embed.FS

var prompts = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(promptFS, "prompts/*.tmpl"))
})

// Lengths a candidate is shown at, in characters: a profile (what is
// known about a person or an entity) longer than any other memory.
const (
	textChars        = 600
	profileTextChars = 2400
	passageChars     = 300
)

// KindProfile is the kind of a profile memory (spec §7, Profiles).
const KindProfile = cairn.MemoryProfile

var systemPrompt = sync.OnceValue(func() string {
	b, err := promptFS.ReadFile("prompts/system.md")
	if err != nil {
		panic(fmt.Sprintf("read gather system prompt: %v", err))
	}
	return strings.TrimSpace(string(b)) + "\n"
})

type shown struct {
	N                                 int
	Kind, Happened, Told, Title, Text string
	Passage                           string
}

// partPrompt renders one part: the question, the time it names, and each
// candidate with its event date or span, its told date, its text and the
// passage that matched.
func partPrompt(question, from, to string, part []*Gathered, round int) string {
	d := struct {
		Question, Period string
		Round            int
		First, Last      int
		Items            []shown
	}{Question: oneLine(question), Period: period(from, to), Round: round}
	if len(part) > 0 {
		d.First, d.Last = part[0].Rank, part[len(part)-1].Rank
	}
	for i, it := range part {
		limit := textChars
		if it.Kind == KindProfile {
			limit = profileTextChars
		}
		s := shown{N: i + 1, Kind: it.Kind, Happened: happened(&it.Candidate), Told: "unknown",
			Title: oneLine(it.Title), Text: cut(strings.TrimSpace(it.Text), limit), Passage: cut(oneLine(it.Passage), passageChars)}
		if !it.ToldAt.IsZero() {
			s.Told = it.ToldAt.UTC().Format("2006-01-02")
		}
		if s.Passage == oneLine(s.Text) {
			s.Passage = "" // the text itself matched: said once
		}
		d.Items = append(d.Items, s)
	}
	var b strings.Builder
	if err := prompts().ExecuteTemplate(&b, "part.tmpl", d); err != nil {
		panic(fmt.Sprintf("render gather part: %v", err))
	}
	return b.String()
}

// happened is a candidate's event date, or its span, or "unknown".
func happened(c *Candidate) string {
	switch {
	case c.StartDate != "" || c.EndDate != "":
		return orUnknown(c.StartDate, "?") + " to " + orUnknown(c.EndDate, "?")
	case c.EventDate != "":
		return c.EventDate
	}
	return "unknown"
}

func period(from, to string) string {
	switch {
	case from == "" && to == "":
		return ""
	case from == to:
		return from
	case to == "":
		return "from " + from
	case from == "":
		return "until " + to
	}
	return from + " to " + to
}

func orUnknown(s, unknown string) string {
	if s == "" {
		return unknown
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut shortens s to n characters, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n])) + " […]"
}

// MaxSearches bounds the further searches one part may propose.
const MaxSearches = 6

// schemaFor is the answer schema of a part of n candidates: the numbers
// kept (1 to n) and up to MaxSearches further searches. Every property is
// required and no other is allowed (strict structured output).
func schemaFor(n int) json.RawMessage {
	s := map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"keep", "searches"},
		"properties": map[string]any{
			"keep": map[string]any{"type": "array", "maxItems": n,
				"items": map[string]any{"type": "integer", "minimum": 1, "maximum": n}},
			"searches": map[string]any{"type": "array", "maxItems": MaxSearches,
				"items": map[string]any{"type": "string", "minLength": 1, "maxLength": 200}},
		},
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("marshal gather schema: %v", err))
	}
	return b
}

var schemas sync.Map // n -> *schema.Schema

// compiled is schemaFor(n), compiled once per part size.
func compiled(n int) *schema.Schema {
	if s, ok := schemas.Load(n); ok {
		return s.(*schema.Schema)
	}
	s, _ := schemas.LoadOrStore(n, schema.MustCompile(schemaFor(n)))
	return s.(*schema.Schema)
}
